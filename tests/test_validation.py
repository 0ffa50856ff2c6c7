"""Input validation shared by every entry point: a broken CSR matrix is refused, by name.

The kernels index the weights with ``X.indices`` without bounds checks, so before the
compiled CSR sweep an index past the last column, a negative one or a decreasing
``indptr`` crashed the process (exit 139), or made ``fit`` return a wrong model and the
process abort later. The oracle for what counts as broken is SciPy's own full check
(``check_format(full_check=True)``) and ``np.isfinite``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import OneByOne

from halfspaces import (
    SVC,
    AveragedPerceptron,
    HalvingClassifier,
    KernelPegasosSVC,
    KernelPerceptron,
    LogisticRegression,
    LPSeparator,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
    WeightedMajorityClassifier,
    play,
)
from halfspaces._validation import validate_X
from halfspaces.theory import (
    data_radius,
    functional_margins,
    geometric_margin,
    is_linearly_separable,
    max_margin_separator,
)

D = 5  # columns of every matrix below
RNG = np.random.default_rng(0)
X_TRAIN = RNG.standard_normal((30, D))
Y_TRAIN = np.where(X_TRAIN[:, 0] >= 0.0, 1, -1)  # sign(x_0): separable and realizable
Y3 = np.array([1, -1, 1])


def csr(indices, indptr, data=None, shape=(3, D)):
    """A CSR matrix built as a user would, from arrays the constructor does not check."""
    indices = np.asarray(indices, dtype=np.int32)
    data = np.ones(indices.size) if data is None else np.asarray(data, dtype=np.float64)
    return sp.csr_matrix((data, indices, np.asarray(indptr, dtype=np.int32)), shape=shape)


# Each broken matrix with the message that must name its fault (row, position, value).
BROKEN = {
    "index far past the end": (csr([0, 1, 7, 2, 4], [0, 2, 3, 5]),
                               r"X\.indices has 7 at row 1, position 2, but X has 5 columns"
                               r" \(valid column indices are 0\.\.4\); build the matrix with"
                               r" scipy\.sparse\.csr_matrix\(\(data, indices, indptr\),"
                               r" shape=\(n_rows, n_columns\)\) and n_columns > 7\."),
    "index just past the end": (csr([0, 5, 1, 2, 4], [0, 2, 3, 5]),
                                r"X\.indices has 5 at row 0, position 1, but X has 5 columns"),
    "negative index": (csr([0, 1, 2, 3, -1], [0, 2, 3, 5]),
                       r"X\.indices has -1 at row 2, position 4, but X has 5 columns .*;"
                       r" column indices count from 0 and cannot be negative"),
    "decreasing indptr": (csr([0, 1, 2, 3, 4], [0, 3, 2, 5]),
                          r"X\.indptr is not a row pointer at row 1: indptr\[1\] = 3 and"
                          r" indptr\[2\] = 2, but it must be non-decreasing"),
    "indptr past the entries": (csr([0, 1, 2, 3, 4], [0, 9, 2, 5]),
                                r"X\.indptr is not a row pointer at row 0: indptr\[0\] = 0 and"
                                r" indptr\[1\] = 9, but it must be non-decreasing and at most"
                                r" X\.indices' length 5"),
    "NaN value": (csr([0, 1, 2, 3, 4], [0, 2, 3, 5], [1.0, 2.0, np.nan, 1.0, 1.0]),
                  r"Input X contains NaN at row 1, column 2 \(X\.data\[2\]\); every value must"
                  r" be finite"),
    "infinite value": (csr([0, 1, 2, 3, 4], [0, 2, 3, 5], [1.0, 2.0, 3.0, -np.inf, 1.0]),
                       r"Input X contains infinity at row 2, column 3 \(X\.data\[3\]\)"),
}


W = np.eye(D)  # the hypotheses sign(x_j) of the experts; sign(x_0) labels the data
ESTIMATORS = {
    "Perceptron": Perceptron, "AveragedPerceptron": AveragedPerceptron,
    "VotedPerceptron": VotedPerceptron, "KernelPerceptron": KernelPerceptron,
    "HalvingClassifier": lambda: HalvingClassifier(W),
    "WeightedMajorityClassifier": lambda: WeightedMajorityClassifier(W),
    "PegasosSVC": lambda: PegasosSVC(random_state=0),
    "KernelPegasosSVC": lambda: KernelPegasosSVC(kernel="rbf", random_state=0),
    "SVC": SVC, "LogisticRegression": LogisticRegression, "LPSeparator": LPSeparator,
}
METHODS = ("fit", "partial_fit", "predict", "decision_function", "predict_proba", "score")
ENTRY_POINTS = [(name, method) for name, make in ESTIMATORS.items() for method in METHODS
                if hasattr(make(), method)]


def call(est, method, X):
    if method == "fit":
        return est.fit(X, Y3)
    if method == "partial_fit":
        return est.partial_fit(X, Y3, classes=[-1, 1])
    est.fit(X_TRAIN, Y_TRAIN)
    if method == "score":
        return est.score(X, Y3)
    return getattr(est, method)(X)


@pytest.mark.parametrize("name, method", ENTRY_POINTS, ids=[f"{n}.{m}" for n, m in ENTRY_POINTS])
@pytest.mark.parametrize("fault", ["index far past the end", "index just past the end",
                                   "decreasing indptr"])
def test_every_estimator_entry_point_names_the_broken_csr(name, method, fault):
    X, match = BROKEN[fault]
    est = ESTIMATORS[name]()
    with pytest.raises(ValueError, match=rf"^{type(est).__name__}: {match}"):
        call(est, method, X)


@pytest.mark.parametrize("fault", sorted(BROKEN))
def test_each_fault_is_named_in_fit_and_predict(fault):
    X, match = BROKEN[fault]
    with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
        Perceptron().fit(X, Y3)
    clf = Perceptron().fit(X_TRAIN, Y_TRAIN)
    with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
        clf.predict(X)
    with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
        clf.partial_fit(X, Y3)


@pytest.mark.parametrize("fault", ["index just past the end", "negative index",
                                   "decreasing indptr", "NaN value"])
def test_the_online_game_names_the_broken_csr(fault):
    X, match = BROKEN[fault]
    with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
        play(Perceptron(), X, Y3)  # the compiled game
    with pytest.raises(ValueError, match=rf"^play: {match}"):
        play(OneByOne(Perceptron(), [-1, 1], D), X, Y3)  # a generic learner


@pytest.mark.parametrize("row, match", [
    (csr([0, 5], [0, 2], shape=(1, D)), r"X\.indices has 5 at row 0, position 1"),
    (csr([-1], [0, 1], shape=(1, D)), r"X\.indices has -1 at row 0, position 0"),
    (csr([2], [0, 1], [np.nan], shape=(1, D)), r"Input X contains NaN at row 0, column 2"),
])
def test_the_one_example_protocol_names_the_broken_row(row, match):
    # a fitted learner takes a fast path for a 1 x d CSR row: it must check the row too
    clf = Perceptron().fit(X_TRAIN, Y_TRAIN)
    for one in (clf.predict_one, clf.score_one, lambda x: clf.learn_one(x, 1)):
        with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
            one(row)


@pytest.mark.parametrize("fault", ["index just past the end", "negative index",
                                   "decreasing indptr", "NaN value"])
def test_theory_functions_name_the_broken_csr(fault):
    X, match = BROKEN[fault]
    w = np.ones(D)
    for name, fn in [("data_radius", lambda: data_radius(X)),
                     ("functional_margins", lambda: functional_margins(w, X, Y3)),
                     ("geometric_margin", lambda: geometric_margin(w, X, Y3)),
                     ("is_linearly_separable", lambda: is_linearly_separable(X, Y3)),
                     ("max_margin_separator", lambda: max_margin_separator(X, Y3))]:
        with pytest.raises(ValueError, match=rf"^{name}: {match}"):
            fn()


def test_dask_predict_names_the_broken_csr_block():
    import dask
    import dask.array as da

    from halfspaces import dask as hd

    X, match = BROKEN["index just past the end"]
    clf = Perceptron().fit(X_TRAIN, Y_TRAIN)
    dX = da.from_delayed(dask.delayed(lambda: X)(), shape=X.shape, dtype=X.dtype,
                         meta=sp.csr_matrix((0, 0)))
    with pytest.raises(ValueError, match=rf"^Perceptron: {match}"):
        hd.predict(clf, dX).compute()


def test_broken_csc_is_refused_before_conversion():
    X = sp.csc_matrix((np.ones(3), np.array([0, 7, 2]), np.array([0, 2, 3, 3, 3, 3])),
                      shape=(3, D))
    with pytest.raises(ValueError, match=r"^Perceptron: X is not a valid CSC matrix: indices"
                                         r" must be < 3\. Build it with scipy\.sparse"):
        Perceptron().fit(X, Y3)


def test_arrays_that_do_not_fit_the_shape_are_refused():
    X = csr([0, 1, 2, 3, 4], [0, 2, 3, 5])
    X.indptr = X.indptr[:-1]  # assigned after construction: nothing checked it
    with pytest.raises(ValueError, match=r"^Perceptron: X's CSR arrays do not fit together: X has"
                                         r" shape \(3, 5\), so X\.indptr needs 4 entries"
                                         r" starting at 0 \(got 3, starting at 0\)"):
        validate_X(Perceptron(), X, reset=True)


# The tests below overflow on purpose; NumPy warns as it does (scikit-learn's sum of X,
# a Gram matrix, the kernels when run without the JIT).
overflows = pytest.mark.filterwarnings("ignore:(overflow|invalid value) encountered:RuntimeWarning")


@overflows
def test_duplicates_summing_to_infinity_are_refused():
    X = csr([1, 1, 0, 2, 3], [0, 2, 3, 5], [1e308, 1e308, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^Perceptron: Input X contains infinity at row 0 once its"
                                         r" duplicate entries are summed"):
        validate_X(Perceptron(), X, reset=True)


@pytest.mark.parametrize("data_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_a_canonical_csr_is_not_copied_and_a_non_canonical_one_is_summed(data_dtype,
                                                                          index_dtype):
    X = sp.csr_matrix(RNG.standard_normal((6, D)).astype(data_dtype))
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    checked = validate_X(Perceptron(), X, reset=True)
    assert checked is X
    # unsorted, with a duplicate: the sum of the duplicates is the matrix's value there
    messy = sp.csr_matrix((np.array([2.0, 1.0, 3.0], data_dtype),
                           np.array([3, 1, 3], index_dtype), np.array([0, 3], index_dtype)),
                          shape=(1, D))
    assert not messy.has_canonical_format
    checked = validate_X(Perceptron(), messy, reset=True)
    assert checked is not messy and checked.has_canonical_format
    np.testing.assert_array_equal(checked.toarray(), [[0.0, 1.0, 0.0, 5.0, 0.0]])
    np.testing.assert_array_equal(messy.indices, [3, 1, 3])  # the input is left as it was


@st.composite
def csr_arrays(draw):
    """CSR arrays of a small matrix, often broken: indices anywhere in [-2, d + 2), indptr
    not always non-decreasing, now and then an inf or nan."""
    n = draw(st.integers(1, 5))
    d = draw(st.integers(1, 6))
    counts = draw(st.lists(st.integers(-2, 4), min_size=n, max_size=n))
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    nnz = int(max(0, indptr.max(initial=0)))
    indptr = np.minimum(np.maximum(indptr, 0), nnz)  # indptr[0] = 0, indptr[-1] <= nnz
    indptr[-1] = nnz if draw(st.booleans()) else indptr[-1]
    indices = np.array(draw(st.lists(st.integers(-2, d + 1), min_size=nnz, max_size=nnz)),
                       dtype=np.int64)
    values = st.floats(allow_nan=True, allow_infinity=True) | st.floats(-5, 5)
    data = np.array(draw(st.lists(values, min_size=nnz, max_size=nnz)), dtype=np.float64)
    return data, indices, indptr, (n, d)


@settings(max_examples=300, deadline=None)
@given(csr_arrays())
def test_the_sweep_refuses_exactly_what_scipy_and_isfinite_refuse(arrays):
    data, indices, indptr, shape = arrays
    try:
        X = sp.csr_matrix((data, indices, indptr), shape=shape)
    except ValueError:  # the constructor's own O(1) checks refused it already
        return
    try:
        X.copy().check_format(full_check=True)
        # SciPy skips its full check when nnz == 0, where indptr [0, 1, 0] still lies
        structure_ok = bool(np.all(np.diff(X.indptr) >= 0))
    except ValueError:
        structure_ok = False
    stored = X.data[X.indptr[0]:X.indptr[-1]]
    ok = structure_ok and bool(np.isfinite(stored).all())
    if ok:
        checked = validate_X(Perceptron(), X, reset=True)
        assert checked.has_canonical_format
        np.testing.assert_array_equal(checked.toarray(), X.toarray())  # duplicates summed
    else:
        with pytest.raises(ValueError, match=r"^Perceptron: (X\.indices has|X\.indptr is not|"
                                             r"Input X contains)"):
            validate_X(Perceptron(), X, reset=True)
