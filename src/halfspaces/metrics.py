"""How well a fitted model does on labelled data: accuracy, losses and margins.

For a two-class model with score ``s(x)`` and labels encoded ``y in {-1, +1}``
(``classes_[1] -> +1``), the agreement of an example is ``z = y s(x)`` and

    zero-one   mean of 1[z <= 0]          (a tie counts as a mistake)
    hinge      mean of max(0, 1 - z)
    logistic   mean of log(1 + exp(-z))
    functional margins   min and mean of z
    geometric margin     min_i y_i (<w, x_i> + b) / ||w||   (linear models)

A model with more classes (one-vs-rest) gets its accuracy only.

With example weights ``s_i >= 0`` (``sample_weight``: VW's importance weights, a CSV weight
column) the weighted figures are added beside these: the weighted means
``sum_i s_i f_i / sum_i s_i`` of the right predictions and of the three losses (as
scikit-learn's metrics weigh with ``sample_weight``, and Vowpal Wabbit reports its weighted
average loss).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["evaluate", "evaluate_blocks"]


def _final_step(model, X):
    """``(final estimator, the features it sees)``: a Pipeline's featurizer is applied."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        return model[-1], model[:-1].transform(X)
    return model, X


def evaluate(model: Any, X: ArrayLike, y: ArrayLike,
             sample_weight: ArrayLike | None = None) -> dict[str, Any]:
    """Accuracy, mean zero-one / hinge / logistic losses and margins of a fitted model.

    Parameters
    ----------
    model : fitted classifier with ``score``, ``decision_function`` and ``classes_``
        (or a scikit-learn Pipeline ending in one, e.g. a text model).
    X : {array-like, sparse matrix} of shape (n_samples, n_features), or raw texts for a
        text Pipeline
    y : array-like of shape (n_samples,), labels among ``classes_``
    sample_weight : array-like of shape (n_samples,) or None
        Example weights ``>= 0`` (not all 0); given, the result also has ``weight_sum``,
        ``weighted_accuracy`` and, for two classes, ``weighted_zero_one``,
        ``weighted_hinge`` and ``weighted_logistic``.

    Returns
    -------
    dict
        ``n_samples``, ``accuracy``; for two classes also ``zero_one``, ``hinge``,
        ``logistic``, ``min_functional_margin``, ``mean_functional_margin`` and, for a linear
        model, ``geometric_margin``; for more classes a ``note`` instead.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> X = np.array([[2.0], [1.0], [-1.0]]); y = np.array([1, 1, -1])
    >>> r = evaluate(Perceptron(fit_intercept=False, shuffle=False).fit(X, y), X, y)
    >>> r["accuracy"], r["zero_one"], r["min_functional_margin"], r["geometric_margin"]
    (1.0, 0.0, 2.0, 1.0)
    """
    return evaluate_blocks(model, [(X, y) if sample_weight is None else (X, y, sample_weight)])


def evaluate_blocks(model: Any, blocks) -> dict[str, Any]:
    """:func:`evaluate` over the ``(X, y)`` (or ``(X, y, sample_weight)``) blocks of a data
    set, one at a time.

    The result is that of :func:`evaluate` on the blocks stacked, number for number: the
    counts and extremes add up across blocks, and the agreements ``z`` (8 bytes per example,
    not the features) are kept for the means.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> X = np.array([[2.0], [1.0], [-1.0]]); y = np.array([1, 1, -1])
    >>> clf = Perceptron(fit_intercept=False, shuffle=False).fit(X, y)
    >>> evaluate_blocks(clf, [(X[:2], y[:2]), (X[2:], y[2:])]) == evaluate(clf, X, y)
    True
    """
    tally = _Tally(model)
    for X, y, *w in blocks:
        tally.add(X, y, *w)
    return tally.result()


class _Tally:
    """What :func:`evaluate_blocks` adds up: right predictions, labels seen, agreements and
    the smallest geometric margin."""

    def __init__(self, model):
        self.model = model
        self.n = self.right = 0
        self.labels, self.z, self.geometric = [], [], None
        self.multiclass, self.n_classes = None, 0
        self.weights: list | None = None  # each block's example weights, when given
        self.weighted_right = 0.0

    def add(self, X, y, sample_weight=None) -> None:
        from ._labels import encode_pm
        from .theory import geometric_margin

        estimator, features = _final_step(self.model, X)
        y = np.asarray(y)
        self.n += int(y.shape[0])
        right = np.asarray(self.model.predict(X)) == y
        self.right += int(np.count_nonzero(right))
        if sample_weight is not None:
            w = _check_weights(sample_weight, y.shape[0], self.n - int(y.shape[0]))
            self.weights = [*(self.weights or []), w]
            self.weighted_right += float(w @ right)
        scores = np.asarray(estimator.decision_function(features))
        classes = np.asarray(estimator.classes_)
        self.multiclass, self.n_classes = scores.ndim != 1, classes.size
        if self.multiclass:
            return
        _check_labels(y, classes, self.n - int(y.shape[0]))
        y_pm = encode_pm(y, classes)
        self.z.append(y_pm * scores)
        coef = getattr(estimator, "coef_", None)
        if coef is not None and np.ndim(coef) == 2 and np.shape(coef)[0] == 1:
            b = float(np.ravel(getattr(estimator, "intercept_", [0.0]))[0])
            margin = float(geometric_margin(np.ravel(coef), features, y_pm, b=b))
            self.geometric = margin if self.geometric is None else min(self.geometric, margin)

    def result(self) -> dict[str, Any]:
        from . import losses

        # count / n is what score()'s mean of (prediction == label) gives
        result: dict[str, Any] = {"n_samples": self.n, "accuracy": self.right / self.n}
        weighted: dict[str, Any] = {}
        if self.weights is not None:
            s = np.concatenate(self.weights)
            total = float(s.sum())
            if not total > 0:
                raise ValueError("evaluate: every example weight (sample_weight) is 0, so the"
                                 " weighted figures are undefined; give some example a"
                                 " positive weight")
            weighted = {"weight_sum": total, "weighted_accuracy": self.weighted_right / total}
        if self.multiclass:
            result["note"] = (f"{self.n_classes} classes (one-vs-rest): losses and margins are"
                              " reported for two-class models only")
            return {**result, **weighted}
        z = np.concatenate(self.z)
        result.update(zero_one=float(np.mean(losses.zero_one(z))),
                      hinge=float(np.mean(losses.hinge(z))),
                      logistic=float(np.mean(losses.logistic(z))),
                      min_functional_margin=float(z.min()),
                      mean_functional_margin=float(z.mean()))
        if self.geometric is not None:
            result["geometric_margin"] = self.geometric
        if weighted:
            weighted.update({f"weighted_{name}": float(s @ getattr(losses, name)(z)) / total
                             for name in ("zero_one", "hinge", "logistic")})
        return {**result, **weighted}


def _check_weights(sample_weight, n: int, first_row: int) -> np.ndarray:
    """``sample_weight`` of a block of ``n`` rows (row 0 is row ``first_row`` of the data)
    as float64, each finite and ``>= 0``."""
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"evaluate: 'sample_weight' must have one entry per example ({n});"
                         f" got shape {w.shape}")
    bad = np.flatnonzero(~(np.isfinite(w) & (w >= 0)))
    if bad.size:
        raise ValueError(f"evaluate: 'sample_weight' must be finite and >= 0; got"
                         f" {w[bad[0]]!r} at row {first_row + int(bad[0])}")
    return w


def _check_labels(y, classes, first_row: int) -> None:
    """Refuse labels of ``y`` (whose row 0 is row ``first_row`` of the data) that are not
    among the model's ``classes``."""
    from ._labels import format_label

    unseen = np.setdiff1d(np.unique(y), classes)
    if unseen.size:
        row = first_row + int(np.flatnonzero(~np.isin(y, classes))[0])
        raise ValueError(f"evaluate: labels {[format_label(u) for u in unseen[:5]]} are not"
                         f" among the model's classes {[format_label(c) for c in classes]}"
                         f" (the first at row {row}); evaluate on data labelled with the"
                         " model's classes, or train on data that has these labels too")
