"""Bad arrays given to every estimator: one table, each row run on each estimator it applies to.

A row is ``(id, call, error, what, where, fix)``: ``call(estimator)`` makes the bad call on a
fresh estimator; the error must be of type ``error`` and its message must name the estimator
and match the three regexes: what was wrong, where (row and column, index, shape), and how to
fix it in the Python API's terms. Rows of :data:`VALID` are inputs that must be accepted
(float16, non-canonical CSR, COO/CSC, pandas): they are checked against the same estimator
fitted on the equivalent dense float64 array.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from bad_input_data import ESTIMATORS, X, Y
from sklearn.exceptions import NotFittedError

from halfspaces import NumericalError
from halfspaces.experts import HalvingClassifier, WeightedMajorityClassifier


def _with(i: int, j: int, value) -> np.ndarray:
    Z = X.copy()
    Z[i, j] = value
    return Z


def _object_with(i: int, j: int, value) -> np.ndarray:
    Z = X.astype(object)
    Z[i, j] = value
    return Z


def _csr_with(**changes) -> sp.csr_matrix:
    """X as CSR whose arrays are then changed in place (``indices={4: 7}``, ...)."""
    C = sp.csr_matrix(X)
    arrays = {"data": C.data.copy(), "indices": C.indices.copy(), "indptr": C.indptr.copy()}
    for name, edits in changes.items():
        for k, v in edits.items():
            arrays[name][k] = v
    return sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=X.shape)


def _fitted(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, Y)


def _online(est) -> bool:
    return hasattr(est, "partial_fit")


# Finite features of about 1e308: the first update makes w that large, so the next score
# (or the squared norm ||x||^2, or a kernel value) overflows float64. The experts' votes
# sign(<h, x>) do not, so they fit this data.
OVERFLOWING = X * 1e307


@dataclass(frozen=True)
class Case:
    id: str
    call: Callable
    error: type
    what: str
    where: str
    fix: str
    applies: Callable = lambda est: True


CASES = [
    Case("nan_in_X", lambda e: e.fit(_with(2, 1, np.nan), Y), ValueError,
         r"X contains NaN", r"row 2, column 1", r"impute it\) or drop the row"),
    Case("inf_in_X", lambda e: e.fit(_with(3, 2, np.inf), Y), ValueError,
         r"X contains infinity", r"row 3, column 2", r"impute it\) or drop the row"),
    Case("minus_inf_in_X", lambda e: e.fit(_with(0, 0, -np.inf), Y), ValueError,
         r"X contains infinity", r"row 0, column 0", r"impute it\) or drop the row"),
    Case("nan_in_X_at_predict", lambda e: _fitted(e).predict(_with(5, 2, np.nan)),
         ValueError, r"X contains NaN", r"row 5, column 2", r"impute it\) or drop the row"),
    Case("nan_in_list_X", lambda e: e.fit(_with(1, 1, np.nan).tolist(), Y), ValueError,
         r"X contains NaN", r"row 1, column 1", r"impute it\) or drop the row"),
    Case("inf_in_csr_X", lambda e: e.fit(_csr_with(data={7: np.inf}), Y), ValueError,
         r"X contains infinity", r"row 2, column 1", r"Replace it|drop the row"),
    Case("nan_in_y", lambda e: e.fit(X, np.where(Y == 1, 1.0, np.nan)), ValueError,
         r"y contains NaN", r"index 1", r"label|drop the unlabelled rows"),
    Case("nan_in_pandas_X", lambda e: e.fit(pd.DataFrame(_with(4, 1, np.nan)), Y),
         ValueError, r"X contains NaN", r"row 4, column 1", r"impute it\) or drop the row"),
    Case("overflow_1e308", lambda e: e.fit(OVERFLOWING, Y), NumericalError,
         r"non-finite|overflow", r"row \d", r"Scale the features",
         applies=lambda e: not isinstance(e, (HalvingClassifier, WeightedMajorityClassifier))),
    Case("X_too_wide_for_a_weight_vector", lambda e: e.fit(_wide_csr(), Y), ValueError,
         r"X has 1099511627776 columns", r"cannot be allocated", r"smaller n_features"),
    Case("X_1d", lambda e: e.fit(X[:, 0], Y), ValueError,
         r"must be 2-D", r"got a 1-D array of shape \(6,\)", r"reshape\(-1, 1\)"),
    Case("X_3d", lambda e: e.fit(X[:, :, None], Y), ValueError,
         r"must be 2-D", r"shape \(6, 3, 1\)", r"reshape\(len\(X\), -1\)"),
    Case("X_scalar", lambda e: e.fit(3.0, Y), ValueError,
         r"must be 2-D", r"got a scalar of shape \(\)", r"reshape\(1, -1\)"),
    Case("X_empty", lambda e: e.fit(X[:0], Y[:0]), ValueError,
         r"0 sample\(s\).*no rows", r"shape=\(0, 3\)", r"at least one example"),
    Case("X_zero_features", lambda e: e.fit(X[:, :0], Y), ValueError,
         r"0 feature\(s\).*no columns", r"shape=\(6, 0\)", r"at least one feature"),
    Case("X_ragged_list", lambda e: e.fit([[1, 2, 3], [1, 2], [1, 2, 3]], [0, 1, 0]),
         ValueError, r"ragged", r"row 1 has 2 values but row 0 has 3",
         r"same number of features|scipy\.sparse"),
    Case("X_object_strings", lambda e: e.fit(_object_with(1, 2, "abc"), Y), ValueError,
         r"must hold numbers", r"row 1, column 2 is 'abc'", r"Encode"),
    Case("X_unicode_dtype", lambda e: e.fit(np.where(X > 0, "1", "x"), Y), ValueError,
         r"must hold numbers", r"row 0, column 2 is '?x'?", r"Encode"),
    Case("X_complex", lambda e: e.fit(X + 1j, Y), ValueError,
         r"complex", r"X holds complex", r"X\.real"),
    Case("X_fewer_features_at_predict", lambda e: _fitted(e).predict(X[:, :2]), ValueError,
         r"X has 2 features", r"expecting 3 features", r"same 3 columns"),
    Case("X_more_features_at_decision_function",
         lambda e: _fitted(e).decision_function(np.hstack([X, X])), ValueError,
         r"X has 6 features", r"expecting 3 features", r"same 3 columns"),
    Case("X_fewer_features_at_partial_fit", lambda e: _fitted(e).partial_fit(X[:, :2], Y),
         ValueError, r"X has 2 features", r"expecting 3 features", r"same 3 columns",
         applies=_online),
    Case("one_class", lambda e: e.fit(X, np.ones(6)), ValueError,
         r"at least 2 classes", r"only one class, \[1\.0\]", r"cannot be learned"),
    Case("y_label_not_in_classes", lambda e: e.partial_fit(X, Y + 5, classes=[0, 1]),
         ValueError, r"not in classes", r"labels \[5, 6\]", r"classes=np\.unique\(y_all\)",
         applies=_online),
    Case("partial_fit_without_classes", lambda e: e.partial_fit(X, Y), ValueError,
         r"'classes' is required", r"first call", r"classes=np\.unique\(y_all\)",
         applies=_online),
    Case("y_wrong_length", lambda e: e.fit(X, Y[:5]), ValueError,
         r"rows but y has", r"X has 6 rows but y has 5 labels", r"must match"),
    Case("y_2d", lambda e: e.fit(X, np.c_[Y, Y]), ValueError,
         r"1-D array of labels", r"shape \(6, 2\)", r"must be a 1-D"),
    Case("y_none", lambda e: e.fit(X, None), ValueError,
         r"requires y", r"target y is None", r"y to be passed"),
    Case("not_fitted", lambda e: e.decision_function(X), NotFittedError,
         r"not fitted yet", r"instance", r"Call 'fit'"),
    Case("csr_index_beyond_columns", lambda e: e.fit(_csr_with(indices={4: 7}), Y),
         ValueError, r"X\.indices has 7", r"row 1, position 4", r"n_columns > 7"),
    Case("csr_negative_index", lambda e: e.fit(_csr_with(indices={4: -1}), Y), ValueError,
         r"X\.indices has -1", r"row 1, position 4", r"cannot be negative"),
    Case("csr_indptr_beyond_entries", lambda e: e.fit(_csr_with(indptr={2: 100}), Y),
         ValueError, r"not a row pointer", r"at row 1", r"np\.cumsum"),
    Case("csr_indptr_decreasing", lambda e: e.fit(_csr_with(indptr={3: 2}), Y),
         ValueError, r"not a row pointer", r"at row [12]", r"non-decreasing"),
    Case("csc_invalid_structure", lambda e: e.fit(_broken_csc(), Y), ValueError,
         r"not a valid CSC matrix", r"X", r"Build it with scipy\.sparse|pass a CSR"),
    # labels that NumPy cannot sort or that it would silently turn into strings
    Case("y_mixed_numbers_and_strings", lambda e: e.fit(X, [1, "a", 1, "a", 1, "a"]),
         ValueError, r"y mixes numbers and strings", r"1 at index 0, 'a' at index 1",
         r"np\.asarray\(y, dtype=str\)"),
    Case("y_mixed_object_array_at_partial_fit",
         lambda e: e.partial_fit(X, np.array([0, "b", 0, "b", 0, "b"], dtype=object),
                                 classes=["0", "b"]),
         ValueError, r"y mixes numbers and strings", r"0 at index 0, 'b' at index 1",
         r"all numbers", applies=_online),
    Case("y_pandas_NA", lambda e: e.fit(X, pd.Series([0, 1, pd.NA, 1, 0, 1], dtype=object)),
         ValueError, r"missing label, <NA>", r"at index 2", r"pd\.notna\(y\)"),
    Case("y_pandas_NA_in_strings", lambda e: e.fit(X, pd.Series(["a", "b", pd.NA] * 2)),
         ValueError, r"missing label", r"at index 2 \(and 1 more\)", r"fill in"),
    Case("y_None_at_partial_fit",
         lambda e: e.partial_fit(X, np.array(["a", None, "a", "b", "a", "b"], dtype=object),
                                 classes=["a", "b"]),
         ValueError, r"missing label, None", r"at index 1", r"Drop the unlabelled rows",
         applies=_online),
    # a class whose examples all weigh 0 is not in the data: refused, never a constant model
    Case("class_of_zero_weight", lambda e: e.fit(X, Y, sample_weight=np.where(Y == 1, 0., 1.)),
         ValueError, r"class 1 has no example with a positive weight", r"\(sample_weight\)",
         r"give it some weight"),
    Case("class_weight_zero", lambda e: e.set_params(class_weight={0: 0.0}).fit(X, Y),
         ValueError, r"class 0 has no example with a positive weight",
         r"\(sample_weight times class_weight\)", r"leave its examples out of y",
         applies=lambda e: "class_weight" in e.get_params()),
]


def _wide_csr() -> sp.csr_matrix:
    """X's rows in a CSR matrix of 2**40 columns (8 TiB of float64 weights)."""
    C = sp.csr_matrix(X)
    return sp.csr_matrix((C.data, C.indices.astype(np.int64), C.indptr.astype(np.int64)),
                         shape=(6, 2**40))


def _broken_csc() -> sp.csc_matrix:
    C = sp.csc_matrix(X)
    C.indices[0] = 99
    return C


def _duplicated_csr() -> sp.csr_matrix:
    """X as CSR with every entry split into two halves stored twice, unsorted."""
    C = sp.coo_matrix(X)
    rows = np.concatenate([C.row, C.row])
    cols = np.concatenate([C.col, C.col])
    order = np.lexsort((-cols, rows))  # columns in decreasing order within each row
    data = np.concatenate([C.data / 2, C.data / 2])[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=6))])
    return sp.csr_matrix((data, cols[order], indptr), shape=X.shape)


def _unsorted_csr() -> sp.csr_matrix:
    C = sp.csr_matrix(X)
    for i in range(6):
        lo, hi = C.indptr[i], C.indptr[i + 1]
        C.indices[lo:hi] = C.indices[lo:hi][::-1].copy()
        C.data[lo:hi] = C.data[lo:hi][::-1].copy()
    C.has_sorted_indices = False
    return C


# (id, X as given, the dense float64 array it stands for)
VALID = [
    ("float16", X.astype(np.float16), X.astype(np.float16).astype(np.float64)),
    ("float32", X.astype(np.float32), X.astype(np.float32).astype(np.float64)),
    ("int_X", np.round(X * 10).astype(np.int64), np.round(X * 10)),
    ("csr_unsorted_indices", _unsorted_csr(), X),
    ("csr_duplicate_entries", _duplicated_csr(), X),
    ("coo", sp.coo_matrix(X), X),
    ("csc", sp.csc_matrix(X), X),
    ("pandas", pd.DataFrame(X), X),
]

ARRAY_CASES = [pytest.param(case, name, id=f"{case.id}-{name}")
               for case in CASES for name, make in ESTIMATORS.items() if case.applies(make())]


@pytest.mark.filterwarnings("ignore::halfspaces.NotSeparableWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # overflow_1e308
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # ditto
@pytest.mark.parametrize(("case", "name"), ARRAY_CASES)
def test_bad_array(case, name):
    est = ESTIMATORS[name]()
    with pytest.raises(case.error) as info:
        case.call(est)
    message = str(info.value)
    assert name in message, message
    for part in (case.what, case.where, case.fix):
        assert re.search(part, message), f"{part!r} not in {message!r}"


@pytest.mark.filterwarnings("ignore::halfspaces.NotSeparableWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize(("given", "dense"), [pytest.param(g, d, id=i) for i, g, d in VALID])
def test_accepted_array_fits_as_its_dense_float64_equivalent(name, given, dense):
    got = ESTIMATORS[name]().fit(given, Y)
    want = ESTIMATORS[name]().fit(dense, Y)
    np.testing.assert_allclose(got.decision_function(dense), want.decision_function(dense),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(got.predict(given), want.predict(dense))
