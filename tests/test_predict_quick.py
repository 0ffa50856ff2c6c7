"""``halfspaces predict`` of a small svmlight file with a linear model, without scikit-learn or
numba (issue 9): the labels and notes of the estimator's ``predict``, the errors of the usual
path, and a process that never imports them."""

from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import run_fresh
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import decimal_numbers
from test_model_files import _replace, _set, craft

import halfspaces
from halfspaces import cli
from halfspaces._labels import format_label
from halfspaces._predict_linear import row_dot_scores
from halfspaces.cli import _models, _quick
from halfspaces.datasets import load_svmlight, small_svmlight
from halfspaces.datasets.small_svmlight import read_small_svmlight
from halfspaces.linear.perceptron import linear_scores
from halfspaces.persistence import ModelFormatError, load, read_linear

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _write(path, n=60, d=9, seed=0, n_classes=2, base=1):
    """A svmlight file with rows of 0 to d entries, values of mixed magnitudes (so that the
    order of a sum changes its last bits), in assorted spellings."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < 0.6, rng.standard_normal((n, d))
                 * 10.0 ** rng.integers(-3, 4, (n, d)), 0.0)
    X[:3] = 0.0
    X[3, :] = rng.standard_normal(d)  # a full row: d mod 4 entries in the tail
    y = np.argmax(X @ rng.standard_normal((d, n_classes)) + rng.standard_normal(n_classes),
                  axis=1) if n_classes > 2 else np.where(X @ rng.standard_normal(d) >= 0, 1, -1)
    spell = [repr, lambda v: f"{v:.6e}", lambda v: f"{v:+.3f}"]
    lines = [" ".join([str(int(label))] + [f"{j + base}:{spell[j % 3](float(v))}"
                                           for j, v in enumerate(row) if v])
             for row, label in zip(X, y, strict=True)]
    path.write_text("# made by the test\n" + "\n".join(lines) + "\n")
    return path


def _fast_only(monkeypatch):
    """predict must not build the estimator (the fast path answers)."""
    monkeypatch.setattr(_models, "load_model", lambda *a: pytest.fail("built the estimator"))


def _saved(model, tmp_path):
    """``model`` saved to ``tmp_path / "m.npz"``, with 1-based indices for its data files."""
    path = tmp_path / "m.npz"
    halfspaces.save(model, path, metadata={"zero_based": False})
    return path


def _predict(capsys, *argv):
    code = cli.main(["predict", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


MODELS = {
    "perceptron": lambda: halfspaces.Perceptron(max_iter=3, random_state=0),
    "perceptron-no-offset": lambda: halfspaces.Perceptron(fit_intercept=False, max_iter=3,
                                                          random_state=0),
    "averaged": lambda: halfspaces.AveragedPerceptron(max_iter=3, random_state=0),
    "pegasos": lambda: halfspaces.PegasosSVC(lam=0.1, max_iter=2, random_state=0),
    "logistic": lambda: halfspaces.LogisticRegression(max_iter=20),
    "svc-dcd": lambda: halfspaces.SVC(solver="dcd", random_state=0),
    "svc-no-offset": lambda: halfspaces.SVC(fit_intercept=False),
    "lp": lambda: halfspaces.LPSeparator(),
}


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fast_predict_is_the_estimators_predict(tmp_path, capsys, monkeypatch, name,
                                                n_classes):
    train = _write(tmp_path / "train.svm", n_classes=n_classes)
    test = _write(tmp_path / "test.svm", n=40, seed=1, n_classes=n_classes)
    X, y = load_svmlight(train, zero_based=False)
    model = MODELS[name]().fit(X, y)
    model_path = tmp_path / "m.npz"
    halfspaces.save(model, model_path, metadata={"format": "svmlight", "zero_based": False,
                                                 "n_features": X.shape[1]})
    _fast_only(monkeypatch)
    code, out, err = _predict(capsys, model_path, test)
    assert code == 0 and err == ""
    X_test, _ = load_svmlight(test, n_features=X.shape[1], zero_based=False)
    assert out.split() == [str(int(p)) for p in load(model_path).predict(X_test)]


def _row_lengths_data(seed=0):
    """CSR rows of every length 0..11 (each tail length), values of mixed magnitudes."""
    rng = np.random.default_rng(seed)
    rows = [np.sort(rng.choice(20, size=k, replace=False)) for k in range(12) for _ in range(5)]
    indptr = np.cumsum([0] + [r.size for r in rows])
    indices = np.concatenate(rows).astype(np.int32)
    data = rng.standard_normal(indices.size) * 10.0 ** rng.integers(-8, 9, indices.size)
    return sp.csr_matrix((data, indices, indptr), shape=(len(rows), 20)), rng


def test_row_dot_scores_are_the_compiled_scores_bit_for_bit():
    X, rng = _row_lengths_data()
    coef, intercept = rng.standard_normal((3, 20)), rng.standard_normal(3)
    expected = linear_scores(X, coef, intercept, "Perceptron")
    assert row_dot_scores(X, coef, intercept).tobytes() == expected.tobytes()
    # the test can fail: summed in plain row order (SciPy's X @ w) some scores differ
    assert (np.asarray(X @ coef.T) + intercept).tobytes() != expected.tobytes()


def test_ties_go_to_the_positive_class(tmp_path, capsys, monkeypatch):
    """A score of exactly 0 predicts classes_[1] (docs/conventions.md, ties), on both paths."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    model = halfspaces.Perceptron(fit_intercept=False, max_iter=1, shuffle=False)
    model.fit(X, np.array(["ham", "spam", "ham"]))
    model.coef_ = np.array([[0.0, 2.0]])  # scores 0, 2, 0
    path = _saved(model, tmp_path)
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n1 2:1\n1 1:-1\n1 1:5 2:-1\n")
    _fast_only(monkeypatch)
    code, out, _ = _predict(capsys, path, data)
    assert code == 0 and out.split() == ["spam", "spam", "spam", "ham"]


def test_unseen_features_and_n_features_and_indexing(tmp_path, capsys, monkeypatch):
    X = sp.csr_matrix(np.array([[1.0, -2.0, 0.5], [-1.0, 1.0, 0.0], [0.0, 0.5, 2.0]]))
    model = halfspaces.Perceptron(max_iter=5, shuffle=False).fit(X, [1, -1, 1])
    path = _saved(model, tmp_path)
    wide = tmp_path / "wide.svm"
    wide.write_text("1 1:1 5:2\n-1 2:1 4:0 9:3\n1\n")
    _fast_only(monkeypatch)
    code, out, err = _predict(capsys, path, wide)
    assert code == 0
    # features 5 and 9 hold values (the explicit 0 of feature 4 does not)
    assert err == (f"halfspaces: note: {wide}: 2 features beyond the model's 3 ignored"
                   " (never seen in training: zero weight)\n")
    seen = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0]])
    assert out.split() == [str(p) for p in model.predict(seen)]
    code, out2, _ = _predict(capsys, path, wide, "--n-features", 12)
    assert code == 0 and out2 == out
    code, out3, _ = _predict(capsys, path, wide, "--zero-based")  # 1:1 is now feature 1
    shifted = np.array([[0, 1.0, 0], [0, 0, 1.0], [0, 0, 0]])
    assert code == 0 and out3.split() == [str(p) for p in model.predict(shifted)]


@pytest.mark.parametrize("text", [
    "1 2:1 1:1\n",        # indices out of order
    "1 1:1\n-1 2:nan\n",  # NaN
    "1 1:inf\n",          # accepted by the reader, refused by predict
    "1 qid:3 1:1\n",      # qid: the compiled reader's business
    "1 1:1\n1 x:2\n",     # malformed
    "1 0:1\n",            # index 0 in a 1-based file
    "# nothing\n",        # no example
])
@pytest.mark.parametrize("options", [[], ["--n-features", "2"]])
def test_errors_are_the_compiled_readers(tmp_path, capsys, monkeypatch, text, options):
    """What the small reader does not take goes the usual way: one set of messages."""
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    path = _saved(halfspaces.Perceptron().fit(X, [1, -1]), tmp_path)
    data = tmp_path / "d.svm"
    data.write_text(text)
    assert read_small_svmlight(data, zero_based=False) is None
    got = _predict(capsys, path, data, *options)
    monkeypatch.setattr(small_svmlight, "SMALL_BYTES", 0)  # the usual path
    assert got == _predict(capsys, path, data, *options)


def test_small_reader_is_the_compiled_reader_bit_for_bit(tmp_path):
    for seed in range(4):
        for base in (0, 1):
            path = _write(tmp_path / "f.svm", n=50, d=13, seed=seed, base=base)
            for n_features in (None, 20):
                X, y = load_svmlight(path, n_features, zero_based=bool(base == 0))
                X2, y2 = read_small_svmlight(path, zero_based=bool(base == 0),
                                             n_features=n_features)
                assert X.shape == X2.shape and y.tobytes() == y2.tobytes()
                for part in ("data", "indices", "indptr"):
                    assert getattr(X, part).tobytes() == getattr(X2, part).tobytes(), part


_ODD = st.sampled_from(["nan", "inf", "-inf", "1:", ":1", "qid:2", "1:2:3", "x", "-1:2",
                        "1:0x1", "1e999", "1:1_0", "+1:2"])
_SEP = st.sampled_from([" ", "\t", "  ", " \t"])


@st.composite
def _svmlight_text(draw):
    """Lines of svmlight, mostly well formed: numbers of every shape, indices sometimes out
    of order, now and then an odd token, comments, blank lines and \\r\\n ends."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        label = draw(decimal_numbers() | st.sampled_from(["1", "-1", "+1", "0.5"]))
        indices = sorted(draw(st.sets(st.integers(0, 40), max_size=6)))
        if draw(st.integers(0, 9)) == 0:
            indices.reverse()
        tokens = [label] + [f"{j}:{draw(decimal_numbers())}" for j in indices]
        if draw(st.integers(0, 9)) == 0:
            tokens.insert(draw(st.integers(0, len(tokens))), draw(_ODD))
        line = draw(_SEP).join(tokens) + draw(st.sampled_from(["", " ", " # note", "#"]))
        lines.append(line + draw(st.sampled_from(["\n", "\r\n", "\n\n"])))
    return "".join(lines)


@settings(max_examples=60, deadline=None)
@given(text=_svmlight_text(), zero_based=st.booleans(),
       n_features=st.sampled_from([None, 30, 41]))
def test_small_reader_reads_as_the_compiled_reader_or_declines(tmp_path_factory, text,
                                                               zero_based, n_features):
    path = tmp_path_factory.mktemp("small") / "f.svm"
    path.write_text(text)
    small = read_small_svmlight(path, zero_based=zero_based, n_features=n_features)
    if small is None:
        return  # the compiled reader reads it (or says what is wrong)
    X, y = load_svmlight(path, n_features, zero_based=zero_based)
    X2, y2 = small
    assert X.shape == X2.shape and y.tobytes() == y2.tobytes()
    for part in ("data", "indices", "indptr"):
        assert getattr(X, part).tobytes() == getattr(X2, part).tobytes(), part


def test_read_linear_refuses_what_load_refuses(tmp_path):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    fitted = halfspaces.Perceptron().fit(X, [1, -1, 1])
    path = tmp_path / "m.npz"
    fitted.save(path)
    assert read_linear(path).estimator == "Perceptron"
    for edit in (_set("attrs", coef_=np.array([[np.inf, 0.0]])),
                 _set("attrs", coef_=np.zeros((1, 2), np.float32)),
                 _set("attrs", n_features_in_=3),
                 _set("attrs", classes_=np.array([1, 1])),
                 _replace("intercept_", lambda a: np.zeros(2)),
                 lambda tree, enc: tree["attrs"].pop("intercept_")):
        craft(path, fitted, edit)
        with pytest.raises(ModelFormatError) as loaded:
            load(path)
        with pytest.raises(ModelFormatError, match=f"^{re.escape(str(loaded.value))}$"):
            read_linear(path)
    craft(path, fitted, _set("params", max_iter={"__estimator__": "Pipeline"}))
    assert read_linear(path) is None  # a parameter that is not a plain value
    named = halfspaces.Perceptron().fit(X, [1, -1, 1])
    named.feature_names_in_ = np.array(["a", "b"], dtype=object)  # predict on arrays warns
    named.save(path)
    assert read_linear(path) is None and load(path).feature_names_in_.size == 2
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ModelFormatError) as loaded:
        load(path)
    with pytest.raises(ModelFormatError, match=f"^{re.escape(str(loaded.value))}$"):
        read_linear(path)
    kernel = halfspaces.SVC(kernel="rbf").fit(X, [1, -1, 1])
    kernel.save(path)
    assert read_linear(path) is None  # not linear: the estimator predicts


def test_predict_imports_no_sklearn_pandas_or_numba(tmp_path):
    train = _write(tmp_path / "train.svm")
    X, y = load_svmlight(train, zero_based=False)
    model = halfspaces.Perceptron(max_iter=3, random_state=0).fit(X, y)
    path = _saved(model, tmp_path)
    out = tmp_path / "labels.txt"
    script = (
        "import sys\n"
        "from halfspaces.cli import main\n"
        f"assert main(['predict', {str(path)!r}, {str(train)!r}, '-o', {str(out)!r}]) == 0\n")
    assert run_fresh(script, ENV, {"sklearn", "pandas", "numba"}) == ("", "[]")
    assert out.read_text().split() == [format_label(p) for p in model.predict(X)]


@pytest.mark.parametrize("name, param, value", [
    ("Perceptron", "max_iter", 0), ("AveragedPerceptron", "fit_intercept", "yes"),
    ("PegasosSVC", "lam", -1.0), ("LogisticRegression", "solver", "newton"),
    ("SVC", "C", 0.0), ("LPSeparator", "on_infeasible", "ignore")])
def test_predict_refuses_a_bad_parameter_as_load_does_without_heavy_imports(
        tmp_path, capsys, monkeypatch, name, param, value):
    """A linear model file with a constructor parameter out of its table is refused by the
    fast predict with the message of predict by load, and no numba, scikit-learn or pandas
    is imported."""
    train = _write(tmp_path / "train.svm")
    X, y = load_svmlight(train, zero_based=False)
    model = getattr(halfspaces, name)().fit(X, y)
    path = craft(tmp_path / "m.npz", model, _set("params", **{param: value}))
    with pytest.raises(ModelFormatError, match=re.escape(f"{name}.{param}")):
        load(path)
    with monkeypatch.context() as m:  # predict the usual way: load, then the estimator
        m.setattr(_quick, "predict", lambda source, model_path: None)
        assert cli.main(["predict", str(path), str(train)]) == 1
    by_load = capsys.readouterr().err
    script = (
        "import contextlib, io, sys\n"
        "from halfspaces.cli import main\n"
        "err = io.StringIO()\n"
        "with contextlib.redirect_stderr(err):\n"
        f"    code = main(['predict', {str(path)!r}, {str(train)!r}])\n"
        "print(code)\n"
        "print(err.getvalue(), end='')\n")
    assert run_fresh(script, ENV, {"sklearn", "pandas", "numba"}) == ("1\n" + by_load, "[]")


def test_linear_tables_are_the_classes_tables():
    """read_linear checks with the very tables the classes check in fit and load."""
    from halfspaces._params import TABLES

    for name, table in TABLES.items():
        assert getattr(halfspaces, name)._parameter_constraints is table, name
