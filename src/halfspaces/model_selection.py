"""Choosing ``C`` (or ``lam``) by cross-validation along a warm-started path.

For each fold of a stratified K-fold split, one estimator with ``warm_start`` fits the values
of the regularization parameter in turn, from the strongest regularization (smallest ``C``,
largest ``lam``) to the weakest, each fit starting from the previous solution (LIBLINEAR's
``-C`` search does so). Warm starts change where a solver starts, not where it stops: an
:class:`~halfspaces.SVC` fit still ends at a certified duality gap (or in the QP). The scores
of the held-out rows give a mean and a spread per value; :class:`SVCCV` refits the best value
on every row, as scikit-learn's ``LogisticRegressionCV`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base import ClassifierBase, check_is_fitted
from ._labels import check_classes
from ._validation import param_error, validate_X_y
from .metrics import LOWER_IS_BETTER, SCORES, evaluate

__all__ = ["PathScores", "SVCCV", "path_scores", "refit_best"]


@dataclass(frozen=True)
class PathScores:
    """What :func:`path_scores` found.

    ``values`` as given; ``scores[k, j]``: fold ``k``'s held-out score of ``values[j]``;
    ``mean``, ``std`` (over folds, as ``GridSearchCV``'s ``std_test_score``); ``best``: the
    index of the best mean (the first of equal ones; the smallest for a loss);
    ``relative_gaps[k, j]``: the fit's duality gap over its objective (nan where the
    estimator reports none), the largest over one-vs-rest problems; ``n_iter[k, j]``;
    ``by_qp``: the indices of the values that ``solver="auto"`` gave to the QP."""

    param: str
    values: list
    scores: NDArray[np.float64]
    mean: NDArray[np.float64]
    std: NDArray[np.float64]
    best: int
    greater_is_better: bool
    relative_gaps: NDArray[np.float64]
    n_iter: NDArray[np.float64]
    by_qp: frozenset = frozenset()


def path_scores(estimator: Any, X: ArrayLike, y: ArrayLike, param: str, values, *, cv=5,
                scoring=None, sample_weight: ArrayLike | None = None,
                random_state=None) -> PathScores:
    """Held-out scores of ``estimator`` with ``param`` set to each of ``values``.

    Parameters
    ----------
    estimator : an unfitted classifier; with a ``warm_start`` parameter, each fold's fits
        along the path start from the previous one.
    X, y : the data; ``sample_weight`` (optional) goes to every fit and, for the figures of
        :func:`halfspaces.metrics.evaluate`, to the held-out scores.
    param : ``"C"``, ``"lam"`` or another parameter; the path runs from the smallest value
        to the largest, or for ``"lam"`` from the largest to the smallest.
    cv : int or a scikit-learn splitter
        An int ``k`` is ``StratifiedKFold(k, shuffle=True, random_state=random_state)``.
    scoring : None (accuracy), a figure of :func:`halfspaces.metrics.evaluate`
        (``"balanced_accuracy"``, ``"f1_macro"``, ``"roc_auc"``, ``"log_loss"``, ...; losses
        are best when smallest), a scikit-learn scorer name, or a callable
        ``scorer(estimator, X, y)``.

    Examples
    --------
    >>> from halfspaces import SVC
    >>> from halfspaces.datasets import make_separable
    >>> X, y = make_separable(n_samples=60, margin=0.1, random_state=0)
    >>> found = path_scores(SVC(solver="dcd"), X, y, "C", [0.01, 1.0], cv=3, random_state=0)
    >>> found.scores.shape, bool(np.nanmax(found.relative_gaps) <= 1e-6)
    ((3, 2), True)
    """
    from sklearn.base import clone

    values = _check_values(param, values)
    score, greater_is_better = _scorer(scoring)
    y = np.asarray(y)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    splits = list(_splitter(cv, random_state).split(X, y))
    order = sorted(range(len(values)), key=lambda j: values[j], reverse=param == "lam")
    shape = (len(splits), len(values))
    scores, gaps, n_iter = np.empty(shape), np.full(shape, np.nan), np.full(shape, np.nan)
    warm = {"warm_start": True} if "warm_start" in estimator.get_params() else {}
    # SVC(solver="auto") hands a problem to the QP when DCD runs out of epochs: the same
    # value on the other folds (three quarters the same rows) goes to the QP directly
    auto = estimator.get_params().get("solver") == "auto"
    by_qp: set[int] = set()
    for k, (train, test) in enumerate(splits):
        fitted = clone(estimator).set_params(**warm)
        weights = {} if w is None else {"sample_weight": w[train]}
        for j in order:
            solver = {"solver": "qp" if j in by_qp else "auto"} if auto else {}
            fitted.set_params(**{param: values[j]}, **solver).fit(X[train], y[train],
                                                                   **weights)
            if auto and getattr(fitted, "solver_", None) == "qp":
                by_qp.add(j)
            scores[k, j] = score(fitted, X[test], y[test], None if w is None else w[test])
            gaps[k, j] = _relative_gap(fitted)
            n_iter[k, j] = np.max(getattr(fitted, "n_iter_", np.nan))
    mean = scores.mean(axis=0)
    best = int(np.argmax(mean) if greater_is_better else np.argmin(mean))
    return PathScores(param, values, scores, mean, scores.std(axis=0), best,
                      greater_is_better, gaps, n_iter, frozenset(by_qp))


def refit_best(estimator: Any, X: ArrayLike, y: ArrayLike, found: PathScores,
               sample_weight: ArrayLike | None = None):
    """A copy of ``estimator`` with the best value of ``found`` fitted on every row (by the
    QP where ``solver="auto"`` gave that value to the QP on the folds)."""
    from sklearn.base import clone

    params = {found.param: found.values[found.best]}
    if found.best in found.by_qp:
        params["solver"] = "qp"
    weights = {} if sample_weight is None else {"sample_weight": sample_weight}
    return clone(estimator).set_params(**params).fit(X, y, **weights)


def _check_values(param: str, values) -> list:
    values = list(np.ravel(np.asarray(values, dtype=np.float64)).tolist())
    if not values or not all(np.isfinite(v) and v > 0 for v in values):
        raise param_error("path_scores", param, "a non-empty list of finite numbers > 0",
                          values, "e.g. [0.01, 0.1, 1, 10, 100]")
    return values


def _splitter(cv, random_state):
    from sklearn.model_selection import StratifiedKFold, check_cv

    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if cv < 2:
            raise param_error("path_scores", "cv", "an int >= 2 (the number of folds) or a"
                              " scikit-learn splitter", cv, "e.g. cv=5")
        return StratifiedKFold(int(cv), shuffle=True, random_state=random_state)
    return check_cv(cv, classifier=True)


def _scorer(scoring):
    """``(score(estimator, X, y, sample_weight), greater_is_better)``."""
    if scoring is None:
        scoring = "accuracy"
    if callable(scoring):
        return (lambda est, X, y, w: float(scoring(est, X, y))), True
    if scoring in SCORES:
        return _evaluate_scorer(scoring), scoring not in LOWER_IS_BETTER
    from sklearn.metrics import get_scorer

    try:
        scorer = get_scorer(scoring)
    except ValueError:
        raise param_error("path_scores", "scoring", "a figure of halfspaces.metrics.evaluate"
                          f" ({', '.join(sorted(SCORES))}), a scikit-learn scorer name or a"
                          " callable", scoring) from None
    return (lambda est, X, y, w: float(scorer(est, X, y))), True


def _evaluate_scorer(name: str):
    if name in ("accuracy", "balanced_accuracy"):  # from the predictions alone
        from sklearn.metrics import accuracy_score, balanced_accuracy_score

        of = accuracy_score if name == "accuracy" else balanced_accuracy_score
        # evaluate's accuracy is unweighted, its balanced accuracy weighted
        return lambda est, X, y, w: float(of(y, est.predict(X), sample_weight=None if
                                             name == "accuracy" else w))

    def score(estimator, X, y, sample_weight):
        value = evaluate(estimator, X, y, sample_weight).get(name)
        if value is None:
            raise ValueError(f"scoring {name!r} is undefined on a held-out fold: the model"
                             " does not give it (log_loss and brier need probabilities;"
                             " losses and margins, two classes), or a class has no example"
                             " there, or is all of it; use another scoring or fewer folds")
        return float(value)

    return score


def _relative_gap(estimator) -> float:
    gap, objective = (getattr(estimator, name, None) for name in ("duality_gap_", "objective_"))
    if gap is None or objective is None:
        return np.nan
    return float(np.max(np.asarray(gap) / np.maximum(np.abs(objective), np.finfo(float).tiny)))


class SVCCV(ClassifierBase):
    """:class:`~halfspaces.SVC` with ``C`` chosen by cross-validation along a warm-started
    path (as scikit-learn's ``LogisticRegressionCV`` chooses its ``C``).

    Each fold fits the ``Cs`` from the smallest to the largest, each fit starting from the
    previous dual solution and stopping, as a cold fit does, at a certified duality gap
    (see :func:`path_scores`); the ``C`` of the best mean held-out score is then refitted on
    every row. The fitted estimator predicts with that refit.

    Parameters
    ----------
    Cs : sequence of float > 0, default=(0.01, 0.1, 1, 10, 100)
    cv : int or scikit-learn splitter, default=5
        An int ``k``: ``StratifiedKFold(k, shuffle=True, random_state=random_state)``.
    scoring : str, callable or None, default=None
        As :func:`path_scores`: accuracy, a figure of :func:`halfspaces.metrics.evaluate`
        (``"balanced_accuracy"``, ``"roc_auc"``, ...), a scikit-learn scorer name or a
        callable ``scorer(estimator, X, y)``.
    loss, fit_intercept, class_weight, tol, max_iter, solver, random_state :
        As :class:`~halfspaces.SVC`'s (``random_state`` also shuffles the folds).

    Attributes
    ----------
    C_ : float, the chosen ``C``
    best_score_ : float, its mean held-out score
    best_estimator_ : SVC refitted on every row with ``C_``
    cv_results_ : dict, as ``GridSearchCV``'s: ``param_C``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, ``splitK_test_score``, and
        ``relative_duality_gap`` (the largest of each ``C``'s fold fits)
    scores_ : ndarray of shape (n_folds, n_Cs)
    max_relative_duality_gap_ : float, over every fit (the folds' and the refit)
    classes_, coef_, intercept_, n_features_in_, n_iter_ : those of ``best_estimator_``

    Examples
    --------
    >>> from halfspaces.datasets import make_separable
    >>> X, y = make_separable(n_samples=80, margin=0.1, random_state=1)
    >>> model = SVCCV(Cs=[0.01, 1.0], cv=4, random_state=0).fit(X, y)
    >>> model.C_ in (0.01, 1.0), model.score(X, y) == model.best_estimator_.score(X, y)
    (True, True)
    """

    def __init__(self, Cs=(0.01, 0.1, 1.0, 10.0, 100.0), *, cv=5, scoring=None,
                 loss: str = "hinge", fit_intercept: bool = True, class_weight=None,
                 tol: float = 1e-4, max_iter: int = 1000, solver: str = "auto",
                 random_state=None):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.random_state = random_state

    def _svc(self):
        from .linear.svm import SVC

        return SVC(loss=self.loss, fit_intercept=self.fit_intercept,
                   class_weight=self.class_weight, tol=self.tol, max_iter=self.max_iter,
                   solver=self.solver, random_state=self.random_state)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> SVCCV:
        """Score every ``C`` on the folds, then refit the best on all of ``(X, y)``."""
        X, y = validate_X_y(self, X, y, reset=True)
        check_classes("SVCCV", y, None)
        X, y = _as_arrays(X, y)
        found = path_scores(self._svc(), X, y, "C", self.Cs, cv=self.cv,
                            scoring=self.scoring, sample_weight=sample_weight,
                            random_state=self.random_state)
        self.scores_ = found.scores
        self.C_ = found.values[found.best]
        self.best_score_ = float(found.mean[found.best])
        self.cv_results_ = _cv_results(found)
        self.best_estimator_ = refit_best(self._svc(), X, y, found, sample_weight)
        self.max_relative_duality_gap_ = float(np.nanmax(
            [np.nanmax(found.relative_gaps), _relative_gap(self.best_estimator_)]))
        for name in ("classes_", "coef_", "intercept_", "n_features_in_", "n_iter_"):
            setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _expected_failed_checks(self) -> dict[str, str]:
        """The folds split rows: ``k`` copies of a row fall in several folds where one row
        of weight ``k`` falls in one, so the scores, and the ``C`` chosen, differ (as for
        scikit-learn's ``LogisticRegressionCV``)."""
        reason = "k copies of a row fall in several folds, a weighted row in one"
        return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                              "check_sample_weight_equivalence_on_sparse_data"), reason)

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The refitted SVC's ``theta.x + theta_0``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """The refitted SVC's labels."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)


def _as_arrays(X, y):
    """``X`` as CSR or a dense array that rows can index, ``y`` as an array."""
    import scipy.sparse as sp

    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
    return X, np.asarray(y)


def _cv_results(found: PathScores) -> dict[str, Any]:
    from scipy.stats import rankdata

    signed = found.mean if found.greater_is_better else -found.mean
    results = {"param_C": np.asarray(found.values), "mean_test_score": found.mean,
               "std_test_score": found.std,
               "rank_test_score": rankdata(-signed, method="min").astype(np.int32),
               "relative_duality_gap": np.nanmax(found.relative_gaps, axis=0)}
    for k, row in enumerate(found.scores):
        results[f"split{k}_test_score"] = row
    return results
