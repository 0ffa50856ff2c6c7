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


def _tsv(labels, texts):
    return "".join(f"{a}\t{t}\n" for a, t in zip(labels, texts, strict=True))


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


# -- 1. real files ---------------------------------------------------------------------------


def _perceptron_with_offset(X, y):
    """Rosenblatt's perceptron with an offset, one pass: the mistakes (a tie counts)."""
    w, b, mistakes = np.zeros(X.shape[1]), 0.0, 0
    for x_t, y_t in zip(X, y, strict=True):
        if y_t * (w @ x_t + b) <= 0:
            w, b, mistakes = w + y_t * x_t, b + y_t, mistakes + 1
    return mistakes


def _trained(tmp_path, capsys, algo="perceptron"):
    X, y = _separable(n=30, d=2, seed=5)
    data = _write(tmp_path / "train.svm", _svmlight_text(X, y))
    model = tmp_path / "m.model"
    assert _run(capsys, "train", data, "--algo", algo, "-o", model)[0] == 0
    from halfspaces import load
    return str(model), load(str(model))


def test_unseen_features_have_zero_weight_with_a_note(tmp_path, capsys):
    model_path, model = _trained(tmp_path, capsys)
    # Indices 5 and 7 never occur in training: they must count as zero weight.
    test = _write(tmp_path / "test.svm", "1 1:0.5 2:1 5:3\n-1 1:-1 7:1\n1 2:2 5:-4 7:1\n")
    x_seen = np.array([[0.5, 1.0], [-1.0, 0.0], [0.0, 2.0]])
    w, b = np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])
    expected = np.where(x_seen @ w + b >= 0, 1, -1)
    code, out, err = _run(capsys, "predict", model_path, test)
    assert code == 0
    assert [int(v) for v in out.split()] == expected.tolist()
    assert err.count("\n") == 1 and "2 features beyond the model's 2 ignored" in err
    code, out, _ = _run(capsys, "evaluate", model_path, test, "--json")
    y = np.array([1, -1, 1])
    assert code == 0 and json.loads(out)["accuracy"] == pytest.approx(np.mean(expected == y))


def test_n_features_is_honoured_by_predict_and_evaluate(tmp_path, capsys):
    model_path, _ = _trained(tmp_path, capsys)
    test = _write(tmp_path / "test.svm", "1 1:0.5 5:3\n-1 1:-1 7:1\n")
    code, _, err = _run(capsys, "evaluate", model_path, test, "--n-features", "5")
    assert code == 1
    assert "test.svm:2:" in err and "beyond the 5 features" in err and "--n-features" in err
    assert _run(capsys, "evaluate", model_path, test, "--n-features", "9")[0] == 0


def test_delimiter_reads_tab_separated_numbers(tmp_path, capsys):
    X, y = _separable(n=30, d=3, seed=6)
    rows = [f"{int(label)}\t" + "\t".join(repr(float(v)) for v in x)
            for x, label in zip(X, y, strict=True)]
    data = _write(tmp_path / "physics.tsv", "\n".join(rows) + "\n")
    code, out, _ = _run(capsys, "bound", data, "--delimiter", "tab", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["n_features"] == 3
    assert result["radius"] == pytest.approx(np.linalg.norm(X, axis=1).max())
    model = tmp_path / "m.model"
    code, out, _ = _run(capsys, "train", data, "--delimiter", "\\t", "--algo", "perceptron",
                        "-o", model, "--json")
    assert code == 0 and json.loads(out)["n_samples"] == 30


def test_numbers_read_as_raw_text_are_refused_with_a_hint(tmp_path, capsys):
    data = _write(tmp_path / "physics.tsv", "1\t0.5\t2e-3\n-1\t-1.5\t3\n")
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 1 and err.count("\n") == 1
    assert "physics.tsv: every text is numbers only" in err
    assert "--format csv --delimiter tab" in err


def test_encoding_option_and_its_hint(tmp_path, capsys):
    text = "ham\tsee you at the café\nspam\tWIN a prize now\nham\tlunch at noon\n"
    data = _write(tmp_path / "sms.tsv", text, encoding="cp1252")
    model = tmp_path / "spam.model"
    code, _, err = _run(capsys, "train", data, "--algo", "perceptron", "-o", model)
    assert code == 1 and "sms.tsv:1: bytes that are not utf-8 text" in err
    assert "--encoding" in err and "encoding=" not in err
    code, _, _ = _run(capsys, "train", data, "--encoding", "cp1252", "--algo", "perceptron",
                      "-o", model)
    assert code == 0
    code, out, _ = _run(capsys, "predict", model, data, "--encoding", "cp1252")
    assert code == 0 and len(out.split()) == 3
    code, _, err = _run(capsys, "bound", _write(tmp_path / "d.svm", "1 1:1\n-1 1:-1\n"),
                        "--encoding", "cp1252")
    assert code == 1 and "--encoding does not apply to svmlight data" in err


def test_predict_on_raw_text_needs_no_label(tmp_path, capsys):
    texts = ["win cash now", "lunch at noon", "cash prize win", "see you at noon"]
    labels = ["spam", "ham", "spam", "ham"]
    data = _write(tmp_path / "sms.tsv", _tsv(labels, texts))
    model = tmp_path / "spam.model"
    assert _run(capsys, "train", data, "--algo", "perceptron", "-o", model)[0] == 0
    new = _write(tmp_path / "new.tsv", "".join(t + "\n" for t in texts))
    code, unlabelled, _ = _run(capsys, "predict", model, new)
    assert code == 0
    code, labelled, _ = _run(capsys, "predict", model, data)
    assert code == 0 and unlabelled.split() == labelled.split() and len(labelled.split()) == 4


def test_play_and_bound_take_raw_text(tmp_path, capsys):
    from sklearn.feature_extraction.text import HashingVectorizer

    texts = ["win cash now", "lunch at noon", "cash prize win", "see you at noon",
             "free cash prize", "noon lunch meeting"]
    labels = ["spam", "ham", "spam", "ham", "spam", "ham"]
    data = _write(tmp_path / "sms.tsv", _tsv(labels, texts))
    # train's default featurizer: hashing without alternating signs into --n-features buckets
    X = HashingVectorizer(n_features=64, alternate_sign=False).transform(texts).toarray()
    y = np.where(np.array(labels) == "spam", 1.0, -1.0)
    code, out, _ = _run(capsys, "play", data, "--n-features", "64", "--json")
    assert code == 0 and json.loads(out)["n_mistakes"] == _perceptron_with_offset(X, y)
    code, out, _ = _run(capsys, "bound", data, "--n-features", "64", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["n_features"] == 64
    assert result["radius"] == pytest.approx(np.linalg.norm(X, axis=1).max())
