"""model_selection: the warm-started path scores as cold fits on the same folds do, SVCCV
chooses C as GridSearchCV(SVC) does, and both work inside scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from halfspaces import SVC, PegasosSVC
from halfspaces.model_selection import SVCCV, path_scores

CS = [0.01, 0.3, 2.0]


def _imbalanced(n=120, d=6, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 0.3
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.7 * rng.normal(size=n) > 1.3, 1, -1)
    return (sp.csr_matrix(X) if sparse else X), y, rng.uniform(0.2, 3.0, size=n)


def _cold_scores(X, y, splits, w=None, **params):
    """Each fold and C fitted from scratch, scored by sklearn's balanced accuracy."""
    out = np.empty((len(splits), len(CS)))
    for k, (train, test) in enumerate(splits):
        for j, C in enumerate(CS):
            fit_w = {} if w is None else {"sample_weight": w[train]}
            model = SVC(C=C, random_state=0, **params).fit(X[train], y[train], **fit_w)
            out[k, j] = balanced_accuracy_score(y[test], model.predict(X[test]),
                                                sample_weight=None if w is None else w[test])
    return out


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_the_warm_path_scores_as_cold_fits_do(weighted, class_weight):
    X, y, w = _imbalanced(sparse=True)
    w = w if weighted else None
    cv = StratifiedKFold(4, shuffle=True, random_state=3)
    params = {"class_weight": class_weight}  # sparse: DCD, the QP where DCD runs out
    found = path_scores(SVC(random_state=0, **params), X, y, "C", CS, cv=cv,
                        scoring="balanced_accuracy", sample_weight=w)
    cold = _cold_scores(X, y, list(cv.split(X, y)), w, **params)
    # both stop within a relative gap of 1e-6 of the optimum: at most one held-out example
    # near the boundary may fall on the other side
    assert np.abs(found.scores - cold).max() <= 1 / 30
    assert np.mean(found.scores == cold) >= 0.9
    assert np.nanmax(found.relative_gaps) <= 1e-6
    assert found.mean == pytest.approx(found.scores.mean(axis=0))
    assert found.std == pytest.approx(found.scores.std(axis=0))


def test_svccv_chooses_c_as_gridsearchcv_of_svc():
    X, y, _ = _imbalanced(seed=1, sparse=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = SVCCV(Cs=CS, cv=cv, scoring="balanced_accuracy", class_weight="balanced",
                 random_state=0).fit(X, y)
    grid = GridSearchCV(SVC(class_weight="balanced", random_state=0),
                        {"C": CS}, cv=cv, scoring="balanced_accuracy").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], atol=1 / 50)
    assert ours.C_ == grid.best_params_["C"]
    assert ours.max_relative_duality_gap_ <= 1e-6
    np.testing.assert_allclose(ours.decision_function(X),
                               grid.best_estimator_.decision_function(X), atol=1e-3)
    assert list(ours.cv_results_["rank_test_score"]) == \
        list(grid.cv_results_["rank_test_score"])


def test_svccv_works_inside_gridsearchcv_and_clone():
    X, y, _ = _imbalanced(n=120, seed=2)
    search = GridSearchCV(SVCCV(Cs=[0.1, 1.0], cv=3, random_state=0),
                          {"class_weight": [None, "balanced"]}, cv=3).fit(X, y)
    assert search.best_estimator_.C_ in (0.1, 1.0)
    assert clone(SVCCV(Cs=[1.0], cv=4)).get_params()["cv"] == 4


def test_plain_svc_with_warm_start_in_gridsearchcv_is_the_cold_search():
    X, y, _ = _imbalanced(n=120, seed=4)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    warm = GridSearchCV(SVC(solver="dcd", warm_start=True, random_state=0), {"C": CS}, cv=cv)
    cold = GridSearchCV(SVC(solver="dcd", random_state=0), {"C": CS}, cv=cv)
    np.testing.assert_allclose(warm.fit(X, y).cv_results_["mean_test_score"],
                               cold.fit(X, y).cv_results_["mean_test_score"])


def test_a_lam_path_runs_from_the_largest_lam():
    """Pegasos warm-started along lam = 1e-1, 1e-2 (largest first) is the same as fitting
    each fold's pair in that order by hand."""
    X, y, _ = _imbalanced(n=100, seed=5)
    cv = StratifiedKFold(2, shuffle=True, random_state=0)
    lams = [1e-2, 1e-1]
    found = path_scores(PegasosSVC(random_state=0, max_iter=3), X, y, "lam", lams, cv=cv)
    for k, (train, test) in enumerate(cv.split(X, y)):
        model = PegasosSVC(random_state=0, max_iter=3, warm_start=True)
        expected = {}
        for lam in (1e-1, 1e-2):
            model.set_params(lam=lam).fit(X[train], y[train])
            expected[lam] = np.mean(model.predict(X[test]) == y[test])
        assert found.scores[k].tolist() == [expected[1e-2], expected[1e-1]]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"scoring": "nonsense"}, "'scoring' must be a figure of halfspaces.metrics.evaluate"),
    ({"cv": 1}, "'cv' must be an int >= 2"),
])
def test_bad_parameters_are_named(kwargs, message):
    X, y, _ = _imbalanced(n=60, seed=6)
    with pytest.raises(ValueError, match=message):
        path_scores(SVC(), X, y, "C", [1.0], **kwargs)
    with pytest.raises(ValueError, match="'C' must be a non-empty list of finite numbers"):
        path_scores(SVC(), X, y, "C", [1.0, -2.0])
