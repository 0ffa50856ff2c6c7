"""Probabilities for the margin classifiers by Platt scaling (``probability=True``).

Platt (1999) fits ``P(y = +1 | f) = 1/(1 + exp(A f + B))`` to decision values ``f_i``,
minimising the cross-entropy against the smoothed targets ``t_i = (N_+ + 1)/(N_+ + 2)``
(positive rows), ``1/(N_- + 2)`` (negative rows), which keep a separable set from driving
``A`` to infinity; by the Newton method of Lin, Lin and Weng (2007), which stays finite for
any ``A f + B``, started as LIBSVM does from ``A = 0``, ``B = log((N_- + 1)/(N_+ + 1))``.

The ``f_i`` are held out: ``N_FOLDS`` stratified folds shuffled by ``random_state``, a copy
of the estimator (``probability=False``) fitted on the other folds scoring each. Then, by
``ensemble``: ``True`` (scikit-learn's ``CalibratedClassifierCV(method="sigmoid")``) keeps
each fold's model with its own sigmoid, fitted to its held-out scores (weighted by
``sample_weight``, as scikit-learn), and ``predict_proba`` averages the fold models'
probabilities (``fold_coef_``, ``fold_intercept_``, ``fold_probA_``, ``fold_probB_``);
``False`` (LIBSVM's ``-b 1``) fits one sigmoid to all held-out scores, unweighted, and
applies it to the model fitted on all rows (``probA_``, ``probB_``), whose scores may be on
another scale than the fold models'; ``"auto"`` is ``True`` where the fold models can be
stored (a linear model's weights), else ``False`` (the voted perceptron, kernel models).

With more than two classes each one-vs-rest score gets its own sigmoid and each row is
divided by its sum (scikit-learn's normalisation). ``predict`` stays the model fitted on
all rows, so it may disagree with the argmax of ``predict_proba``, as in LIBSVM's SVC.

References
----------
Platt (1999), "Probabilistic outputs for support vector machines and comparisons to
regularized likelihood methods". Lin, Lin and Weng (2007), "A note on Platt's
probabilistic outputs for support vector machines", Machine Learning 68.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base import available_if, check_is_fitted
from ._labels import decode_scores, format_label
from ._params import FOLD_ATTRS
from ._validation import param_error, validate_X

#: Folds of the held-out decision values (LIBSVM's ``-b 1`` uses 5).
N_FOLDS = 5


def _neg_log_likelihood(f: NDArray, t: NDArray, s: NDArray, A: float, B: float) -> float:
    """``sum_i s_i (-t_i log p_i - (1 - t_i) log(1 - p_i))`` with
    ``p_i = 1/(1 + exp(A f_i + B))``, written so that no ``exp`` overflows (Lin, Lin and
    Weng's form)."""
    z = A * f + B
    return float(np.sum(s * (np.where(z >= 0, t * z, (t - 1.0) * z)
                             + np.log1p(np.exp(-np.abs(z))))))


def platt_sigmoid(f: ArrayLike, y: ArrayLike, *, sample_weight: ArrayLike | None = None,
                  max_iter: int = 100, tol: float = 1e-5) -> tuple[float, float]:
    """Fit Platt's sigmoid ``P(y=+1 | f) = 1/(1 + exp(A f + B))``; returns ``(A, B)``.

    Parameters
    ----------
    f : array of shape (n,), decision values (held-out ones, for calibrated probabilities)
    y : array of shape (n,), labels in {-1, +1}
    sample_weight : array of shape (n,) or None, each row's weight in the cross-entropy and
        in the class counts ``N_+``, ``N_-`` (scikit-learn's weighted sigmoid); None for 1
    max_iter : int, most Newton steps
    tol : float, stop when both gradient components are below it (in absolute value)

    Notes
    -----
    Newton's method on the convex cross-entropy with Platt's smoothed targets, the Hessian
    kept positive definite by adding ``1e-12`` to its diagonal and each step halved until
    it decreases the objective enough (Armijo with ``1e-4``), as in Lin, Lin and Weng (2007).

    Examples
    --------
    >>> A, B = platt_sigmoid([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], [-1, -1, 1, -1, 1, 1])
    >>> bool(A < 0), round(B, 6) + 0.0
    (True, 0.0)
    """
    f = np.asarray(f, dtype=np.float64)
    positive = np.asarray(y) > 0
    s = (np.ones(f.size) if sample_weight is None
         else np.asarray(sample_weight, dtype=np.float64))
    n_pos = float(s[positive].sum())
    n_neg = float(s[~positive].sum())
    t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = _neg_log_likelihood(f, t, s, A, B)
    for _ in range(max_iter):
        z = A * f + B
        p = np.exp(-np.logaddexp(0.0, z))  # 1/(1 + e^z) without overflow
        q = np.exp(-np.logaddexp(0.0, -z))  # 1 - p
        d2 = s * p * q
        h11, h22, h21 = float(f * f @ d2) + 1e-12, float(d2.sum()) + 1e-12, float(f @ d2)
        d1 = s * (t - p)
        g1, g2 = float(f @ d1), float(d1.sum())
        if abs(g1) < tol and abs(g2) < tol:
            break
        det = h11 * h22 - h21 * h21
        dA, dB = -(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det
        slope = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-10:
            new = _neg_log_likelihood(f, t, s, A + step * dA, B + step * dB)
            if new < value + 1e-4 * step * slope:
                A, B, value = A + step * dA, B + step * dB, new
                break
            step /= 2.0
        else:  # no step decreases the objective: (A, B) is as good as floating point gets
            break
    return A, B


def sigmoid_proba(scores: NDArray, A: NDArray, B: NDArray) -> NDArray[np.float64]:
    """Per-problem probabilities ``1/(1 + exp(A_k s_k + B_k))`` of scores ``(n,)`` or
    ``(n, K)``; returns ``(n, 2)`` or ``(n, K)`` rows that sum to 1."""
    if scores.ndim == 1:
        p = np.exp(-np.logaddexp(0.0, A[0] * scores + B[0]))
        return np.column_stack([1.0 - p, p])
    p = np.exp(-np.logaddexp(0.0, A * scores + B))
    total = p.sum(axis=1, keepdims=True)
    # every sigmoid underflowed to 0: nothing to prefer, so uniform (as scikit-learn does)
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / p.shape[1])


def _ensemble(estimator) -> bool:
    """``estimator.ensemble`` resolved: ``"auto"`` is whether the estimator can store its
    fold models; ``True`` where it cannot is refused."""
    can = estimator._stores_fold_models()
    ensemble = getattr(estimator, "ensemble", False)
    if ensemble == "auto":
        return can
    if ensemble and not can:
        raise param_error(type(estimator).__name__, "ensemble", "False or 'auto' for this"
                          f" model ({estimator._fold_models_refused()})", ensemble,
                          "Use ensemble=False: one sigmoid on the held-out scores, applied"
                          " to the model fitted on all rows.")
    return bool(ensemble)


def ensemble_is_stored(estimator) -> None:
    """A ``_parameter_rules`` check: ``ensemble=True`` with ``probability=True`` only where
    the fold models can be stored."""
    if estimator.probability:
        _ensemble(estimator)


def fit_probability(estimator, X, y_pm: NDArray, sample_weight: NDArray | None = None):
    """After ``estimator.fit`` on validated ``X`` with labels ``y_pm`` (as ``encode_pm``
    gives them) and ``sample_weight`` (or None): when ``estimator.probability``, fit the
    models of the held-out folds and their sigmoids (see the module). With ``ensemble``
    it stores the fold models and their sigmoids (:data:`FOLD_ATTRS`), else one sigmoid per
    binary problem as ``probA_``, ``probB_``. Returns ``estimator``.

    The fold fits take the rows' weights."""
    for stale in ("probA_", "probB_", *FOLD_ATTRS):
        estimator.__dict__.pop(stale, None)
    if not getattr(estimator, "probability", False):
        return estimator
    ensemble = _ensemble(estimator)
    classes = estimator.classes_
    labels = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, classes)
    counts = np.array([np.count_nonzero(labels == c) for c in classes])
    if counts.min() < N_FOLDS:
        rare = classes[int(np.argmin(counts))]
        raise ValueError(
            f"{type(estimator).__name__}: probability=True fits Platt's sigmoid on {N_FOLDS}"
            f" held-out folds, so it needs at least {N_FOLDS} rows of each class; class"
            f" {format_label(rare)!r} has {counts.min()}. Add rows of that class or use"
            " probability=False.")
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=estimator.random_state)
    targets = [y_pm] if y_pm.ndim == 1 else list(y_pm)
    held_out = np.zeros((labels.size, len(targets)))
    fold_models = []
    for train, test in folds.split(np.zeros(labels.size), labels):
        with warnings.catch_warnings():  # the fit on all rows warns of what matters, once
            warnings.simplefilter("ignore")
            part = clone(estimator).set_params(probability=False)
            if sample_weight is None:
                part.fit(X[train], labels[train])
            else:
                part.fit(X[train], labels[train], sample_weight=sample_weight[train])
        held_out[test] = part.decision_function(X[test]).reshape(test.size, -1)
        if ensemble:
            s = None if sample_weight is None else sample_weight[test]
            sigmoids = [platt_sigmoid(held_out[test, k], y_k[test], sample_weight=s)
                        for k, y_k in enumerate(targets)]
            fold_models.append((part.coef_, part.intercept_, sigmoids))
    if ensemble:
        estimator.fold_coef_ = np.stack([coef for coef, _, _ in fold_models])
        estimator.fold_intercept_ = np.stack([b for _, b, _ in fold_models])
        estimator.fold_probA_ = np.array([[a for a, _ in fit] for _, _, fit in fold_models])
        estimator.fold_probB_ = np.array([[b for _, b in fit] for _, _, fit in fold_models])
        return estimator
    fitted = [platt_sigmoid(held_out[:, k], y_k) for k, y_k in enumerate(targets)]
    estimator.probA_ = np.array([a for a, _ in fitted])
    estimator.probB_ = np.array([b for _, b in fitted])
    return estimator


class ProbabilityMixin:
    """``predict_proba`` from what :func:`fit_probability` stored; absent (an
    AttributeError, as scikit-learn's SVC) unless ``probability=True``.

    A linear model (``coef_``, ``intercept_``) stores its fold models; a class that cannot
    overrides :meth:`_fold_models_refused`."""

    def _fold_models_refused(self) -> str | None:
        """Why this model cannot store its fold models (``ensemble=True``), or None."""
        return None

    def _stores_fold_models(self) -> bool:
        return self._fold_models_refused() is None

    def _has_probability(self) -> bool:
        if not self.probability:
            raise AttributeError(
                f"{type(self).__name__}: predict_proba is available with probability=True"
                " (Platt scaling fitted on held-out folds); refit with probability=True.")
        return True

    @available_if(_has_probability)
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Probability of each class in ``classes_`` order, by Platt scaling of the scores
        (see :mod:`halfspaces.calibration`): the average over the calibrated fold models
        (``ensemble``), or the sigmoid of this model's scores; shape
        ``(n, n_classes)``."""
        check_is_fitted(self)
        if "fold_coef_" in self.__dict__:
            X = validate_X(self, X, reset=False)
            total = 0.0
            for W, b, A, B in zip(self.fold_coef_, self.fold_intercept_, self.fold_probA_,
                                  self.fold_probB_, strict=True):
                scores = np.asarray(X @ W.T) + b
                total = total + sigmoid_proba(scores.ravel() if W.shape[0] == 1 else scores,
                                              A, B)
            return total / len(self.fold_coef_)
        if not hasattr(self, "probA_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                f"{type(self).__name__}: predict_proba needs the sigmoids that fit fits with"
                " probability=True; partial_fit does not fit them. Call fit first.")
        return sigmoid_proba(self.decision_function(X), self.probA_, self.probB_)
