"""LogisticRegression(solver="sgd"): fit's SGD epochs against a NumPy reference written from
the module docstring's step, and against the optimum of scikit-learn's LogisticRegression."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import train_test_split
from test_early_stopping import reference_stop

from halfspaces import LogisticRegression, load


def _data(n=60, d=5, seed=0, n_classes=2):
    return make_classification(n_samples=n, n_features=d, n_informative=3, n_redundant=0,
                               n_classes=n_classes, flip_y=0.05, random_state=seed)


def reference_sgd(X, y_pm, lam, eta0, orders, fit_intercept=True, s=None):
    """SGD from w = 0, b = 0 over the rows of each order in turn, yielding (w, b) after
    each: eta_t = eta0 / (1 + lam eta0 t), g_t = -s_t y_t sigma(-y_t z_t) (s_t = 1 without
    weights), w <- (1 - eta_t lam) w - eta_t g_t x_t, b <- b - eta_t g_t."""
    w, b, t = np.zeros(X.shape[1]), 0.0, 0
    for order in orders:
        for i in order:
            t += 1
            z = X[i] @ w + b
            g = -y_pm[i] / (1.0 + np.exp(y_pm[i] * z)) * (1.0 if s is None else s[i])
            eta = eta0 / (1.0 + lam * eta0 * t)
            w = (1.0 - eta * lam) * w - eta * g * X[i]
            b = b - eta * g if fit_intercept else b
        yield w, b


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_fit_is_the_sgd_rule_over_the_epochs(sparse, shuffle):
    X, y = _data()
    n, epochs, seed = y.size, 4, 3
    rng = np.random.RandomState(seed)
    orders = [rng.permutation(n) if shuffle else np.arange(n) for _ in range(epochs)]
    est = LogisticRegression(lam=0.02, eta0=0.3, solver="sgd", max_iter=epochs,
                             shuffle=shuffle, random_state=seed)
    est.fit(sp.csr_matrix(X) if sparse else X, y)
    *_, (w, b) = reference_sgd(X, np.where(y == 1, 1.0, -1.0), 0.02, 0.3, orders)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-10)
    assert (est.t_, est.n_iter_, len(est.mistakes_per_epoch_)) == (epochs * n, epochs, epochs)


def test_fit_takes_lam_from_C_and_eta0_auto_from_the_rows():
    X, y = _data(n_classes=3)
    n, C = y.size, 0.5
    est = LogisticRegression(C=C, solver="sgd", max_iter=3, shuffle=False,
                             fit_intercept=False).fit(X, y)
    lam, eta0 = 1.0 / (C * n), 1.0 / np.mean((X * X).sum(axis=1))
    assert est.eta0_ == pytest.approx(eta0, rel=1e-12)
    for k in range(3):  # one-vs-rest: one SGD per class over the same orders
        *_, (w, b) = reference_sgd(X, np.where(y == k, 1.0, -1.0), lam, eta0,
                                   [np.arange(n)] * 3, fit_intercept=False)
        np.testing.assert_allclose(est.coef_[k], w, rtol=1e-10, atol=1e-12)
        assert b == est.intercept_[k] == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_early_stopping_stops_as_the_reference(seed):
    """The held-out rows and the epochs' orders come from one generator, in that order; lam
    and eta0="auto" from the training rows; the held-out accuracy after each epoch decides."""
    X, y = _data(n=100, seed=seed)
    X[:, 0] += 2.0 * (y - 0.5) * (seed + 1) / 3  # data that stops at different epochs
    y_pm = np.where(y == 1, 1.0, -1.0)
    rng = np.random.RandomState(seed)
    train, held = train_test_split(np.arange(y.size), test_size=10, stratify=y,
                                   random_state=rng)
    train.sort()
    Xt, n_t = X[train], train.size
    lam, eta0 = 1.0 / n_t, 1.0 / np.mean((Xt * Xt).sum(axis=1))
    scores = []
    for w, b in reference_sgd(Xt, y_pm[train], lam, eta0,
                              (rng.permutation(n_t) for _ in range(50))):
        scores.append(float(np.mean(np.where(X[held] @ w + b >= 0, 1.0, -1.0) == y_pm[held])))
        if reference_stop(scores, 3, 1e-3) == len(scores):
            break
    est = LogisticRegression(solver="sgd", early_stopping=True, n_iter_no_change=3,
                             max_iter=50, random_state=seed).fit(X, y)
    assert est.validation_scores_ == scores
    assert est.n_iter_ == len(scores) < 50
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-9, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-9)
    assert est.t_ == n_t * len(scores)


def test_warm_start_continues_the_steps():
    X, y = _data()
    kwargs = dict(lam=0.02, eta0=0.3, solver="sgd", shuffle=False)
    once = LogisticRegression(max_iter=3, **kwargs).fit(X, y)
    warm = LogisticRegression(max_iter=2, warm_start=True, **kwargs).fit(X, y)
    warm.set_params(max_iter=1).fit(X, y)
    np.testing.assert_allclose(warm.coef_, once.coef_, rtol=1e-12)
    assert warm.t_ == once.t_


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_fit_reaches_the_optimum_of_sklearn(C):
    X, y = _data(n=200)
    y_pm = np.where(y == 1, 1.0, -1.0)
    lam = 1.0 / (C * y.size)

    def J(w, b):  # the lam form, written out here
        return np.logaddexp(0, -y_pm * (X @ w + b)).mean() + lam / 2 * w @ w

    sk = SkLogisticRegression(C=C, tol=1e-10, max_iter=1000).fit(X, y)
    optimum = J(sk.coef_[0], sk.intercept_[0])
    est = LogisticRegression(C=C, solver="sgd", max_iter=60, random_state=0).fit(X, y)
    assert est.objective_ == pytest.approx(J(est.coef_[0], est.intercept_[0]), rel=1e-12)
    assert optimum - 1e-9 <= est.objective_ <= optimum * (1 + 2e-3)


def test_errors_of_solver_and_weights():
    X, y = _data()
    with pytest.raises(ValueError, match=re.escape(
            "LogisticRegression: 'early_stopping' must be False with solver='lbfgs' (L-BFGS-B"
            " stops at tol; it has no epochs to stop); got True. Use solver='sgd'")):
        LogisticRegression(early_stopping=True).fit(X, y)
    with pytest.raises(ValueError, match=re.escape(
            "LogisticRegression.fit: 'sample_weight' must be finite and >= 0; got -1.0 at"
            " example 0")):
        LogisticRegression(solver="sgd").fit(X, y, sample_weight=-np.ones(y.size))
    with pytest.raises(ValueError, match=re.escape(
            "LogisticRegression.fit: 'sample_weight' must have one entry per example of X"
            " (60); got shape (3,)")):
        LogisticRegression(solver="sgd").fit(X, y, sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=re.escape(
            "LogisticRegression.fit: class_weight names the label 7, which is not among the"
            " classes [0, 1]")):
        LogisticRegression(solver="sgd", class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="'n_iter_no_change' must be an int >= 1"):
        LogisticRegression(solver="sgd", early_stopping=True, n_iter_no_change=0).fit(X, y)


def test_sgd_model_file_keeps_the_held_out_scores(tmp_path):
    X, y = _data(n=80)
    est = LogisticRegression(solver="sgd", early_stopping=True, random_state=1).fit(X, y)
    est.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert back.validation_scores_ == est.validation_scores_
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    est.set_params(solver="lbfgs", early_stopping=False).fit(X, y)
    assert not hasattr(est, "validation_scores_")


def test_cli_trains_the_sgd_solver(tmp_path, capsys):
    from test_cli import _run, _write_svmlight

    X, y = _data(n=80)
    data = _write_svmlight(tmp_path / "d.svm", X, 2 * y - 1)
    code, _, err = _run(capsys, "train", data, "--algo", "logistic", "--set", "solver=sgd",
                        "--early-stopping", "--random-state", "2", "-o", tmp_path / "m")
    assert code == 0, err
    est = LogisticRegression(solver="sgd", early_stopping=True, random_state=2)
    est.fit(X, 2 * y - 1)
    model = load(tmp_path / "m")
    assert model.validation_scores_ == est.validation_scores_
    np.testing.assert_allclose(model.coef_, est.coef_, rtol=1e-12)


# -- example weights ---------------------------------------------------------------------------
def _weights(n, seed=0):
    s = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 2.0, 3.5], size=n)
    s[:2] = [0.0, 1.5]
    return s


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("form", [dict(lam=0.02), dict(C=0.5)], ids=repr)
def test_weighted_fit_is_the_weighted_sgd_rule(sparse, form):
    X, y = _data()
    s = _weights(y.size)
    kept = np.flatnonzero(s > 0)
    n, S, epochs, seed = kept.size, s.sum(), 3, 2
    rng = np.random.RandomState(seed)
    orders = [rng.permutation(n) for _ in range(epochs)]
    # lam: the given one scaled by S / n, or 1/(C n) over the rows of positive weight
    lam = 0.02 * S / n if "lam" in form else 1.0 / (0.5 * n)
    est = LogisticRegression(eta0=0.3, solver="sgd", max_iter=epochs, random_state=seed,
                             **form).fit(sp.csr_matrix(X) if sparse else X, y, sample_weight=s)
    *_, (w, b) = reference_sgd(X[kept], np.where(y[kept] == 1, 1.0, -1.0), lam, 0.3, orders,
                               s=s[kept])
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-10)
    assert est.t_ == epochs * n  # a row of weight 0 takes no step


def test_weight_zero_is_the_row_left_out_and_unit_weights_change_nothing():
    X, y = _data(n_classes=3)
    s = _weights(y.size, seed=1)
    kept = s > 0
    kwargs = dict(C=2.0, solver="sgd", max_iter=4, random_state=0)
    weighted = LogisticRegression(**kwargs).fit(X, y, sample_weight=s)
    left_out = LogisticRegression(**kwargs).fit(X[kept], y[kept], sample_weight=s[kept])
    np.testing.assert_array_equal(weighted.coef_, left_out.coef_)
    np.testing.assert_array_equal(weighted.objective_, left_out.objective_)
    assert weighted.eta0_ == left_out.eta0_ and weighted.t_ == left_out.t_
    plain = LogisticRegression(**kwargs).fit(X, y)
    ones = LogisticRegression(**kwargs).fit(X, y, sample_weight=np.ones(y.size))
    np.testing.assert_array_equal(ones.coef_, plain.coef_)
    np.testing.assert_array_equal(ones.intercept_, plain.intercept_)
    np.testing.assert_array_equal(ones.objective_, plain.objective_)


def test_class_weight_is_the_weight_of_each_example_of_the_class():
    X, y = _data(n_classes=3, seed=2)
    counts = np.bincount(y)
    balanced = (y.size / (3 * counts))[y]  # scikit-learn's "balanced": n / (K n_c)
    for class_weight, s in (("balanced", balanced),
                            ({0: 3.0, 2: 0.5}, np.array([3.0, 1.0, 0.5])[y])):
        kwargs = dict(solver="sgd", max_iter=3, random_state=0)
        by_class = LogisticRegression(class_weight=class_weight, **kwargs).fit(X, y)
        by_row = LogisticRegression(**kwargs).fit(X, y, sample_weight=s)
        np.testing.assert_array_equal(by_class.coef_, by_row.coef_)
        np.testing.assert_array_equal(by_class.intercept_, by_row.intercept_)


@pytest.mark.parametrize("form", [dict(C=1.0), dict(lam=0.01)], ids=repr)
def test_many_epochs_approach_the_weighted_lbfgs_optimum(form):
    X, y = _data(n=200)
    s = _weights(y.size, seed=3)
    exact = LogisticRegression(tol=1e-10, max_iter=1000, **form).fit(X, y, sample_weight=s)
    y_pm, S = np.where(y == 1, 1.0, -1.0), s.sum()
    lam = form.get("lam", 1.0 / S)

    def J(w, b):  # the weighted lam form, written out here: 1/S sum s_i loss_i + lam/2 |w|^2
        return (s * np.logaddexp(0, -y_pm * (X @ w + b))).sum() / S + lam / 2 * w @ w

    optimum = J(exact.coef_[0], exact.intercept_[0])
    assert exact.objective_ == pytest.approx(optimum, rel=1e-12)
    sgd = LogisticRegression(solver="sgd", max_iter=80, random_state=0, **form).fit(
        X, y, sample_weight=s)
    assert sgd.objective_ == pytest.approx(J(sgd.coef_[0], sgd.intercept_[0]), rel=1e-12)
    assert optimum - 1e-9 <= sgd.objective_ <= optimum * (1 + 2e-3)
    far = LogisticRegression(solver="sgd", max_iter=2, random_state=0, **form).fit(
        X, y, sample_weight=s)
    assert far.objective_ - optimum > 3 * (sgd.objective_ - optimum)


@pytest.mark.parametrize("sparse", [False, True])
def test_weighted_partial_fit_is_the_weighted_sgd_rule_block_by_block(sparse):
    """Each block's steps scaled by s_t, with the given lam; rows of weight 0 take no step
    (so t_ counts the others) and leave the model as if they were not there."""
    X, y = _data()
    s = _weights(y.size, seed=3)
    y_pm = np.where(y == 1, 1.0, -1.0)
    est = LogisticRegression(lam=0.02, eta0=0.3, solver="sgd")
    blocks = [range(0, 25), range(25, 26), range(26, 60)]
    Xin = sp.csr_matrix(X) if sparse else X
    for rows in blocks:
        rows = np.asarray(rows)
        est.partial_fit(Xin[rows], y[rows], classes=[0, 1], sample_weight=s[rows])
    kept = [np.array([i for i in rows if s[i] > 0], dtype=np.int64) for rows in blocks]
    *_, (w, b) = reference_sgd(X, y_pm, 0.02, 0.3, kept, s=s)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-10)
    assert est.t_ == int((s > 0).sum())
    left_out = LogisticRegression(lam=0.02, eta0=0.3, solver="sgd")
    for rows in kept:
        left_out.partial_fit(Xin[rows], y[rows], classes=[0, 1], sample_weight=s[rows])
    np.testing.assert_array_equal(left_out.coef_, est.coef_)


def test_partial_fit_with_unit_weights_is_the_unweighted_partial_fit():
    X, y = _data(n_classes=3)
    plain = LogisticRegression(C=2.0, solver="sgd").partial_fit(X, y, classes=[0, 1, 2])
    ones = LogisticRegression(C=2.0, solver="sgd").partial_fit(X, y, classes=[0, 1, 2],
                                                               sample_weight=np.ones(y.size))
    np.testing.assert_array_equal(ones.coef_, plain.coef_)
    np.testing.assert_array_equal(ones.intercept_, plain.intercept_)


def test_sgd_that_diverges_on_a_huge_weight_says_so():
    # One example weight of 1e20 scales that row's step by 1e20: SGD ended far worse than
    # the zero model (accuracy 0.51), silently. J(0) = log 2 whatever the weights.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=100) > 0, 1, 0)
    s = np.ones(100)
    s[3] = 1e20
    with pytest.warns(ConvergenceWarning, match=r"worse than J = log 2 = 0.6931 of the zero"
                      r" model: its steps diverged \(the largest example weight, 1e\+20"):
        clf = LogisticRegression(solver="sgd", random_state=0).fit(X, y, sample_weight=s)
    assert clf.objective_ > np.log(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert LogisticRegression().fit(X, y, sample_weight=s).objective_ < np.log(2.0)
