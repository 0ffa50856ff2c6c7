"""Input checks shared by every estimator, so that all errors read the same way.

Every message says what was wrong, the value received, and how to fix it::

    PegasosSVC: 'lam' must be a float > 0 (lambda in the Pegasos objective); got -0.1.
      Try a small positive value such as 1e-4.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.validation import check_array, column_or_1d, validate_data


def param_error(owner: str, name: str, requirement: str, got: Any, hint: str = "") -> ValueError:
    """Build the one-line ValueError every estimator raises for a bad parameter."""
    message = f"{owner}: '{name}' must be {requirement}; got {got!r}."
    if hint:
        message += f" {hint}"
    return ValueError(message)


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
    """Check a scalar hyper-parameter and return it; raise ``param_error`` otherwise.

    ``meaning`` is a parenthesised gloss such as "lambda in the Pegasos objective".
    """
    if value is None and allow_none:
        return value
    is_bool = kind == (bool, np.bool_) or kind is bool
    kind_name = "a bool" if is_bool else "an int" if kind in (numbers.Integral, int) else "a float"
    bounds = []
    if low is not None:
        bounds.append(f"{'>=' if low_inclusive else '>'} {low:g}")
    if high is not None:
        bounds.append(f"{'<=' if high_inclusive else '<'} {high:g}")
    requirement = kind_name + (" " + " and ".join(bounds) if bounds else "")
    if allow_none:
        requirement += " or None"
    if meaning:
        requirement += f" ({meaning})"
    ok = isinstance(value, kind) and (is_bool or not isinstance(value, (bool, np.bool_)))
    if ok and isinstance(value, (float, np.floating)) and np.isnan(value):
        ok = False
    if ok and low is not None:
        ok = value >= low if low_inclusive else value > low
    if ok and high is not None:
        ok = value <= high if high_inclusive else value < high
    if not ok:
        raise param_error(owner, name, requirement, value, hint)
    return value


def check_choice(owner: str, name: str, value: Any, choices: tuple) -> Any:
    """Check that ``value`` is one of ``choices``."""
    if not any(value == c for c in choices if not callable(c) or c is value):
        listed = ", ".join(repr(c) for c in choices)
        raise param_error(owner, name, f"one of {listed}", value)
    return value


def validate_X(estimator: Any, X: Any, *, reset: bool, allow_sparse: bool = True) -> Any:
    """Validate a feature matrix for the compiled kernels, without a converting copy.

    Dense input becomes a C-contiguous float64 or float32 array; sparse input a CSR matrix
    whose float32/float64 data and int32/int64 indices are kept as given. Records
    ``n_features_in_`` (and feature names) when ``reset`` is true, checks them otherwise.
    """
    X = validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse="csr" if allow_sparse else False,
        dtype=[np.float64, np.float32],
        order="C",
        accept_large_sparse=True,
    )
    if sp.issparse(X):
        if not X.has_canonical_format:
            # Duplicate entries would be summed by scipy but not by our kernels.
            X = X.copy()
            X.sum_duplicates()
    return X


def validate_X_y(estimator: Any, X: Any, y: Any, *, reset: bool, allow_sparse: bool = True):
    """Validate ``X`` as ``validate_X`` does and ``y`` as a 1-D label vector of the same length."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    X = validate_X(estimator, X, reset=reset, allow_sparse=allow_sparse)
    y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=True, input_name="y")
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
    from .exceptions import NumericalError

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
