"""Input checks shared by every estimator, so that all errors read the same way.

Every message says what was wrong, the value received, and how to fix it::

    PegasosSVC: 'lam' must be a float > 0 (lambda in the Pegasos objective); got -0.1.
      Try a small positive value such as 1e-4.

A CSR matrix reaches the compiled kernels only after one compiled sweep over its arrays
(:func:`check_csr`; the sweep is in ``_csr.py``): the kernels index ``w[indices[p]]``
without bounds checks, so a column index outside ``[0, n_features)`` or a decreasing
``indptr`` would read or write outside the weights (a crash, or a silently wrong model).
The same sweep checks that every stored value is finite and whether the matrix is
canonical (indices sorted, no duplicates), the two checks scikit-learn's ``check_array``
and SciPy's ``has_canonical_format`` would each make in a pass of their own.

scikit-learn's ``validate_data`` and ``check_array`` are imported where they are called,
and not for the input of a stream's blocks (a CSR matrix of float32/float64 values, 1-D
numeric labels: :func:`_plain_csr`, :func:`_plain_labels`), whose checks they would not
change: training from a file imports no scikit-learn.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ._specs import NONE, Bool, Choice, Float, Int, OneOf, check_param, must_be
from .datasets._io import weights_size_if_too_large
from .exceptions import NumericalError


def param_error(owner: str, name: str, requirement: str, got: Any, hint: str = "") -> ValueError:
    """Build the one-line ValueError every estimator raises for a bad parameter (worded by
    :func:`~halfspaces._specs.must_be`, as the checks of ``_parameter_constraints`` are)."""
    return ValueError(f"{owner}: '{name}' {must_be(requirement, repr(got), hint)}")


def check_scalar(
    owner: str,
    name: str,
    value: Any,
    *,
    kind: type | tuple[type, ...] = numbers.Real,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    meaning: str = "",
    hint: str = "",
    allow_none: bool = False,
) -> Any:
    """Check a scalar argument of a function and return it; raise ``ValueError`` otherwise.

    ``kind`` is ``numbers.Real`` (inf allowed within the bounds, nan never),
    ``numbers.Integral`` (inclusive bounds) or ``(bool, np.bool_)``; ``meaning`` is a
    parenthesised gloss such as "lambda in the Pegasos objective". An estimator declares its
    parameters in ``_parameter_constraints`` instead (:mod:`halfspaces._specs`).
    """
    if kind == (bool, np.bool_) or kind is bool:
        spec = Bool()
    elif kind in (numbers.Integral, int):
        spec = Int(low=low, high=high)
    else:
        spec = Float(low=low, high=high, low_open=not low_inclusive,
                     high_open=not high_inclusive, allow_inf=True)
    check_param(owner, name, value, (OneOf(spec, NONE) if allow_none else spec).about(
        meaning, hint))
    return value


def check_choice(owner: str, name: str, value: Any, choices: tuple) -> Any:
    """Check that ``value`` is one of ``choices``."""
    check_param(owner, name, value, Choice(*choices))
    return value


def check_csr(owner: str, X: sp.csr_matrix | sp.csr_array, finite: bool = True):
    """Check a CSR matrix's structure and values in one compiled sweep; return it canonical.

    Raises a ValueError naming the row and the position when ``indptr`` is not a
    non-decreasing row pointer into the stored entries, when a column index is outside
    ``[0, n_features)``, or when a stored value is inf or nan. A matrix with unsorted or
    duplicate indices is copied and its duplicates summed (the kernels would not sum
    them); one that is already canonical is returned as it is, without a copy.

    ``finite=False`` skips the scan of the values of a valid canonical matrix (about half
    the sweep's time), for a caller whose first pass proves them finite and then calls
    :func:`check_finite` if it is not; any other matrix gets the full sweep, so its first
    fault is the one reported.
    """
    from ._csr import OK, csr_fault  # numba: lazily

    fault, row, p, canonical = csr_fault(X, finite)
    if not finite and (fault != OK or not canonical):
        fault, row, p, canonical = csr_fault(X)
    if fault != OK:
        raise ValueError(_csr_fault_message(owner, X, fault, row, p))
    if not canonical:
        # Duplicate entries would be summed by scipy but not by our kernels.
        X = X.copy()
        X.sum_duplicates()
        if not np.isfinite(X.data).all():  # two large duplicates can sum to inf
            row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0],
                                      side="right")) - 1
            raise ValueError(
                f"{owner}: Input X contains infinity at row {row} once its duplicate entries"
                " are summed (X.sum_duplicates()); scale the features."
            )
    return X


def _csr_fault_message(owner: str, X: sp.csr_matrix | sp.csr_array, fault: int, row: int,
                       p: int) -> str:
    """What ``_csr.csr_fault`` found wrong at ``row`` (entry ``p``), and how to fix it."""
    from ._csr import BAD_INDEX, BAD_INDPTR, BAD_SHAPE

    n, d = X.shape
    data, indices, indptr = X.data, X.indices, X.indptr
    build = "scipy.sparse.csr_matrix((data, indices, indptr), shape=(n_rows, n_columns))"
    if fault == BAD_SHAPE:
        return (
            f"{owner}: X's CSR arrays do not fit together: X has shape {X.shape}, so"
            f" X.indptr needs {n + 1} entries starting at 0 (got {indptr.shape[0]}, starting"
            f" at {indptr[0] if indptr.size else None}), and X.indices and X.data need the"
            f" same length (got {indices.shape[0]} and {data.shape[0]}). Build X with"
            f" {build}."
        )
    if fault == BAD_INDPTR:
        return (
            f"{owner}: X.indptr is not a row pointer at row {row}: indptr[{row}] ="
            f" {indptr[row]} and indptr[{row + 1}] = {indptr[row + 1]}, but it must be"
            f" non-decreasing and at most X.indices' length {indices.shape[0]} (row i holds"
            " the entries indptr[i]:indptr[i + 1]). Build indptr as"
            " np.concatenate([[0], np.cumsum(entries_per_row)])."
        )
    if fault == BAD_INDEX:
        j = int(indices[p])
        fix = (f"build the matrix with {build} and n_columns > {j}" if j >= d else
               "column indices count from 0 and cannot be negative; fix the indices")
        return (
            f"{owner}: X.indices has {j} at row {row}, position {p}, but X has {d} columns"
            f" (valid column indices are 0..{d - 1}); {fix}."
        )
    what = "NaN" if np.isnan(data[p]) else "infinity"  # NOT_FINITE
    return (
        f"{owner}: Input X contains {what} at row {row}, column {int(indices[p])}"
        f" (X.data[{p}]); every value must be finite. Replace it (e.g. impute it) or"
        " drop the row."
    )


def _check_compressed(owner: str, X: Any) -> None:
    """Check a CSC or BSR matrix's arrays before SciPy walks them to convert it to CSR."""
    if X.format in ("csc", "bsr"):
        try:
            X.check_format(full_check=True)
        except ValueError as error:
            raise ValueError(f"{owner}: X is not a valid {X.format.upper()} matrix: {error}."
                             " Build it with scipy.sparse or pass a CSR matrix.") from None


def validate_X(estimator: Any, X: Any, *, reset: bool, allow_sparse: bool = True,
               finite: bool = True) -> Any:
    """Validate a feature matrix for the compiled kernels, without a converting copy.

    Dense input becomes a C-contiguous float64 or float32 array; sparse input a CSR matrix
    whose float32/float64 data and int32/int64 indices are kept as given, checked by
    :func:`check_csr` (which also scans for inf/nan, so scikit-learn's scan is skipped).
    Records ``n_features_in_`` (and feature names) when ``reset`` is true, checks them
    otherwise. ``finite=False`` leaves the scan for inf and nan to the caller's first pass
    (see :func:`check_finite`).
    """
    owner = type(estimator).__name__
    if allow_sparse and _plain_csr(estimator, X, reset):
        if reset:
            estimator.n_features_in_ = X.shape[1]
        _check_weights_allocatable(owner, X.shape[1])
        return check_csr(owner, X, finite)
    if _plain_dense(estimator, X, reset) and not (finite and _has_non_finite(X)):
        if reset:
            estimator.n_features_in_ = X.shape[1]
        return X
    sparse = sp.issparse(X)
    if sparse:
        _check_compressed(owner, X)
    from sklearn.utils.validation import validate_data

    try:
        X = validate_data(
            estimator,
            X,
            reset=reset,
            accept_sparse="csr" if allow_sparse else False,
            dtype=[np.float64, np.float32],
            order="C",
            accept_large_sparse=True,
            ensure_all_finite=finite and not sparse,
        )
    except ValueError as exc:
        raise _array_error(owner, exc, X) from exc
    if sparse:
        _check_weights_allocatable(owner, X.shape[1])
        return check_csr(owner, X, finite)
    return X


def _plain_csr(estimator: Any, X: Any, reset: bool) -> bool:
    """Whether ``validate_data`` would take ``X`` as it is and only record (``reset``) or
    check its number of columns: a CSR matrix of float32/float64 values with at least one
    row and one column, and no feature names on either side. :func:`check_csr` makes the
    other checks."""
    return (sp.issparse(X) and X.format == "csr" and X.ndim == 2
            and X.dtype in (np.float32, np.float64) and X.shape[0] >= 1 and X.shape[1] >= 1
            and not hasattr(estimator, "feature_names_in_")
            and (reset or getattr(estimator, "n_features_in_", None) == X.shape[1]))


def _plain_dense(estimator: Any, X: Any, reset: bool) -> bool:
    """Whether ``validate_data`` would return ``X`` as it is (save its scan for inf and
    nan) and only record or check its number of columns: a C-contiguous 2-D NumPy array
    (not a subclass) of float32/float64 values with at least one row and one column, and no
    feature names on either side. Such input skips scikit-learn's import (a second, on a
    first fit)."""
    return (type(X) is np.ndarray and X.ndim == 2 and X.dtype in (np.float32, np.float64)
            and X.flags.c_contiguous and X.shape[0] >= 1 and X.shape[1] >= 1
            and not hasattr(estimator, "feature_names_in_")
            and (reset or getattr(estimator, "n_features_in_", None) == X.shape[1]))


def _has_non_finite(X: np.ndarray) -> bool:
    """Whether ``X`` holds an inf or nan (then scikit-learn's check words the error)."""
    return not np.isfinite(X.sum()) and not np.isfinite(X).all()


def _plain_labels(y: Any) -> bool:
    """Whether ``check_array(y, ensure_2d=False)`` would return ``y`` as it is: a non-empty
    1-D array of booleans, integers or finite floats."""
    return (isinstance(y, np.ndarray) and y.ndim == 1 and y.size >= 1
            and y.dtype.kind in "biuf" and (y.dtype.kind != "f" or bool(np.isfinite(y).all())))


_NUMBER, _TEXT, _MISSING, _OTHER = range(4)


def _label_kind(value: Any) -> int:
    """Whether one label is a number, a string, missing (None, NaN, pandas' NA or NaT) or
    something else (left to scikit-learn's checks)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return _MISSING
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return _TEXT
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return _MISSING if value != value else _NUMBER  # NaN is not equal to itself
    return _OTHER


def check_label_values(owner: str, y: Any) -> None:
    """Refuse labels given as Python objects (a list, an object array or Series) that are
    missing or that mix numbers and strings: NumPy would turn ``[1, "a"]`` into the strings
    ``"1", "a"`` and sorting ``1`` against ``"a"`` or ``pd.NA`` raises a bare TypeError."""
    if isinstance(y, (list, tuple)):
        values = np.asarray(y, dtype=object)
    elif hasattr(y, "to_numpy") and getattr(y.dtype, "kind", "O") not in "biufc":
        values = np.asarray(y.to_numpy(dtype=object))  # pandas' object and string dtypes
    elif isinstance(y, np.ndarray) and y.dtype == object:
        values = y
    else:
        return
    if values.ndim != 1 or values.size == 0:
        return  # the shape checks that follow say what is wrong
    kinds = np.fromiter(map(_label_kind, values), dtype=np.int8, count=values.size)
    missing = np.flatnonzero(kinds == _MISSING)
    if missing.size:
        more = f" (and {missing.size - 1} more)" if missing.size > 1 else ""
        raise ValueError(
            f"{owner}: y has a missing label, {values[missing[0]]!r}, at index {missing[0]}"
            f"{more}; every row of X needs a label in y. Drop the unlabelled rows (e.g. keep ="
            " pd.notna(y); fit(X[keep], y[keep])) or fill in their labels.")
    numbers, texts = np.flatnonzero(kinds == _NUMBER), np.flatnonzero(kinds == _TEXT)
    if numbers.size and texts.size:
        i, j = numbers[0], texts[0]
        raise ValueError(
            f"{owner}: y mixes numbers and strings ({values[i]!r} at index {i},"
            f" {values[j]!r} at index {j}), so its labels have no order and no single type"
            " for classes_. Give y one type: all strings (y = np.asarray(y, dtype=str)) or"
            " all numbers (map each string label to a number).")


def check_finite(estimator: Any, X: Any) -> None:
    """Raise the error :func:`validate_X` raises for inf or nan in ``X``, if there is any.

    For a ``fit`` that validated ``X`` with ``finite=False`` because its first pass proves
    the values finite: every score of the perceptron family sums a product with each
    stored value of its row, so an inf or nan stops that pass (a NumericalError), and the
    pass calls this before re-raising, so that bad input is reported as it always was (the
    first bad row in row order, and for CSR input its column).
    """
    if sp.issparse(X):
        check_csr(type(estimator).__name__, X)
    else:
        from sklearn.utils.validation import check_array

        try:
            check_array(X, dtype=None, order=None, input_name="X", estimator=estimator)
        except ValueError as exc:
            raise _array_error(type(estimator).__name__, exc, X) from exc


# Below this many columns (1 GiB of float64 weights) a weight vector is not probed.
_PROBE_COLUMNS = 1 << 27


def _check_weights_allocatable(owner: str, n_features: int) -> None:
    """Refuse a sparse X with more columns than a weight vector can be allocated for (a dense
    X that wide could not exist), instead of a MemoryError in the middle of fit."""
    size = weights_size_if_too_large(n_features) if n_features > _PROBE_COLUMNS else None
    if size is not None:
        raise ValueError(
            f"{owner}: X has {n_features} columns, and a weight vector that long ({size} of"
            " float64) cannot be allocated here. Use fewer columns: read the file with a"
            " smaller n_features (or leave it None: the largest index + 1), or hash the"
            " features into fewer buckets."
        )


def _first_bad_cell(values: Any, bad) -> tuple[str, tuple[int, ...], int]:
    """``("row i, column j" or "index i", (i, j), count)`` of the cells where ``bad(values)``
    holds."""
    cells = np.argwhere(bad(values))
    first = tuple(int(k) for k in cells[0])
    where = ", ".join(f"{axis} {k}" for axis, k in zip(
        ("row", "column") if values.ndim == 2 else ("index",), first, strict=False))
    return where, first, len(cells)


def _not_a_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return True
    return False


def _array_error(owner: str, exc: ValueError, X: Any, name: str = "X") -> ValueError:
    """scikit-learn's complaint ``exc`` about the array ``X`` (named ``name``) re-worded as
    ours: the estimator, where in X (row and column) and how to fix it; ``exc`` itself when
    it is not one of scikit-learn's array checks."""
    text = str(exc)
    first = text.split(".", 1)[0]
    if text.startswith(f"Input {name} contains"):
        what = "NaN" if "NaN" in first else "infinity"
        values = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
        where, _, count = _first_bad_cell(values, lambda a: ~np.isfinite(a))
        more = f" (and {count - 1} more cells)" if count > 1 else ""
        fix = ("Give every row a label, or drop the unlabelled rows" if name == "y" else
               "Replace it (e.g. impute it) or drop the row")
        return ValueError(f"{owner}: Input {name} contains {what} at {where}{more}; every"
                          f" value must be finite. {fix}.")
    if text.startswith("could not convert string to float"):
        values = np.asarray(X, dtype=object)
        where, first, _ = _first_bad_cell(values, np.vectorize(_not_a_number, otypes=[bool]))
        cell = values[first]
        return ValueError(f"{owner}: {name} must hold numbers, but the cell at {where} is"
                          f" {cell!r}. Encode text or categories as numbers first (e.g."
                          " sklearn.preprocessing.OneHotEncoder, or a vectorizer for texts).")
    if text.startswith("setting an array element with a sequence"):
        lengths = [np.size(row) for row in X] if isinstance(X, (list, tuple)) else []
        row = next((i for i, n in enumerate(lengths) if n != lengths[0]), None)
        where = "" if row is None else (f": row {row} has {lengths[row]} values but row 0"
                                        f" has {lengths[0]}")
        return ValueError(f"{owner}: {name} is ragged (its rows differ in length){where}."
                          " Give every row the same number of features (0 where a feature"
                          " is absent), or pass a scipy.sparse matrix.")
    if text.startswith("Complex data not supported"):
        return ValueError(f"{owner}: Complex data not supported: {name} holds complex"
                          f" numbers; the estimators need real ones. Pass {name}.real, or the"
                          f" real and imaginary parts as columns:"
                          f" np.hstack([{name}.real, {name}.imag]).")
    if text.startswith("Expected 2D array"):
        kind = "a scalar" if np.ndim(X) == 0 else "a 1-D array"
        return ValueError(f"{owner}: {name} must be 2-D (n_samples, n_features); got {kind}"
                          f" of shape {np.shape(X)}. Reshape your data: {name}.reshape(-1, 1)"
                          f" if it is one feature, {name}.reshape(1, -1) if it is one example.")
    if text.startswith("Found array with dim"):
        return ValueError(f"{owner}: {name} must be 2-D (n_samples, n_features); got"
                          f" {np.ndim(X)} dimensions, shape {np.shape(X)}. Reshape it, e.g."
                          f" {name}.reshape(len({name}), -1).")
    if text.startswith("Found array with 0 sample"):
        return ValueError(f"{owner}: {first}: {name} has no rows; pass at least one example.")
    if text.startswith("Found array with 0 feature"):
        return ValueError(f"{owner}: {first}: {name} has no columns; pass at least one"
                          " feature.")
    if " features, but " in first and "is expecting" in first:
        expected = first.rsplit("expecting ", 1)[1].split()[0]
        return ValueError(f"{first}. Pass {name} with the same {expected} columns, in the"
                          " same order, as the data the model was fitted on.")
    return exc


def check_X(owner: str, X: Any, **check_array_params: Any) -> Any:
    """``check_array(X, **check_array_params)`` for a function (no estimator), with sparse
    input checked as :func:`validate_X` checks it. Pass ``accept_sparse="csr"`` to take it."""
    from sklearn.utils.validation import check_array

    sparse = sp.issparse(X)
    if sparse:
        _check_compressed(owner, X)
    try:
        X = check_array(X, input_name="X", ensure_all_finite=not sparse, **check_array_params)
    except ValueError as exc:
        raise _array_error(owner, exc, X) from exc
    return check_csr(owner, X) if sparse else X


def validate_X_y(estimator: Any, X: Any, y: Any, *, reset: bool, allow_sparse: bool = True,
                 finite: bool = True):
    """Validate ``X`` as ``validate_X`` does and ``y`` as a 1-D label vector of the same length."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    X = validate_X(estimator, X, reset=reset, allow_sparse=allow_sparse, finite=finite)
    if not _plain_labels(y):
        check_label_values(type(estimator).__name__, y)
        from sklearn.utils.validation import check_array, column_or_1d

        try:
            y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=True,
                            input_name="y")
        except ValueError as exc:
            raise _array_error(type(estimator).__name__, exc, y, "y") from exc
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)  # warns DataConversionWarning, as scikit-learn does
    if y.ndim != 1:
        raise ValueError(
            f"{type(estimator).__name__}: y must be a 1-D array of labels; got shape {y.shape}."
        )
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{type(estimator).__name__}: X has {X.shape[0]} rows but y has {y.shape[0]} labels;"
            " they must match."
        )
    return X, y


def check_row_norms(owner: str, X: Any) -> NDArray[np.float64]:
    """``||x_i||^2`` of each row of a validated ``X`` (float64, dense or CSR).

    Raises :class:`~halfspaces.exceptions.NumericalError` naming the first row whose squared
    norm overflows float64 (features of about 1e154 or more): the solvers square the
    features (``||x_i||^2``, ``Q``, Gram matrices), so such data cannot be fitted as it is.
    """
    with np.errstate(over="ignore"):  # an overflow is the error raised below
        if sp.issparse(X):
            squares = sp.csr_matrix((np.square(X.data, dtype=np.float64), X.indices,
                                     X.indptr), shape=X.shape)
            sq_norms = np.asarray(squares.sum(axis=1)).ravel()
        else:
            sq_norms = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(sq_norms))
    if bad.size:
        raise NumericalError(owner, int(bad[0]), "||x_i||^2, the row's squared norm,")
    return sq_norms
