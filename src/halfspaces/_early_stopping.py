"""Stopping ``fit`` on held-out data (``early_stopping=True``), as scikit-learn's SGD.

Before the first epoch, ``fit`` sets aside a stratified ``validation_fraction`` of the rows
(drawn from ``random_state``) and trains on the rest. After each epoch it scores the model
on the held-out rows (accuracy, ``validation_scores_``) and stops once ``n_iter_no_change``
epochs in a row failed to beat the best score so far by ``tol``. The model is the one of
the last epoch, as scikit-learn's (not the best one: keeping that would need a copy of every
learner's state after each epoch). With ``early_stopping=False`` nothing is held out and
``fit`` is unchanged.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._labels import decode_scores, format_label
from ._specs import Bool, Float, Int

#: The parameters, for an estimator's ``_parameter_constraints``.
EARLY_STOPPING_PARAMS = {
    "early_stopping": Bool().about("whether fit stops when a held-out score stops improving"),
    "validation_fraction": Float(low=0, high=1, low_open=True, high_open=True).about(
        "share of the rows held out by early_stopping", "Try validation_fraction=0.1."),
    "n_iter_no_change": Int(low=1).about(
        "epochs without improvement before early_stopping stops", "Try n_iter_no_change=5."),
}


class NoImprovement:
    """The stopping rule: ``update(score)`` is True once ``patience`` scores in a row were
    below ``best + tol``, ``best`` the highest score seen before each of them."""

    def __init__(self, patience: int, tol: float):
        self.patience, self.tol = patience, tol
        self.best, self.count = -np.inf, 0

    def update(self, score: float) -> bool:
        self.count = self.count + 1 if score < self.best + self.tol else 0
        self.best = max(self.best, score)
        return self.count >= self.patience


class HeldOut:
    """The held-out rows of one ``fit`` and its stopping rule; ``stop(estimator)`` scores the
    estimator after an epoch, records it in ``validation_scores_`` and says whether to stop."""

    def __init__(self, X, labels: NDArray, rule: NoImprovement):
        self.X, self.labels, self.rule = X, labels, rule

    def stop(self, estimator) -> bool:
        predicted = decode_scores(estimator._decision(self.X), estimator.classes_)
        score = float(np.mean(predicted == self.labels))
        estimator.validation_scores_.append(score)
        return self.rule.update(score)


def hold_out(estimator, X, y_pm: NDArray, rng, s: NDArray | None = None,
             tol: float = 1e-3):
    """``(X, y_pm, s, held_out)``: with ``early_stopping``, the training part of the
    validated ``X``, of its labels ``y_pm`` (as ``encode_pm`` gives them) and of its example
    weights ``s`` (or None), and a :class:`HeldOut` of the rest (scored unweighted);
    otherwise ``X``, ``y_pm`` and ``s`` unchanged and None."""
    if not getattr(estimator, "early_stopping", False):
        estimator.__dict__.pop("validation_scores_", None)
        return X, y_pm, s, None
    classes = estimator.classes_
    labels = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, classes)
    n_held = int(np.ceil(estimator.validation_fraction * labels.size))
    counts = np.array([np.count_nonzero(labels == c) for c in classes])
    if n_held < classes.size or labels.size - n_held < classes.size or counts.min() < 2:
        rare = classes[int(np.argmin(counts))]
        raise ValueError(
            f"{type(estimator).__name__}: early_stopping=True holds out"
            f" validation_fraction={estimator.validation_fraction} of the {labels.size} rows"
            f" ({n_held}), stratified by class, so it needs at least one row of each of the"
            f" {classes.size} classes on each side (and 2 rows of each class; class"
            f" {format_label(rare)!r} has {counts.min()}). Raise validation_fraction, add"
            " rows, or use early_stopping=False.")
    from sklearn.model_selection import train_test_split

    train, held = train_test_split(np.arange(labels.size), test_size=n_held, stratify=labels,
                                   random_state=rng)
    train.sort()
    estimator.validation_scores_ = []
    y_train = y_pm[..., train]
    rule = NoImprovement(int(estimator.n_iter_no_change), tol)
    return (X[train], y_train, None if s is None else s[train],
            HeldOut(X[held], labels[held], rule))
