"""``halfspaces split``: the held-out rows are scikit-learn's train_test_split, the lines are
the input's."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from halfspaces import cli


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _lines(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.2, 1, -1)
    return y, [f"{label} 1:{rng.normal():.4f} 3:{rng.normal():.4f}\n" for label in y]


@pytest.mark.parametrize("stratify", [False, True])
def test_the_held_out_lines_are_train_test_split(tmp_path, capsys, stratify):
    y, lines = _lines(50)
    data = tmp_path / "d.svm"
    # a comment line and a blank line hold no example
    data.write_text("# made here\n" + "".join(lines[:20]) + "\n" + "".join(lines[20:]))
    flags = ["--stratify"] if stratify else []
    code, out, err = _run(capsys, "split", data, "--test-fraction", "0.3", "--random-state",
                          "7", *flags, "-o", tmp_path / "a.svm", "-o", tmp_path / "b.svm")
    assert code == 0, err
    train, test = train_test_split(np.arange(50), test_size=0.3, random_state=7,
                                   stratify=y if stratify else None)
    assert (tmp_path / "a.svm").read_text() == "".join(lines[i] for i in sorted(train))
    assert (tmp_path / "b.svm").read_text() == "".join(lines[i] for i in sorted(test))
    assert "35 to" in out and "15 to" in out


def test_a_csv_header_goes_to_both_and_weights_stay(tmp_path, capsys):
    rows = [f"{i % 2},{0.5 + i},{i / 10!r}\n" for i in range(12)]
    data = tmp_path / "w.csv"
    data.write_text("y,weight,x\n" + "".join(rows))
    train_file, test_file = tmp_path / "tr.csv.gz", tmp_path / "te.csv"
    code, _, err = _run(capsys, "split", data, "--weight-column", "weight", "--test-fraction",
                        "0.25", "--stratify", "-o", train_file, "-o", test_file)
    assert code == 0, err
    train, test = train_test_split(np.arange(12), test_size=0.25, random_state=0,
                                   stratify=np.arange(12) % 2)
    assert gzip.decompress(train_file.read_bytes()).decode() == \
        "y,weight,x\n" + "".join(rows[i] for i in sorted(train))
    assert test_file.read_text() == "y,weight,x\n" + "".join(rows[i] for i in sorted(test))


@pytest.mark.parametrize(("outputs", "message"), [
    (["IN"], r"split writes two files: give -o TRAIN -o TEST \(got 1 -o\)"),
    (["IN", "b.svm"], r"-o .*d.svm is the input DATA itself: split never overwrites"),
    (["a.svm", "a.svm"], r"the training and test files must differ"),
])
def test_outputs_are_two_new_files(tmp_path, capsys, outputs, message):
    data = tmp_path / "d.svm"
    data.write_text("".join(_lines(10)[1]))
    argv = [a for o in outputs for a in ("-o", data if o == "IN" else tmp_path / o)]
    before = data.read_text()
    code, _, err = _run(capsys, "split", data, *argv)
    assert code == 1
    assert re.search(message, err), err
    assert data.read_text() == before


def test_a_bad_fraction_is_refused(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("".join(_lines(10)[1]))
    code, _, err = _run(capsys, "split", data, "--test-fraction", "1.5", "-o",
                        tmp_path / "a", "-o", tmp_path / "b")
    assert code == 1 and "--test-fraction must be between 0 and 1" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm"]
