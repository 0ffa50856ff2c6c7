"""early_stopping=True: the stopping rule against a NumPy reference written from its
statement, and a perceptron fit against a NumPy perceptron that holds out the same rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from strategies import make_noisy

from halfspaces import AveragedPerceptron, PegasosSVC, Perceptron, VotedPerceptron, load
from halfspaces._early_stopping import NoImprovement


def reference_stop(scores, patience, tol):
    """The first epoch (1-based) after which each of the last ``patience`` scores was below
    ``tol`` plus the best score before it; None if there is none."""
    scores = np.asarray(scores, dtype=float)
    best_before = np.maximum.accumulate(np.r_[-np.inf, scores])[:-1]
    worse = scores < best_before + tol
    for e in range(patience, scores.size + 1):
        if worse[e - patience:e].all():
            return e
    return None


@given(st.lists(st.sampled_from([0.5, 0.6, 0.6005, 0.7, 0.8, 0.9]), max_size=30),
       st.integers(1, 6), st.sampled_from([0.0, 1e-3, 0.15]))
def test_no_improvement_matches_its_statement(scores, patience, tol):
    rule = NoImprovement(patience, tol)
    stopped = next((e for e, s in enumerate(scores, 1) if rule.update(s)), None)
    assert stopped == reference_stop(scores, patience, tol)


def reference_perceptron(X, y, X_val, y_val, max_iter, patience, tol=1e-3, s=None):
    """Cyclic perceptron with offset over X in order, each update scaled by its example's
    weight (a weight of 0: no round); held-out accuracy after each epoch."""
    w, b, scores = np.zeros(X.shape[1]), 0.0, []
    s = np.ones(y.size) if s is None else s
    for _ in range(max_iter):
        mistakes = 0
        for x_t, y_t, s_t in zip(X, y, s, strict=True):
            if y_t * (w @ x_t + b) <= 0 and s_t > 0:
                w, b, mistakes = w + (s_t * y_t) * x_t, b + s_t * y_t, mistakes + 1
        scores.append(float(np.mean(np.where(X_val @ w + b >= 0, 1, -1) == y_val)))
        if mistakes == 0 or reference_stop(scores, patience, tol) == len(scores):
            break
    return w, b, scores


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_perceptron_stops_as_the_reference(seed, weighted):
    X, y01 = make_noisy(120, 4, seed, noise=0.5)
    y = np.where(y01 == 1, 1.0, -1.0)
    s = np.random.default_rng(seed).integers(0, 4, y.size).astype(float) if weighted else None
    train, held = train_test_split(np.arange(y.size), test_size=12, stratify=y,
                                   random_state=np.random.RandomState(seed))
    train.sort()
    w, b, scores = reference_perceptron(X[train], y[train], X[held], y[held], 50, 3,
                                        s=None if s is None else s[train])
    clf = Perceptron(shuffle=False, early_stopping=True, n_iter_no_change=3, max_iter=50,
                     random_state=seed).fit(X, y01, sample_weight=s)
    assert clf.validation_scores_ == scores
    assert clf.n_iter_ == len(scores) < 50  # stopped early, not at max_iter
    np.testing.assert_array_equal(clf.coef_[0], w)
    assert clf.intercept_[0] == b


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_early_stopping_on_the_family_and_multiclass(cls, tmp_path):
    X, y = make_noisy(150, 3, 1, noise=1.0)
    y = y + (X[:, 0] > 1)  # three classes
    clf = cls(early_stopping=True, validation_fraction=0.2, random_state=0).fit(X, y)
    assert len(clf.validation_scores_) == clf.n_iter_ < clf.max_iter
    # the last score is the returned model's on the rows the seed holds out
    _, held = train_test_split(np.arange(y.size), test_size=30, stratify=y,
                               random_state=np.random.RandomState(0))
    assert clf.score(X[held], y[held]) == clf.validation_scores_[-1]
    clf.save(tmp_path / "m.npz")
    assert load(tmp_path / "m.npz").validation_scores_ == clf.validation_scores_


def test_without_early_stopping_nothing_is_held_out():
    X, y = make_noisy(60, 3, 2, noise=0.5)
    clf = Perceptron(early_stopping=True, random_state=0).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter=100 passes"):  # no early stop
        clf.set_params(early_stopping=False).fit(X, y)
    assert not hasattr(clf, "validation_scores_")
    assert clf.t_ == 60 * clf.n_iter_


def test_too_small_a_held_out_set_is_a_clear_error():
    X, y = make_noisy(20, 2, 0)
    with pytest.raises(ValueError, match=r"Perceptron: early_stopping=True holds out"
                                         r" validation_fraction=0\.05 of the 20 rows \(1\),"
                                         r" .*Raise validation_fraction"):
        Perceptron(early_stopping=True, validation_fraction=0.05).fit(X, y)
    with pytest.raises(ValueError, match=r"'validation_fraction' must be a float > 0 and < 1"):
        Perceptron(early_stopping=True, validation_fraction=1.0).fit(X, y)


@pytest.mark.parametrize("seed", range(2))
def test_pegasos_stops_as_pegasos_on_the_training_rows(seed):
    """Each held-out score is the accuracy of a Pegasos fitted, without early stopping, for
    that many epochs on the training rows with the generator the split left behind."""
    X, y = make_noisy(100, 4, seed, noise=1.0)

    def split_then(max_iter):
        rng = np.random.RandomState(seed)
        train, held = train_test_split(np.arange(y.size), test_size=10, stratify=y,
                                       random_state=rng)
        train.sort()
        clf = PegasosSVC(lam=0.1, max_iter=max_iter, average=False, random_state=rng)
        clf.fit(X[train], y[train])
        return clf, clf.score(X[held], y[held])

    # average=False: the suffix average is planned for max_iter epochs, so a fit with
    # max_iter=k averages other steps than the first k epochs of a longer one
    es = PegasosSVC(lam=0.1, max_iter=40, average=False, early_stopping=True,
                    n_iter_no_change=2, random_state=seed).fit(X, y)
    scores = [split_then(k)[1] for k in range(1, es.n_iter_ + 1)]
    assert es.validation_scores_ == scores
    assert reference_stop(scores, 2, 1e-3) == es.n_iter_ < 40
    np.testing.assert_array_equal(es.coef_, split_then(es.n_iter_)[0].coef_)
