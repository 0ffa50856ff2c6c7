"""The command line on files that used to crash or be misread.

Train and test svmlight files read with the same indexing (recorded in the model), data from
pipes and standard input, byte-order marks, empty files, indices that overflow, and output
through symbolic links, FIFOs and /dev/null. References are computed here with the Python
API on explicitly described data (explicit ``zero_based`` and ``n_features``).
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest
from helpers import read_fifo_in_background

from halfspaces import cli
from halfspaces.datasets import load_csv, load_svmlight
from halfspaces.persistence import load

ENV = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _command(*argv, stdin: bytes | None = None):
    """The real command in a fresh interpreter; a hang fails the test (TimeoutExpired)."""
    return subprocess.run([sys.executable, "-m", "halfspaces.cli", *map(str, argv)],
                          input=stdin, capture_output=True, env=ENV, timeout=300)


def _svmlight_text(X, y, *, zero_based: bool) -> str:
    """svmlight lines written by hand; zeros are not written."""
    first = 0 if zero_based else 1
    return "".join(
        f"{int(label)} " + " ".join(f"{j + first}:{v!r}" for j, v in enumerate(x.tolist())
                                    if v != 0) + "\n"
        for x, label in zip(X, y, strict=True))


def _linear_data(n=200, seed=0):
    """Four features, labels by a fixed halfspace; the test half never uses feature 0."""
    rng = np.random.default_rng(seed)
    u = np.array([0.3, 1.0, -1.0, 0.5])
    X = rng.uniform(-1, 1, size=(2 * n, 4))
    X[n:, 0] = 0.0
    y = np.where(X @ u >= 0, 1, -1)
    return (X[:n], y[:n]), (X[n:], y[n:])


# -- train and test files read with the same indexing ---------------------------------------

def test_zero_based_test_file_without_feature_0_is_not_shifted(tmp_path, capsys):
    (X, y), (Xt, yt) = _linear_data()
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(_svmlight_text(X, y, zero_based=True))  # uses index 0: found 0-based
    test.write_text(_svmlight_text(Xt, yt, zero_based=True))  # never uses index 0
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", train, "--algo", "svm", "--C", "10", "-o", model)[0] == 0
    estimator = load(model)
    X_ref, y_ref = load_svmlight(test, n_features=4, zero_based=True)
    expected = estimator.score(X_ref, y_ref)
    assert expected > 0.9  # the model is good on the test file when it is read right
    code, out, err = _run(capsys, "evaluate", model, test, "--json")
    assert code == 0, err
    assert json.loads(out)["accuracy"] == expected
    metadata = load(model, with_metadata=True)[1]
    assert metadata == {"format": "svmlight", "zero_based": True, "n_features": 4}
    code, out, err = _run(capsys, "predict", model, test)
    assert code == 0, err
    assert out.split() == [str(v) for v in estimator.predict(X_ref).astype(int).tolist()]
    # The same rows written 1-based, with --one-based: the same predictions.
    one_based = tmp_path / "test1.svm"
    one_based.write_text(_svmlight_text(Xt, yt, zero_based=False))
    code, out2, err = _run(capsys, "predict", model, one_based, "--one-based")
    assert code == 0, err
    assert out2 == out


def test_training_file_detected_one_based_then_index_0_in_the_test_file(tmp_path, capsys):
    (X, y), (Xt, yt) = _linear_data(seed=1)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text(_svmlight_text(Xt, yt, zero_based=True))  # 0-based, no index 0
    test.write_text(_svmlight_text(X, y, zero_based=True))     # 0-based, with index 0
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", train, "--algo", "perceptron", "-o", model)[0] == 0
    assert load(model, with_metadata=True)[1]["zero_based"] is False
    code, out, err = _run(capsys, "evaluate", model, test)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"halfspaces: error: {test}:1:")
    assert f"{test}:1:3: index 0 in '0:0.0236" in err
    assert f"' in a file read with 1-based indices; the model {model} was trained on 1-based" \
           " indices" in err
    assert "train again with --zero-based" in err
    # As advised: both files 0-based.
    assert _run(capsys, "train", train, "--zero-based", "--algo", "perceptron",
                "-o", model)[0] == 0
    estimator, metadata = load(model, with_metadata=True)
    assert metadata["zero_based"] is True and metadata["n_features"] == 4
    code, out, err = _run(capsys, "evaluate", model, test, "--json")
    assert code == 0, err
    X_ref, y_ref = load_svmlight(test, n_features=4, zero_based=True)
    assert json.loads(out)["accuracy"] == estimator.score(X_ref, y_ref)


def test_indexing_flags_speak_the_command_lines_terms(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 0:1 2:1\n")
    code, _, err = _run(capsys, "train", data, "--one-based", "--algo", "perceptron",
                        "-o", tmp_path / "m")
    assert code == 1
    assert err == (f"halfspaces: error: {data}:2:4: index 0 in '0:1' in a file read with"
                   " 1-based indices; pass --zero-based, or neither --zero-based nor"
                   " --one-based to detect the indexing\n")
    with pytest.raises(SystemExit):
        cli.main(["train", str(data), "--zero-based", "--one-based", "-o", "m"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_test_file_with_more_features_than_the_model(tmp_path, capsys):
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text("1 1:1 2:1\n-1 2:-1 3:1\n")
    test.write_text("1 1:1\n-1 2:1 9:1\n")
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", train, "--algo", "perceptron", "-o", model)[0] == 0
    # Issue 13: a feature never seen in training has zero weight; a note says how many.
    code, out, err = _run(capsys, "predict", model, test)
    assert code == 0 and len(out.split()) == 2
    assert err == (f"halfspaces: note: {test}: 1 feature beyond the model's 3 ignored (never"
                   " seen in training: zero weight)\n")


# -- pipes and standard input ---------------------------------------------------------------

def test_piped_training_data_is_read_to_its_end(tmp_path):
    (X, y), _ = _linear_data(n=60, seed=2)
    text = _svmlight_text(X, y, zero_based=False)
    model = tmp_path / "m.npz"
    done = _command("train", "/dev/stdin", "--algo", "perceptron", "-o", model, "--json",
                    stdin=text.encode())
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["n_samples"] == 60
    done = _command("evaluate", model, "-", "--json", stdin=text.encode())
    assert done.returncode == 0, done.stderr.decode()
    path = tmp_path / "d.svm"
    path.write_text(text)
    X_ref, y_ref = load_svmlight(path)
    assert json.loads(done.stdout)["accuracy"] == load(model).score(X_ref, y_ref)


def _stdin(data: bytes) -> io.TextIOWrapper:
    """A stand-in for ``sys.stdin`` holding ``data`` (its ``buffer`` named as the real one)."""
    raw = io.BytesIO(data)
    raw.name = "<stdin>"
    return io.TextIOWrapper(raw)


def test_standard_input_in_the_models_recorded_format(tmp_path, capsys, monkeypatch):
    (X, y), (Xt, yt) = _linear_data(n=50, seed=3)
    csv = "".join(f"{label}," + ",".join(map(repr, x)) + "\n"
                  for x, label in zip(X.tolist(), y.tolist(), strict=True))
    monkeypatch.setattr(sys, "stdin", _stdin(csv.encode()))
    model = tmp_path / "m.npz"
    code, _, err = _run(capsys, "train", "-", "--format", "csv", "--algo", "perceptron",
                        "-o", model)
    assert code == 0, err
    assert load(model, with_metadata=True)[1] == {
        "format": "csv", "zero_based": None, "n_features": 4,
        "csv": {"version": 1, "header": None, "label": 0, "weight": None, "n_fields": 5,
                "delimiter": ","}}
    monkeypatch.setattr(sys, "stdin", _stdin(csv.encode()))
    code, out, err = _run(capsys, "predict", model, "-")  # read as CSV, as recorded
    assert code == 0, err
    path = tmp_path / "d.csv"
    path.write_text(csv)
    X_ref, _ = load_csv(path)
    assert [float(v) for v in out.split()] == load(model).predict(X_ref).tolist()
    monkeypatch.setattr(sys, "stdin", _stdin(b"1,0.5\n-1,x\n"))
    code, _, err = _run(capsys, "evaluate", model, "-")
    assert err == "halfspaces: error: <stdin>:2: expected a number in column 1, got 'x'\n"


# -- byte-order marks and empty files -------------------------------------------------------

def test_byte_order_mark_in_text_and_csv(tmp_path, capsys):
    tsv = tmp_path / "sms.tsv"
    tsv.write_bytes(b"\xef\xbb\xbfham\tsee you at noon\nspam\twin cash now\n"
                    b"ham\tlunch at noon\nspam\tcash prize win\n")
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", tsv, "--algo", "perceptron", "-o", model)[0] == 0
    assert load(model)[-1].classes_.tolist() == ["ham", "spam"]
    csv = tmp_path / "p.csv"
    csv.write_bytes(b"\xef\xbb\xbf1,0.5,1\n-1,-0.5,2\n1,1.5,0\n")
    code, out, err = _run(capsys, "train", csv, "--algo", "perceptron", "-o", model, "--json")
    assert code == 0, err
    assert json.loads(out)["n_samples"] == 3
    assert load(model).classes_.tolist() == [-1.0, 1.0]


@pytest.mark.parametrize("name, content, message", [
    ("empty.svm", b"", "no examples in the file"),
    ("empty.svm", b"# only a comment\n\n", "no examples in the file"),
    ("empty.vw", b"\n", "no examples in the file"),
    ("empty.tsv", b"", "no examples in the file"),
    ("empty.tsv", b"\xef\xbb\xbf\n", "no examples in the file"),
    ("empty.csv", b"", "the file has no data rows"),
])
def test_a_file_without_examples_is_one_clear_line(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = _run(capsys, "train", path, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 1 and out == ""
    assert err.startswith(f"halfspaces: error: {path}") and message in err
    assert err.count("\n") == 1 and "unexpected" not in err
    assert not (tmp_path / "m").exists()


# -- indices that overflow or cannot be allocated -------------------------------------------

def test_index_beyond_64_bits_and_unallocatable_index(tmp_path, capsys):
    path = tmp_path / "big.svm"
    path.write_text("1 1:1\n-1 18446744073709551621:2.0\n")
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 1
    assert err.startswith(f"halfspaces: error: {path}:2:4: the index in"
                          " '18446744073709551621:2.0' does not fit in a 64-bit integer")
    n = 999_999_999_999_999
    path.write_text(f"1 1:1\n-1 2:1 {n}:2\n")
    code, _, err = _run(capsys, "train", path, "--algo", "perceptron", "-o", tmp_path / "m")
    assert code == 1 and "unexpected" not in err
    assert err.startswith(f"halfspaces: error: {path}:2:8: the index in '{n}:2' makes {n}"
                          f" features, and a weight vector that long ({8 * n / 2**50:.3g} PiB"
                          " of float64) cannot be allocated")


# -- -o through symbolic links, FIFOs and devices -------------------------------------------

def _trained(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 1:-1\n1 1:2\n")
    model = tmp_path / "m.npz"
    assert _run(capsys, "train", data, "--algo", "perceptron", "-o", model)[0] == 0
    return data, model


def test_output_through_a_symlink_keeps_the_link(tmp_path, capsys):
    data, model = _trained(tmp_path, capsys)
    target = tmp_path / "labels-v1.txt"
    target.write_text("old\n")
    link = tmp_path / "labels.txt"
    link.symlink_to(target.name)
    assert _run(capsys, "predict", model, data, "-o", link)[0] == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_text() == "1\n-1\n1\n"
    model_link = tmp_path / "current.npz"
    model_link.symlink_to(model.name)
    assert _run(capsys, "train", data, "--algo", "svm", "-o", model_link)[0] == 0
    assert model_link.is_symlink() and type(load(model)).__name__ == "SVC"


def _predict_into_fifo(tmp_path, capsys, data, model):
    fifo = tmp_path / "labels.fifo"
    os.mkfifo(fifo)
    reader, got = read_fifo_in_background(fifo)
    code = _run(capsys, "predict", model, data, "-o", fifo)[0]
    reader.join(timeout=60)
    return fifo, code, got


def test_output_into_a_fifo_and_dev_null(tmp_path, capsys):
    data, model = _trained(tmp_path, capsys)
    fifo, code, got = _predict_into_fifo(tmp_path, capsys, data, model)
    assert code == 0 and got == [b"1\n-1\n1\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # Only now that a FIFO is known to be written into, not replaced: /dev/null.
    before = os.stat("/dev/null")
    if not stat.S_ISCHR(before.st_mode):
        pytest.skip("/dev/null is not a character device on this machine")
    code, out, err = _run(capsys, "predict", model, data, "-o", "/dev/null")
    assert code == 0 and out == "", err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == \
        (before.st_ino, before.st_rdev)


def test_output_dash_is_standard_output(tmp_path, capsys):
    data, model = _trained(tmp_path, capsys)
    code, out, err = _run(capsys, "predict", model, data, "-o", "-")
    assert code == 0 and out == "1\n-1\n1\n", err
    assert not (tmp_path / "-").exists() and not os.path.exists("-")
