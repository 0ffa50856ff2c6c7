"""scikit-learn's estimator checks for HalvingClassifier on data that its class realizes.

Halving is specified only when some hypothesis of its class agrees with every label, and it
raises NotRealizableError otherwise. scikit-learn's checks fit labels of their own making
(mostly random), which a fixed class such as :data:`STUMPS` cannot realize. To run the same
checks on realizable data, :class:`TaughtHalving` adds the target concept to the class:
:func:`target` labels each row by a table that ``fit`` / ``partial_fit`` fill from the data
they are given ("teach") just before HalvingClassifier's own code runs. Nothing else is
changed, so every check exercises HalvingClassifier's fit contract, with a hypothesis class
that contains a consistent hypothesis exactly when the labels are a function of ``x``.

Every taught data set is also kept in :data:`TAUGHT`, so that a test can prove why a fit
failed: :func:`labels_not_a_function_of_x` (no hypothesis of any class realizes them) or
:func:`realized_by` (which hypotheses of a class do).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from halfspaces.experts import CoordinateStump, HalvingClassifier

#: 20 coordinate stumps on the first and the last feature (the class used in the tests).
STUMPS = [CoordinateStump(f, t, s) for f in (0, -1) for t in (-1.0, -0.5, 0.0, 0.5, 1.0)
          for s in (1, -1)]
#: The two constant experts (no value reaches the threshold): with them Weighted Majority
#: can follow a class_weight that makes one class's mistakes cost the most, as scikit-learn's
#: check_class_weight_classifiers asks (no stump predicts one class on 87% of its rows).
CONSTANTS = [CoordinateStump(0, math.inf, s) for s in (1, -1)]

#: ``row bytes -> label in {-1, +1}``: module state, so that clone, get_params and
#: joblib.hash (which the checks apply to the parameters) see an unchanged hypothesis.
_TABLE: dict[bytes, int] = {}

#: Every data set taught so far, as ``(rows, y_pm)`` with dense float64 rows.
TAUGHT: list[tuple[np.ndarray, np.ndarray]] = []


def _dense_rows(X) -> np.ndarray:
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    if X.dtype.kind == "c":
        raise TypeError("complex data")
    X = X.astype(np.float64)
    return X.reshape(X.shape[0], -1) + 0.0  # + 0.0 turns -0.0 into 0.0 for the table keys


class _Target:
    """The target concept: each row's taught label in {-1, +1} (+1 for rows never taught)."""

    def __call__(self, X) -> np.ndarray:
        return np.array([_TABLE.get(row.tobytes(), 1) for row in _dense_rows(X)],
                        dtype=np.int8)

    def __repr__(self) -> str:  # a stable test id
        return "target"


target = _Target()


def teach(X, y) -> None:
    """Store the labels of the rows of ``X`` (+1 for ``classes_[1]``); skip invalid input.

    Input that HalvingClassifier must refuse (NaN, one class, wrong lengths, strings) is
    left alone: the estimator raises its own error for it.
    """
    try:
        rows, y = _dense_rows(X), np.ravel(np.asarray(y))
        classes = np.unique(y)
    except (TypeError, ValueError):  # e.g. strings or complex numbers in X
        return
    if classes.size != 2 or y.shape[0] != rows.shape[0] or not np.isfinite(rows).all():
        return
    y_pm = np.where(y == classes[1], 1, -1).astype(np.int8)
    TAUGHT.append((rows, y_pm))
    for row, label in zip(rows, y_pm, strict=True):
        _TABLE[row.tobytes()] = int(label)


def forget() -> None:
    """Empty the table and the record (call at the start of each test)."""
    _TABLE.clear()
    TAUGHT.clear()


class TaughtHalving(HalvingClassifier):
    """HalvingClassifier that teaches :func:`target` the labels before each fit."""

    def fit(self, X, y):
        teach(X, y)
        return super().fit(X, y)

    def partial_fit(self, X, y, classes=None):
        teach(X, y)
        return super().partial_fit(X, y, classes)


def labels_not_a_function_of_x(rows: np.ndarray, y_pm: np.ndarray) -> bool:
    """True when two identical rows carry different labels: then no hypothesis realizes them."""
    _, group = np.unique(rows, axis=0, return_inverse=True)
    group = group.ravel()
    lowest = np.full(group.max() + 1, 2)
    highest = np.full(group.max() + 1, -2)
    np.minimum.at(lowest, group, y_pm)
    np.maximum.at(highest, group, y_pm)
    return bool(np.any(lowest != highest))


def realized_by(hypotheses, rows: np.ndarray, y_pm: np.ndarray) -> list[int]:
    """Indices of the hypotheses that agree with every label."""
    return [i for i, h in enumerate(hypotheses) if np.array_equal(h(rows), y_pm)]


def caused_by(exc: BaseException | None, error: type) -> bool:
    """True when ``exc`` or an exception it was raised from is an ``error``."""
    while exc is not None:
        if isinstance(exc, error):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
