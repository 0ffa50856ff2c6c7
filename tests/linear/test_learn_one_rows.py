"""learn_one / predict_one / score_one on NumPy rows, sparse rows and dict rows (names or
column indices), against a plain NumPy perceptron on the same rows in the same column order."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import AveragedPerceptron, Perceptron, load


def numpy_perceptron(X, y):
    """Rosenblatt's rule, round by round: score before the update, a tie is a mistake."""
    w, b, mistakes = np.zeros(X.shape[1]), 0.0, 0
    for x, t in zip(X, y, strict=True):
        score = sum(w[j] * x[j] for j in range(X.shape[1])) + b  # row order, as the passes
        if t * score <= 0:
            w, b, mistakes = w + t * x, b + t, mistakes + 1
    return w, b, mistakes


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = np.round(rng.randn(60, 5), 2)
    X[rng.rand(60, 5) < 0.4] = 0.0
    y = np.where(X @ rng.randn(5) + 0.1 > 0, 1, -1)
    return X, y


def dict_rows(X, named):
    return [{(f"f{j}" if named else j): float(X[i, j]) for j in np.flatnonzero(X[i])}
            for i in range(X.shape[0])]


def play(model, rows, y):
    for x, t in zip(rows, y, strict=True):
        if hasattr(model, "classes_"):
            model.predict_one(x)
            model.learn_one(x, t)
        else:
            model.learn_one(x, t, classes=[-1, 1])
    return model


@pytest.mark.parametrize("form", ["numpy", "list", "csr", "sparse vector", "int dict",
                                  "named dict"])
def test_rows_give_the_numpy_perceptron(data, form):
    X, y = data
    w, b, mistakes = numpy_perceptron(X, y)
    rows = {"numpy": list(X), "list": [r.tolist() for r in X],
            "csr": [sp.csr_matrix(r) for r in X],
            "sparse vector": [sp.coo_array(r) for r in X],
            "int dict": dict_rows(X, False), "named dict": dict_rows(X, True)}[form]
    if form.endswith("dict"):  # the first row names every column (in order)
        rows[0] = {(f"f{j}" if form == "named dict" else j): float(X[0, j]) for j in range(5)}
    model = play(Perceptron(), rows, y)
    assert np.array_equal(model.coef_[0], w) and model.intercept_[0] == b
    assert model.n_mistakes_ == mistakes and model.t_ == len(y)
    if form == "named dict":
        assert model.vocabulary_ == {f"f{j}": j for j in range(5)}


def test_named_dicts_widen_as_names_arrive(data):
    X, y = data  # names arrive in an order: the columns are numbered in that order
    rows = dict_rows(X, True)
    model = play(Perceptron(), rows, y)
    order = sorted(model.vocabulary_, key=model.vocabulary_.get)
    Xo = X[:, [int(name[1:]) for name in order]]
    w, b, _ = numpy_perceptron(Xo, y)
    assert np.array_equal(model.coef_[0], w) and model.intercept_[0] == b
    assert model.n_features_in_ == len(order) == 5
    model.learn_one({"new": 2.0, "f1": 1.0}, -1)
    assert model.vocabulary_["new"] == 5 and model.coef_.shape == (1, 6)
    # an unseen name predicts as a weight of 0
    s = model.score_one({"f0": 1.0, "unseen": 5.0})
    assert s == model.score_one({"f0": 1.0}) == model.coef_[0, 0] + model.intercept_[0]


def test_int_dicts_widen_averaged(data):
    X, y = data
    model = play(AveragedPerceptron(), dict_rows(X, False), y)
    ref = AveragedPerceptron()
    ref.partial_fit(X, y, classes=[-1, 1])
    assert model.n_features_in_ == 5
    np.testing.assert_array_equal(model.coef_, ref.coef_)


def test_save_load_keeps_the_vocabulary(data, tmp_path):
    X, y = data
    model = play(Perceptron(), dict_rows(X, True), y)
    model.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    assert again.vocabulary_ == model.vocabulary_
    rows = dict_rows(X, True)
    assert [again.predict_one(x) for x in rows] == [model.predict_one(x) for x in rows]
    again.learn_one({"g": 1.0}, 1)
    assert again.vocabulary_["g"] == 5


@pytest.mark.parametrize("row, match", [
    ({"f0": "abc"}, "value for feature 'f0' is 'abc', not a number"),
    ({"f0": float("nan")}, "must be finite"),
    ({"f0": None}, "not a number"),
    ({0: 1.0}, "columns are named"),
    ({"f0": 1.0, 2: 1.0}, "mixes feature names"),
    ({(1, 2): 1.0}, "keys must be feature names"),
])
def test_bad_dict_rows(data, row, match):
    X, y = data
    model = play(Perceptron(), dict_rows(X, True), y)
    coef = model.coef_.copy()
    with pytest.raises((TypeError, ValueError), match=match):
        model.learn_one(row, 1)
    with pytest.raises((TypeError, ValueError), match=match):
        model.predict_one(row)
    assert np.array_equal(model.coef_, coef)


def test_bad_numpy_rows(data):
    X, y = data
    model = play(Perceptron(), list(X), y)
    with pytest.raises(ValueError, match="NaN"):
        model.learn_one(np.array([1.0, np.nan, 0, 0, 0]), 1)
    with pytest.raises(ValueError, match="6 features"):
        model.predict_one(np.ones(6))
    with pytest.raises(ValueError, match="negative"):
        play(Perceptron(), [{-1: 1.0}], [1])
    names = Perceptron().fit(X, y)
    with pytest.raises(TypeError, match="columns have none"):
        names.learn_one({"a": 1.0}, 1)


def test_dict_rows_in_any_key_order_give_the_dense_pass():
    # 30 columns: the dense row's dot keeps 8 partial sums by column, which a dict row's
    # entries, in any order, must add in the same order to give the same bits
    rng = np.random.RandomState(1)
    X = rng.randn(120, 30)
    X[rng.rand(120, 30) < 0.3] = 0.0
    y = np.where(X @ rng.randn(30) > 0, 1, -1)
    ref = Perceptron().partial_fit(X, y, classes=[-1, 1])
    runs = []
    for form in ("numpy", "int dict", "named dict"):
        if form == "numpy":
            rows = list(X)
        else:
            named = form == "named dict"
            rows = dict_rows(X, named)
            # the first row names every column, in order; the others in a shuffled order
            rows[0] = {(f"f{j}" if named else j): float(X[0, j]) for j in range(30)}
            rows[1:] = [{k: r[k] for k in rng.permutation(list(r)).tolist()}
                        for r in rows[1:]]
        model = Perceptron().learn_one(rows[0], y[0], classes=[-1, 1])
        scores = []
        for x, t in zip(rows[1:], y[1:], strict=True):
            scores.append(model.score_one(x))
            assert model.predict_one(x) == (1 if scores[-1] >= 0 else -1)
            model.learn_one(x, t)
        assert np.array_equal(model.coef_, ref.coef_), form
        assert np.array_equal(model.intercept_, ref.intercept_)
        assert model.n_mistakes_ == ref.n_mistakes_ and model.t_ == 120
        runs.append(scores)
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.parametrize("row, error, match", [
    ({1.5: 1.0}, TypeError, "keys must be feature names"),
    ({0: 1.0, 2.0: 1.0}, TypeError, "keys must be feature names"),
    ({"3": 1.0}, TypeError, "columns have none"),
    ({0: float("inf")}, ValueError, "must be finite"),
    ({0: None}, ValueError, "not a number"),
    ({-2: 1.0}, ValueError, "negative"),
])
def test_bad_int_dict_rows(data, row, error, match):
    X, y = data
    model = play(Perceptron(), dict_rows(X, False), y)
    coef, t = model.coef_.copy(), model.t_
    with pytest.raises(error, match=match):
        model.learn_one(row, 1)
    with pytest.raises(error, match=match):
        model.predict_one(row)
    assert np.array_equal(model.coef_, coef) and model.t_ == t


def test_int_dict_rows_beyond_the_width(data):
    X, y = data
    model = play(Perceptron(), dict_rows(X, False), y)
    # an unseen column predicts as a weight of 0; learning it widens the learner
    assert model.score_one({0: 1.0, 9: 4.0}) == model.score_one({0: 1.0})
    model.learn_one({9: -1.0}, 1)
    assert model.coef_.shape == (1, 10) and model.n_features_in_ == 10
