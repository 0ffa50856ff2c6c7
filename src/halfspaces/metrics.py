"""How well a fitted model does on labelled data: accuracy, losses and margins.

For a two-class model with score ``s(x)`` and labels encoded ``y in {-1, +1}``
(``classes_[1] -> +1``), the agreement of an example is ``z = y s(x)`` and

    zero-one   mean of 1[z <= 0]          (a tie counts as a mistake)
    hinge      mean of max(0, 1 - z)
    logistic   mean of log(1 + exp(-z))
    functional margins   min and mean of z
    geometric margin     min_i y_i (<w, x_i> + b) / ||w||   (linear models)

A model with more classes (one-vs-rest) gets its accuracy only.
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


def evaluate(model: Any, X: ArrayLike, y: ArrayLike) -> dict[str, Any]:
    """Accuracy, mean zero-one / hinge / logistic losses and margins of a fitted model.

    Parameters
    ----------
    model : fitted classifier with ``score``, ``decision_function`` and ``classes_``
        (or a scikit-learn Pipeline ending in one, e.g. a text model).
    X : {array-like, sparse matrix} of shape (n_samples, n_features), or raw texts for a
        text Pipeline
    y : array-like of shape (n_samples,), labels among ``classes_``

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
    return evaluate_blocks(model, [(X, y)])


def evaluate_blocks(model: Any, blocks) -> dict[str, Any]:
    """:func:`evaluate` over the ``(X, y)`` blocks of a data set, one at a time.

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
    for X, y in blocks:
        tally.add(X, y)
    return tally.result()


class _Tally:
    """What :func:`evaluate_blocks` adds up: right predictions, labels seen, agreements and
    the smallest geometric margin."""

    def __init__(self, model):
        self.model = model
        self.n = self.right = 0
        self.labels, self.z, self.geometric = [], [], None
        self.multiclass, self.n_classes = None, 0

    def add(self, X, y) -> None:
        from ._labels import encode_pm
        from .theory import geometric_margin

        estimator, features = _final_step(self.model, X)
        y = np.asarray(y)
        self.n += int(y.shape[0])
        self.right += int(np.count_nonzero(np.asarray(self.model.predict(X)) == y))
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
        if self.multiclass:
            result["note"] = (f"{self.n_classes} classes (one-vs-rest): losses and margins are"
                              " reported for two-class models only")
            return result
        z = np.concatenate(self.z)
        result.update(zero_one=float(np.mean(losses.zero_one(z))),
                      hinge=float(np.mean(losses.hinge(z))),
                      logistic=float(np.mean(losses.logistic(z))),
                      min_functional_margin=float(z.min()),
                      mean_functional_margin=float(z.mean()))
        if self.geometric is not None:
            result["geometric_margin"] = self.geometric
        return result


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
