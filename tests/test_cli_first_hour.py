"""A new user's first hour with the command line (issue 13): real files, messages, output.

Each test runs ``cli.main`` in-process on small files written here by hand, and checks the
result against what the file says (its indices, its columns) or against a reference written
from the formulas (Farkas' lemma, the margin of a separator, Novikoff's bound).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import separable as _separable

from halfspaces import cli


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return str(path)


def _svmlight_text(X, y, offset=1):
    return "".join(f"{int(label)} " + " ".join(f"{j + offset}:{float(v)!r}"
                                                for j, v in enumerate(x) if v != 0) + "\n"
                   for x, label in zip(X, y, strict=True))


# -- 0. --zero-based / --one-based on play, bound and plot -----------------------------------


@pytest.mark.parametrize("indexing, n_features", [("--zero-based", 3), ("--one-based", 2)])
def test_bound_reads_the_indexing_it_is_told(tmp_path, capsys, indexing, n_features):
    # Indices 1 and 2 only: 0-based, the file has 3 columns (column 0 empty); 1-based, 2.
    X, y = _separable(n=20, d=2, seed=3)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y))
    code, out, _ = _run(capsys, "bound", data, indexing, "--json")
    assert code == 0
    assert json.loads(out)["n_features"] == n_features


def test_play_and_plot_take_the_indexing_options(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    X, y = _separable(n=20, d=2, seed=4)
    data = _write(tmp_path / "d.svm", _svmlight_text(X, y, offset=0))
    code, out, _ = _run(capsys, "play", data, "--zero-based", "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 20
    # 1-based, the index 0 of this file is an error that names the option to use.
    code, _, err = _run(capsys, "play", data, "--one-based")
    assert code == 1 and "--zero-based" in err
    png = tmp_path / "b.png"
    code, _, _ = _run(capsys, "plot", "boundary", data, "--zero-based", "-o", png, "-q")
    assert code == 0 and png.stat().st_size > 0
