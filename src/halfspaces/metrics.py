"""How well a fitted model does on labelled data: accuracy, losses, margins and the figures
practitioners score by.

For a two-class model with score ``s(x)`` and labels encoded ``y in {-1, +1}``
(``classes_[1] -> +1``), the agreement of an example is ``z = y s(x)`` and

    zero-one   mean of 1[z <= 0]          (a tie counts as a mistake)
    hinge      mean of max(0, 1 - z)
    logistic   mean of log(1 + exp(-z))
    functional margins   min and mean of z
    geometric margin     min_i y_i (<w, x_i> + b) / ||w||   (linear models)

A model with more classes (one-vs-rest) gets no losses or margins.

Every model also gets the scores of :mod:`sklearn.metrics` on the same predictions: balanced
accuracy, precision / recall / F1 per class with their macro and support-weighted averages,
the confusion matrix, ROC-AUC and average precision of the decision values (one-vs-rest,
macro-averaged, for more classes), and log-loss and Brier score where the model has
``predict_proba``. A ``threshold`` moves the two-class decision: predict ``classes_[1]`` when
``s(x) >= threshold``.

With example weights ``s_i >= 0`` (``sample_weight``: VW's importance weights, a CSV weight
column) the weighted figures are added beside these: the weighted means
``sum_i s_i f_i / sum_i s_i`` of the right predictions and of the three losses (as
scikit-learn's metrics weigh with ``sample_weight``, and Vowpal Wabbit reports its weighted
average loss), and the scores of :mod:`sklearn.metrics` are weighted by them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._labels import encode_pm, format_label

__all__ = ["LOWER_IS_BETTER", "SCORES", "brier_score", "evaluate", "evaluate_blocks",
           "scores_of"]

# The single numbers of evaluate() that a search can score by (where the model has them).
SCORES = frozenset({"accuracy", "balanced_accuracy", "precision", "recall", "f1",
                    "precision_macro", "recall_macro", "f1_macro", "precision_weighted",
                    "recall_weighted", "f1_weighted", "roc_auc", "average_precision",
                    "log_loss", "brier", "zero_one", "hinge", "logistic",
                    "min_functional_margin", "mean_functional_margin", "geometric_margin"})

# The figures of evaluate() that are losses: smaller is better (for a search over C).
LOWER_IS_BETTER = frozenset({"zero_one", "hinge", "logistic", "log_loss", "brier",
                             "weighted_zero_one", "weighted_hinge", "weighted_logistic"})


def _final_step(model, X):
    """``(final estimator, the features it sees)``: a Pipeline's featurizer is applied."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        return model[-1], model[:-1].transform(X)
    return model, X


def evaluate(model: Any, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
             *, threshold: float | None = None) -> dict[str, Any]:
    """Accuracy, losses, margins and the scores of :mod:`sklearn.metrics` of a fitted model.

    Parameters
    ----------
    model : fitted classifier with ``predict``, ``decision_function`` and ``classes_``
        (or a scikit-learn Pipeline ending in one, e.g. a text model).
    X : {array-like, sparse matrix} of shape (n_samples, n_features), or raw texts for a
        text Pipeline
    y : array-like of shape (n_samples,), labels among ``classes_``
    sample_weight : array-like of shape (n_samples,) or None
        Example weights ``>= 0`` (not all 0); given, the result also has ``weight_sum``,
        ``weighted_accuracy`` and, for two classes, ``weighted_zero_one``,
        ``weighted_hinge`` and ``weighted_logistic``, and the scores of
        :func:`scores_of` are weighted.
    threshold : float or None
        Two classes only: predict ``classes_[1]`` where the decision value is
        ``>= threshold`` (None: the model's own ``predict``).

    Returns
    -------
    dict
        ``n_samples``, ``accuracy``; for two classes also ``zero_one``, ``hinge``,
        ``logistic``, ``min_functional_margin``, ``mean_functional_margin`` and, for a linear
        model, ``geometric_margin``; for more classes a ``note`` instead; then the keys of
        :func:`scores_of`.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> X = np.array([[2.0], [1.0], [-1.0]]); y = np.array([1, 1, -1])
    >>> r = evaluate(Perceptron(fit_intercept=False, shuffle=False).fit(X, y), X, y)
    >>> r["accuracy"], r["zero_one"], r["min_functional_margin"], r["geometric_margin"]
    (1.0, 0.0, 2.0, 1.0)
    >>> r["balanced_accuracy"], r["roc_auc"], r["confusion_matrix"]
    (1.0, 1.0, [[1, 0], [0, 2]])
    """
    blocks = [(X, y) if sample_weight is None else (X, y, sample_weight)]
    return evaluate_blocks(model, blocks, threshold=threshold)


def evaluate_blocks(model: Any, blocks, *, threshold: float | None = None) -> dict[str, Any]:
    """:func:`evaluate` over the ``(X, y)`` (or ``(X, y, sample_weight)``) blocks of a data
    set, one at a time.

    The result is that of :func:`evaluate` on the blocks stacked, number for number: the
    counts and extremes add up across blocks, and per example the agreement ``z``, the class,
    the prediction and the decision values (and probabilities) are kept, not the features.

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> X = np.array([[2.0], [1.0], [-1.0]]); y = np.array([1, 1, -1])
    >>> clf = Perceptron(fit_intercept=False, shuffle=False).fit(X, y)
    >>> evaluate_blocks(clf, [(X[:2], y[:2]), (X[2:], y[2:])]) == evaluate(clf, X, y)
    True
    """
    tally = _Tally(model, threshold)
    for X, y, *w in blocks:
        tally.add(X, y, *w)
    return tally.result()


class _Tally:
    """What :func:`evaluate_blocks` adds up: right predictions, agreements, the smallest
    geometric margin, and per example the class, prediction, scores and probabilities."""

    def __init__(self, model, threshold: float | None):
        self.model, self.threshold = model, threshold
        self.n = self.right = 0
        self.z, self.geometric = [], None
        self.multiclass, self.classes = None, None
        self.weights: list | None = None  # each block's example weights, when given
        self.weighted_right = 0.0
        self.y_index, self.predicted, self.scores, self.proba = [], [], [], []

    def add(self, X, y, sample_weight=None) -> None:
        estimator, features = _final_step(self.model, X)
        y, first_row = np.asarray(y), self.n
        self.n += int(y.shape[0])
        scores = np.asarray(estimator.decision_function(features))
        classes = self.classes = np.asarray(estimator.classes_)
        self.multiclass = scores.ndim != 1
        _check_labels(y, classes, first_row)
        predicted = self._predict(X, scores, classes)
        right = predicted == y
        self.right += int(np.count_nonzero(right))
        if sample_weight is not None:
            w = _check_weights(sample_weight, y.shape[0], first_row)
            self.weights = [*(self.weights or []), w]
            self.weighted_right += float(w @ right)
        self.y_index.append(_index(y, classes))
        self.predicted.append(_index(predicted, classes))
        self.scores.append(scores)
        if hasattr(self.model, "predict_proba"):
            self.proba.append(np.asarray(self.model.predict_proba(X), dtype=np.float64))
        if not self.multiclass:
            y_pm = encode_pm(y, classes)
            self.z.append(y_pm * scores)
            self._add_geometric(estimator, features, y_pm)

    def _predict(self, X, scores, classes):
        """The model's predictions, or with a threshold ``classes_[1]`` where
        ``score >= threshold``."""
        if self.threshold is None:
            return np.asarray(self.model.predict(X))
        if self.multiclass:
            raise ValueError(f"evaluate: 'threshold' applies to two-class models; this one"
                             f" has {classes.size} classes (one-vs-rest): leave threshold"
                             " None")
        return classes[(scores >= self.threshold).astype(np.intp)]

    def _add_geometric(self, estimator, features, y_pm) -> None:
        from .theory import geometric_margin

        coef = getattr(estimator, "coef_", None)
        if coef is not None and np.ndim(coef) == 2 and np.shape(coef)[0] == 1:
            b = float(np.ravel(getattr(estimator, "intercept_", [0.0]))[0])
            margin = float(geometric_margin(np.ravel(coef), features, y_pm, b=b))
            self.geometric = margin if self.geometric is None else min(self.geometric, margin)

    def result(self) -> dict[str, Any]:
        from . import losses

        # count / n is what score()'s mean of (prediction == label) gives
        result: dict[str, Any] = {"n_samples": self.n, "accuracy": self.right / self.n}
        if self.threshold is not None:
            result["threshold"] = float(self.threshold)
        weighted: dict[str, Any] = {}
        s = None
        if self.weights is not None:
            s = np.concatenate(self.weights)
            total = float(s.sum())
            if not total > 0:
                raise ValueError("evaluate: every example weight (sample_weight) is 0, so the"
                                 " weighted figures are undefined; give some example a"
                                 " positive weight")
            weighted = {"weight_sum": total, "weighted_accuracy": self.weighted_right / total}
        if self.multiclass:
            result["note"] = (f"{self.classes.size} classes (one-vs-rest): losses and margins"
                              " are reported for two-class models only")
        else:
            z = np.concatenate(self.z)
            result.update(zero_one=float(np.mean(losses.zero_one(z))),
                          hinge=float(np.mean(losses.hinge(z))),
                          logistic=float(np.mean(losses.logistic(z))),
                          min_functional_margin=float(z.min()),
                          mean_functional_margin=float(z.mean()))
            if self.geometric is not None:
                result["geometric_margin"] = self.geometric
            if weighted:
                weighted.update({f"weighted_{name}": float(s @ getattr(losses, name)(z))
                                 / weighted["weight_sum"]
                                 for name in ("zero_one", "hinge", "logistic")})
        scores = scores_of(np.concatenate(self.y_index), np.concatenate(self.predicted),
                           np.concatenate(self.scores), self.classes,
                           np.concatenate(self.proba) if self.proba else None, s)
        return {**result, **weighted, **scores}


def _index(labels, classes) -> np.ndarray:
    """The position of each label in ``classes`` (every label is among them)."""
    order = np.argsort(classes, kind="stable")
    return order[np.searchsorted(classes, labels, sorter=order)]


def scores_of(y: np.ndarray, predicted: np.ndarray, scores: np.ndarray, classes: ArrayLike,
              proba: np.ndarray | None = None,
              sample_weight: np.ndarray | None = None) -> dict[str, Any]:
    """The scores of :mod:`sklearn.metrics` for class indices ``y`` and ``predicted``.

    Parameters
    ----------
    y, predicted : int arrays of shape (n_samples,), positions in ``classes``
    scores : decision values, shape (n_samples,) for two classes (``classes[1]`` positive)
        or (n_samples, n_classes)
    classes : the labels, reported with the per-class figures
    proba : shape (n_samples, n_classes) or None, the model's probabilities
    sample_weight : shape (n_samples,) or None

    Returns
    -------
    dict
        ``balanced_accuracy``; ``precision_macro``, ``recall_macro``, ``f1_macro`` and their
        ``_weighted`` twins (averaged with the classes' supports as weights); for two classes
        ``precision``, ``recall`` and ``f1`` of ``classes[1]``; ``roc_auc`` and
        ``average_precision`` (None where a class has no example, or every example);
        ``log_loss`` and ``brier`` given ``proba``; ``per_class`` (one dict per class:
        ``class``, ``precision``, ``recall``, ``f1``, ``support``), ``classes`` and
        ``confusion_matrix`` (rows: the true class, columns: the predicted, as
        :func:`sklearn.metrics.confusion_matrix`). A class never predicted has precision 0
        (``zero_division=0``).
    """
    import warnings

    from sklearn import metrics

    classes = list(np.asarray(classes).tolist())
    labels = np.arange(len(classes))
    w = sample_weight
    out: dict[str, Any] = {}
    with warnings.catch_warnings():  # a class absent from y: its recall is left out
        warnings.simplefilter("ignore", UserWarning)
        out["balanced_accuracy"] = float(metrics.balanced_accuracy_score(y, predicted,
                                                                         sample_weight=w))
    for average in ("macro", "weighted"):
        p, r, f, _ = metrics.precision_recall_fscore_support(
            y, predicted, labels=labels, average=average, sample_weight=w, zero_division=0.0)
        out.update({f"precision_{average}": float(p), f"recall_{average}": float(r),
                    f"f1_{average}": float(f)})
    p, r, f, support = metrics.precision_recall_fscore_support(
        y, predicted, labels=labels, sample_weight=w, zero_division=0.0)
    if len(classes) == 2:
        out.update(precision=float(p[1]), recall=float(r[1]), f1=float(f[1]))
    out.update(_ranking(y, scores, labels, w))
    if proba is not None:
        out["log_loss"] = float(metrics.log_loss(y, proba, labels=labels, sample_weight=w))
        out["brier"] = brier_score(y, proba, w)
    out["per_class"] = [{"class": c, "precision": float(p[k]), "recall": float(r[k]),
                         "f1": float(f[k]), "support": support[k].item()}
                        for k, c in enumerate(classes)]
    out["classes"] = classes
    out["confusion_matrix"] = metrics.confusion_matrix(
        y, predicted, labels=labels, sample_weight=w).tolist()
    return out


def _ranking(y, scores, labels, w) -> dict[str, float | None]:
    """ROC-AUC and average precision of the decision values: of ``classes[1]`` for two
    classes, else one-vs-rest macro averages; None where some class is absent from ``y`` or
    is all of it (the curve is undefined)."""
    from sklearn import metrics

    counts = np.bincount(y, minlength=labels.size)
    if np.any(counts == 0) or np.any(counts == y.size):
        return {"roc_auc": None, "average_precision": None}
    target = y if scores.ndim == 1 else (y[:, None] == labels[None, :]).astype(np.intp)
    return {"roc_auc": float(metrics.roc_auc_score(target, scores, average="macro",
                                                   sample_weight=w)),
            "average_precision": float(metrics.average_precision_score(
                target, scores, average="macro", sample_weight=w))}


def brier_score(y: np.ndarray, proba: np.ndarray,
                sample_weight: np.ndarray | None = None) -> float:
    """Brier score: the (weighted) mean of ``sum_k (p_k - 1[y = k])^2`` over the examples,
    halved for two classes (the mean of ``(p_1 - 1[y = 1])^2``, as
    :func:`sklearn.metrics.brier_score_loss` scores two classes).

    Examples
    --------
    >>> brier_score(np.array([0, 1, 2]), np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0, 0, 1]]))
    0.16666666666666666
    """
    onehot = y[:, None] == np.arange(proba.shape[1])[None, :]
    per_example = np.sum((proba - onehot) ** 2, axis=1)
    if proba.shape[1] == 2:
        per_example = per_example / 2.0
    return float(np.average(per_example, weights=sample_weight))


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
    unseen = np.setdiff1d(np.unique(y), classes)
    if unseen.size:
        row = first_row + int(np.flatnonzero(~np.isin(y, classes))[0])
        raise ValueError(f"evaluate: labels {[format_label(u) for u in unseen[:5]]} are not"
                         f" among the model's classes {[format_label(c) for c in classes]}"
                         f" (the first at row {row}); evaluate on data labelled with the"
                         " model's classes, or train on data that has these labels too")
