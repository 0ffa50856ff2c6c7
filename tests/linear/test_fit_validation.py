"""The perceptron family's ``fit`` validates in one sweep and leaves the scan for inf and nan
to its first pass (issue 9, item 5); bad input is still reported as before: the first bad
row in row order and, for CSR input, its column; non-canonical CSR is summed as SciPy sums it;
and the majority-class check (compiled, stopping early) warns exactly when the model's
predictions are right on fewer rows than the majority class."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import AveragedPerceptron, Perceptron, VotedPerceptron
from halfspaces._validation import validate_X
from halfspaces.exceptions import NumericalError

FAMILY = [Perceptron, AveragedPerceptron, VotedPerceptron]


def data(n=60, d=7, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.4] = 0.0
    return X, rng.integers(classes, size=n)


def with_bad_values(X, cells, value):
    X = X.copy()
    for i, j in cells:
        X[i, j] = value
    return X


@pytest.mark.parametrize("cls", FAMILY)
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize(("value", "word"), [(np.nan, "NaN"), (np.inf, "infinity")])
def test_inf_or_nan_in_csr_is_reported_at_its_first_row_and_column(cls, shuffle, classes,
                                                                   value, word):
    X, y = data(classes=classes)
    # Two bad cells: a shuffled first pass may meet row 41 first; the error names row 17.
    Xb = with_bad_values(X, [(41, 0), (17, 5)], value)
    first = np.argwhere(~np.isfinite(Xb))[0]
    for dtype in (np.float64, np.float32):
        for index_dtype in (np.int32, np.int64):
            Xs = sp.csr_matrix(Xb.astype(dtype))
            Xs.indices, Xs.indptr = (Xs.indices.astype(index_dtype),
                                     Xs.indptr.astype(index_dtype))
            with pytest.raises(ValueError, match=rf"^{cls.__name__}: Input X contains {word}"
                               rf" at row {first[0]}, column {first[1]} \(X\.data\[\d+\]\)"):
                cls(max_iter=3, shuffle=shuffle, random_state=0).fit(Xs, y)


@pytest.mark.parametrize("cls", FAMILY)
@pytest.mark.parametrize("value", [np.nan, -np.inf])
def test_inf_or_nan_in_a_dense_X_gets_the_scanning_validations_message(cls, value):
    X, y = data()
    Xb = with_bad_values(X, [(33, 2)], value)
    with pytest.raises(ValueError) as expected:  # the full scan, as before the fused pass
        validate_X(cls(), Xb, reset=True, finite=True)
    with pytest.raises(ValueError) as got:
        cls(max_iter=2, random_state=0).fit(Xb, y)
    assert str(got.value) == str(expected.value)


def test_a_warm_start_on_bad_input_leaves_the_model_as_it_was():
    X, y = data()
    clf = Perceptron(warm_start=True, max_iter=2, random_state=0).fit(X, y)
    coef, intercept, mistakes = clf.coef_.copy(), clf.intercept_.copy(), clf.n_mistakes_
    with pytest.raises(ValueError, match="at row 50, column 1"):
        clf.fit(sp.csr_matrix(with_bad_values(X, [(50, 1)], np.nan)), y)
    assert np.array_equal(clf.coef_, coef) and np.array_equal(clf.intercept_, intercept)
    assert clf.n_mistakes_ == mistakes


def test_an_overflow_on_finite_input_is_still_a_numerical_error():
    X, y = np.array([[1e300, 1e300], [-1e300, 1e300]]), np.array([1, -1])
    with pytest.raises(NumericalError, match="Perceptron"):
        Perceptron(max_iter=3, shuffle=False).fit(np.vstack([X, X * 1e8]), np.r_[y, y])


def non_canonical(X):
    """X as CSR with each row's entries in decreasing column order, each split in two
    duplicates (0.375 of the value, then the rest)."""
    rows, cols = np.nonzero(X)
    order = np.lexsort((-cols, rows))
    rows, cols = rows[order], cols[order]
    vals = X[rows, cols]
    half = vals * 0.375
    data_ = np.stack([half, vals - half], axis=1).ravel()
    indices = np.repeat(cols, 2)
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=X.shape[0]) * 2)]
    M = sp.csr_matrix((data_, indices, indptr), shape=X.shape)
    assert not M.has_canonical_format
    return M


@pytest.mark.parametrize("cls", FAMILY)
def test_non_canonical_csr_fits_as_scipy_sums_it(cls):
    X, y = data(classes=3)
    M = non_canonical(X)
    canonical = M.copy()
    canonical.sum_duplicates()  # SciPy's sum, the reference
    got = cls(max_iter=4, random_state=0).fit(M, y)
    want = cls(max_iter=4, random_state=0).fit(canonical, y)
    assert np.array_equal(got.decision_function(canonical), want.decision_function(canonical))
    assert got.mistakes_per_epoch_ == want.mistakes_per_epoch_


def test_non_canonical_csr_with_a_nan_names_its_row_and_column():
    X, y = data()
    M = non_canonical(X)
    p = M.indptr[23]  # the first stored entry of row 23
    M.data[p] = np.nan
    with pytest.raises(ValueError, match=rf"contains NaN at row 23, column {M.indices[p]}"
                       rf" \(X\.data\[{p}\]\)"):
        Perceptron(max_iter=2).fit(M, y)


def majority_share(y):
    return np.unique(y, return_counts=True)[1].max() / len(y)


def fit_noting_majority(clf, X, y):
    """``clf.fit(X, y)`` and the messages of the majority-class warnings it gave."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf.fit(X, y)
    return clf, [str(w.message) for w in record if "majority class" in str(w.message)]


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_majority_check_warns_exactly_when_predict_is_below_the_majority(classes, sparse):
    warned = []
    for seed in range(12):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(40, 3))
        X[rng.random((40, 3)) < 0.3] = 0.0
        score = X @ rng.normal(size=3) + rng.normal(size=40)
        y = np.digitize(score, np.quantile(score, [0.7, 0.85][: classes - 1]))  # 70% are 0
        if seed % 2:  # sorted by label: the one pass ends on the minority, often below it
            order = np.argsort(y, kind="stable")
            X, y = X[order], y[order]
        Xf = sp.csr_matrix(X) if sparse else X
        clf, below = fit_noting_majority(Perceptron(max_iter=1, shuffle=False), Xf, y)
        accuracy = float(np.mean(clf.predict(Xf) == y))  # predict: an independent path
        assert bool(below) == (accuracy < majority_share(y))
        if below:
            assert (f"right on {accuracy:.3f} of its training rows, below the"
                    f" {majority_share(y):.3f}") in below[0]
        warned.append(bool(below))
    assert any(warned) and not all(warned)


def test_the_first_fault_in_row_order_is_reported_whatever_its_kind():
    # A nan in row 2 and a column index out of range in row 5: the index-only sweep of fit
    # finds row 5 first, and the full sweep then reports row 2, as validation always did.
    X, y = data(n=8, d=4)
    X[:, 0] = 1.0
    M = sp.csr_matrix(X)
    M.data[M.indptr[2]] = np.nan
    M.indices[M.indptr[5]] = 9
    with pytest.raises(ValueError, match=r"contains NaN at row 2, column 0"):
        Perceptron(max_iter=1).fit(M, y)
    M.data[M.indptr[2]] = 1.0
    with pytest.raises(ValueError, match=r"X\.indices has 9 at row 5"):
        Perceptron(max_iter=1).fit(M, y)


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron])
def test_the_majority_check_of_many_rows_predicts_an_evenly_spaced_sample(cls, monkeypatch):
    from halfspaces.linear import perceptron

    monkeypatch.setattr(perceptron, "MAJORITY_CHECK_ROWS", 30)
    warned = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(200, 3))
        y = (X @ rng.normal(size=3) + rng.normal(size=200) > 0.8).astype(int)
        if seed % 2:  # sorted by label: the one pass ends on the minority
            order = np.argsort(y, kind="stable")
            X, y = X[order], y[order]
        clf, below = fit_noting_majority(cls(max_iter=1, shuffle=False), X, y)
        sample = np.arange(30) * 200 // 30  # the rows the check predicts
        accuracy = float(np.mean(clf.predict(X[sample]) == y[sample]))
        assert bool(below) == (accuracy < majority_share(y))
        if below:
            assert (f"right on {accuracy:.3f} of 30 evenly spaced rows of its 200 training"
                    f" rows, below the {majority_share(y):.3f}") in below[0]
        warned.append(bool(below))
    assert not all(warned) and (any(warned) or cls is AveragedPerceptron)  # it rarely is
