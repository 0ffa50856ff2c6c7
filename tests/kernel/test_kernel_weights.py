"""Example weights in the kernel learners: the dual form of the weighted primal rules.

Oracles: the primal learners with the same weights (a linear kernel runs the same updates:
with small-integer data and weights in halves every sum is exact, so the perceptrons agree
exactly; Pegasos up to rounding), NumPy references of the dual updates written from the
rules, and the data with the weight-0 rows removed.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from strategies import make_noisy, pm, stops_at_max_iter

from halfspaces import KernelPegasosSVC, KernelPerceptron, PegasosSVC, Perceptron
from halfspaces.kernels import gram


def _data(n=40, seed=0, integer=True):
    X, y = make_noisy(n, 4, seed=seed, noise=1.0, integer=integer)
    s = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 2.5, 3.0], size=n)
    return X, y, s


def reference_kernel_perceptron(K, y, s, epochs, fit_intercept=True):
    """(coef alpha_i s_i y_i, alpha, b, mistakes, rounds) of the weighted dual loop in order."""
    coef, alpha, b = np.zeros(len(y)), np.zeros(len(y), dtype=int), 0.0
    mistakes = rounds = 0
    for _ in range(epochs):
        for t in np.flatnonzero(s > 0):
            rounds += 1
            if y[t] * (coef @ K[:, t] + b) <= 0:
                coef[t] += s[t] * y[t]
                alpha[t] += 1
                b += s[t] * y[t] if fit_intercept else 0.0
                mistakes += 1
    return coef, alpha, b, mistakes, rounds


@stops_at_max_iter
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_perceptron_is_the_weighted_perceptron(fit_intercept, sparse):
    X, y, s = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    kw = dict(fit_intercept=fit_intercept, max_iter=4, shuffle=False)
    dual = KernelPerceptron(kernel="linear", **kw).fit(Xs, y, sample_weight=s)
    primal = Perceptron(**kw).fit(Xs, y, sample_weight=s)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_ and dual.t_ == primal.t_
    sv = dual.support_vectors_.toarray() if sparse else dual.support_vectors_
    np.testing.assert_array_equal(dual.dual_coef_ @ sv, primal.coef_)
    np.testing.assert_array_equal(dual.intercept_, primal.intercept_)
    np.testing.assert_array_equal(dual.decision_function(Xs), primal.decision_function(Xs))
    one = KernelPerceptron(kernel="linear", fit_intercept=fit_intercept)
    one.partial_fit(Xs, y, classes=[0, 1], sample_weight=s)
    first = Perceptron(fit_intercept=fit_intercept)
    first.partial_fit(Xs, y, classes=[0, 1], sample_weight=s)
    assert one.n_mistakes_ == first.n_mistakes_ and one.t_ == first.t_
    np.testing.assert_array_equal(one.decision_function(Xs), first.decision_function(Xs))


@stops_at_max_iter
def test_rbf_kernel_perceptron_equals_the_reference():
    X, y, s = _data(seed=1, integer=False)
    clf = KernelPerceptron(gamma=0.5, max_iter=3, shuffle=False).fit(X, y, sample_weight=s)
    coef, alpha, b, mistakes, rounds = reference_kernel_perceptron(
        gram(X, X, "rbf", 0.5, 3, 1.0), pm(y, 1), s, clf.n_iter_)
    support = np.flatnonzero(coef)
    np.testing.assert_array_equal(clf.support_, support)
    np.testing.assert_array_equal(clf.dual_coef_[0], coef[support])
    np.testing.assert_array_equal(clf.alpha_[0], alpha[support])
    assert clf.intercept_[0] == b and clf.n_mistakes_ == mistakes and clf.t_ == rounds
    # partial_fit: one pass, the support set grows with the rows that err
    grown = KernelPerceptron(gamma=0.5).partial_fit(X[:15], y[:15], classes=[0, 1],
                                                    sample_weight=s[:15])
    grown.partial_fit(X[15:], y[15:], sample_weight=s[15:])
    coef, alpha, b, mistakes, rounds = reference_kernel_perceptron(
        gram(X, X, "rbf", 0.5, 3, 1.0), pm(y, 1), s, 1)
    support = np.flatnonzero(coef)
    np.testing.assert_array_equal(grown.support_, support)
    np.testing.assert_allclose(grown.dual_coef_[0], coef[support], rtol=1e-15)
    np.testing.assert_array_equal(grown.alpha_[0], alpha[support])
    assert grown.n_mistakes_ == mistakes and grown.t_ == rounds


@stops_at_max_iter
def test_kernel_perceptron_weight_zero_is_the_row_left_out_and_ones_change_nothing():
    X, y, s = _data(seed=2, integer=False)
    kept = s > 0
    weighted = KernelPerceptron(max_iter=3, shuffle=False).fit(X, y, sample_weight=s)
    left_out = KernelPerceptron(max_iter=3, shuffle=False).fit(X[kept], y[kept],
                                                               sample_weight=s[kept])
    assert weighted.gamma_ == pytest.approx(left_out.gamma_, rel=1e-14)
    assert weighted.mistakes_per_epoch_ == left_out.mistakes_per_epoch_
    np.testing.assert_array_equal(weighted.support_, np.flatnonzero(kept)[left_out.support_])
    np.testing.assert_allclose(weighted.dual_coef_, left_out.dual_coef_, rtol=1e-15)
    plain = KernelPerceptron(max_iter=3, random_state=0).fit(X, y)
    ones = KernelPerceptron(max_iter=3, random_state=0).fit(X, y, sample_weight=np.ones(40))
    for name in ("gamma_", "support_", "dual_coef_", "alpha_", "intercept_"):
        np.testing.assert_array_equal(getattr(ones, name), getattr(plain, name))


def reference_kernel_pegasos(K, y, s, lam, epochs, batch=1):
    """(beta, b, steps) of weighted kernel Pegasos, eta_t = 1/(lam t), projection onto the
    ball of radius 1/sqrt(lam), rows of weight 0 left out, the others in order in batches."""
    rows = np.flatnonzero(s > 0)
    beta, b, t = np.zeros(len(y)), 0.0, 0
    for _ in range(epochs):
        for lo in range(0, len(rows), batch):
            t += 1
            eta = 1.0 / (lam * t)
            part = rows[lo:lo + batch]
            viol = [i for i in part if y[i] * (beta @ K[:, i] + b) < 1]
            beta = (1 - eta * lam) * beta
            for i in viol:
                beta[i] += eta / len(part) * s[i] * y[i]
                b += eta / len(part) * s[i] * y[i]
            sq = beta @ K @ beta
            if sq * lam > 1:
                beta = beta / np.sqrt(lam * sq)
    return beta, b, t


PAPER = dict(lam=0.1, learning_rate="pegasos", average=False, sampling="cyclic",
             intercept_decay=1.0, max_iter=3)


@pytest.mark.parametrize("batch", [1, 4])
def test_kernel_pegasos_equals_the_reference_and_the_linear_kernel_the_primal(batch):
    X, y, s = _data(seed=3, integer=False)
    clf = KernelPegasosSVC(gamma=0.5, batch_size=batch, **PAPER).fit(X, y, sample_weight=s)
    beta, b, t = reference_kernel_pegasos(gram(X, X, "rbf", 0.5, 3, 0.0), pm(y, 1), s, 0.1,
                                          3, batch)
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(beta))
    np.testing.assert_allclose(clf.dual_coef_[0], beta[clf.support_], rtol=1e-10)
    assert clf.intercept_[0] == pytest.approx(b, rel=1e-10) and clf.t_ == t
    assert (clf.alpha_[0][s == 0] == 0).all()  # rows of weight 0 never step
    dual = KernelPegasosSVC(kernel="linear", batch_size=batch, **PAPER).fit(
        X, y, sample_weight=s)
    primal = PegasosSVC(batch_size=batch, **PAPER).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(dual.dual_coef_ @ dual.support_vectors_, primal.coef_,
                               rtol=1e-10, atol=1e-12)
    assert dual.intercept_[0] == pytest.approx(primal.intercept_[0], rel=1e-10, abs=1e-12)
    assert dual.t_ == primal.t_ and dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_


def test_kernel_pegasos_weight_zero_is_the_row_left_out_and_ones_change_nothing():
    X, y, s = _data(seed=4, integer=False)
    kept = s > 0
    kw = dict(lam=0.05, max_iter=4, random_state=0, record_objective=True)
    weighted = KernelPegasosSVC(**kw).fit(X, y, sample_weight=s)
    left_out = KernelPegasosSVC(**kw).fit(X[kept], y[kept], sample_weight=s[kept])
    assert weighted.gamma_ == pytest.approx(left_out.gamma_, rel=1e-14)
    np.testing.assert_array_equal(weighted.support_, np.flatnonzero(kept)[left_out.support_])
    np.testing.assert_allclose(weighted.dual_coef_, left_out.dual_coef_, rtol=1e-12)
    np.testing.assert_array_equal(weighted.alpha_[:, kept], left_out.alpha_)
    assert weighted.alpha_.shape == (1, 40) and weighted.t_ == left_out.t_
    np.testing.assert_allclose(weighted.objective_history_, left_out.objective_history_,
                               rtol=1e-12)
    plain = KernelPegasosSVC(**kw).fit(X, y)
    ones = KernelPegasosSVC(**kw).fit(X, y, sample_weight=np.ones(40))
    for name in ("gamma_", "support_", "dual_coef_", "alpha_", "intercept_",
                 "objective_history_"):
        np.testing.assert_array_equal(getattr(ones, name), getattr(plain, name))


@pytest.mark.parametrize("est", [KernelPerceptron(), KernelPegasosSVC()], ids=repr)
def test_bad_weights_are_refused(est):
    X, y, _ = _data(n=6)
    name = type(est).__name__
    with pytest.raises(ValueError, match=rf"{name}.fit: 'sample_weight' must be finite and"
                                         r" >= 0; got -2.0 at example 4"):
        est.fit(X, y, sample_weight=[1, 1, 1, 1, -2, 1])
    with pytest.raises(ValueError, match=rf"{name}.fit: 'sample_weight' must have one entry"
                                         r" per example of X \(6\)"):
        est.fit(X, y, sample_weight=np.ones(7))
