"""The Dask backend: training on the workers of a 2-process LocalCluster, map_blocks prediction.

References: the single-machine estimators on the concatenated data (with one block every
method is the single-machine fit), a NumPy perceptron and a NumPy mini-batch Pegasos
written from their update rules, the exact SVM optimum of the QP solver, the IPM mistake
bound (McDonald, Hall and Mann 2010, Theorem 3), and the estimator's own predict on the
computed array. The cluster is created once for the module (tests that need no cluster
use dask's synchronous scheduler).
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from numba import config as numba_config  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from halfspaces import (  # noqa: E402
    SVC,
    AveragedPerceptron,
    LogisticRegression,
    LPSeparator,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
)
from halfspaces import dask as hd  # noqa: E402
from halfspaces.datasets import dump_svmlight, make_separable  # noqa: E402
from halfspaces.losses import logistic_objective, svm_objective  # noqa: E402

ROW_CHUNKS = (7, 13, 1, 19, 10)  # uneven, including a one-row block


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _data(n=50, d=4, seed=0, n_classes=2, noise=0.15):
    """Roughly linear labels with some flipped: mistakes happen in every block."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if n_classes == 2:
        y = np.where(X @ rng.normal(size=d) + 0.3 >= 0, 1, -1)
        flip = rng.random(n) < noise
        y[flip] = -y[flip]
    else:
        y = np.argmax(X[:, :n_classes] + noise * rng.normal(size=(n, n_classes)), axis=1)
    return X, y


def _dask(X, y, chunks=ROW_CHUNKS):
    return da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))


def _in_memory_loop(est, X, y, classes, chunks=ROW_CHUNKS, n_passes=1, to_block=None,
                    order=None):
    """The reference: partial_fit on each NumPy block, in order."""
    bounds = np.cumsum((0,) + tuple(chunks))
    for p in range(n_passes):
        blocks = range(len(chunks)) if order is None else order[p]
        for j in blocks:
            lo, hi = bounds[j], bounds[j + 1]
            block = X[lo:hi] if to_block is None else to_block(X[lo:hi])
            est.partial_fit(block, y[lo:hi], classes=classes)
    return est


def _numpy_perceptron(X, y, n_passes):
    """Rosenblatt's rule with an intercept; a tie counts as a mistake."""
    w, b, mistakes = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(n_passes):
        for x_t, y_t in zip(X, y, strict=True):
            if y_t * (w @ x_t + b) <= 0:
                w, b, mistakes = w + y_t * x_t, b + y_t, mistakes + 1
    return w, b, mistakes


# -- the exact online pass -----------------------------------------------------------------------
def test_online_pass_equals_the_in_memory_loop_and_the_numpy_perceptron(client):
    X, y = _data()
    dX, dy = _dask(X, y)
    est = hd.fit(Perceptron(), dX, dy, method="online", n_passes=3)
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1], n_passes=3)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.intercept_, ref.intercept_)
    assert est.n_mistakes_ == ref.n_mistakes_
    w, b, mistakes = _numpy_perceptron(X.astype(float), y, 3)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b)
    assert est.n_mistakes_ == mistakes > 0


@pytest.mark.parametrize("make", [
    lambda: AveragedPerceptron(),
    lambda: VotedPerceptron(),
    lambda: PegasosSVC(lam=0.01, batch_size=3, random_state=0),
    lambda: LogisticRegression(lam=0.01),
], ids=["averaged", "voted", "pegasos-minibatch", "logistic"])
def test_online_pass_of_every_online_estimator_on_three_classes(client, make):
    X, y = _data(n_classes=3, seed=2)
    dX, dy = _dask(X, y)
    est = hd.fit(make(), dX, dy, method="online", n_passes=2)
    ref = _in_memory_loop(make(), X, y, np.unique(y), n_passes=2)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))


def test_online_pass_shuffles_blocks_with_a_seed_and_reads_csr_blocks(client):
    X, y = _data(seed=3)
    X[np.abs(X) < 0.7] = 0.0
    dX, dy = _dask(X, y)
    dS = dX.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 0)))
    est = hd.fit(Perceptron(), dS, dy, method="online", n_passes=2, shuffle_blocks=True,
                 random_state=4)
    rng = np.random.RandomState(4)
    order = [rng.permutation(len(ROW_CHUNKS)) for _ in range(2)]
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1], n_passes=2, order=order,
                          to_block=sp.csr_matrix)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    assert est.n_mistakes_ == ref.n_mistakes_
    assert order[0].tolist() != list(range(len(ROW_CHUNKS)))  # the order did change


def test_fit_blocks_alias_continues_a_fitted_estimator_with_its_classes(client):
    X, y = _data(seed=4)
    labels = np.array(["ham", "spam"])[(y > 0).astype(int)]
    dX, dy = _dask(X, labels)
    est = hd.fit_blocks(Perceptron(), dX, dy)  # classes from the data
    ref = _in_memory_loop(Perceptron(), X, labels, ["ham", "spam"])
    np.testing.assert_array_equal(est.classes_, ["ham", "spam"])
    hd.fit_blocks(est, dX, dy)
    _in_memory_loop(ref, X, labels, None)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    assert est.n_mistakes_ == ref.n_mistakes_


# -- with one block, every method is the single-machine fit -----------------------------------
@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_ipm_on_one_block_is_the_single_machine_fit(client, cls, n_classes):
    X, y = _data(n_classes=n_classes, seed=5, noise=0.1)
    with pytest.warns(ConvergenceWarning, match=r"iterative parameter mixing stopped after"
                                                r" max_iter=7 epochs"):  # not separable
        est = hd.fit(cls(max_iter=7, shuffle=False), *_dask(X, y, chunks=(50,)),
                     mixing="mistakes")
    with pytest.warns(ConvergenceWarning, match=r"fit stopped after max_iter=7 passes"):
        ref = cls(max_iter=7, shuffle=False).fit(X, y)
    for name in ("coef_", "intercept_", "classes_"):
        np.testing.assert_array_equal(getattr(est, name), getattr(ref, name))
    if cls is AveragedPerceptron:
        np.testing.assert_array_equal(est.current_coef_, ref.current_coef_)
        np.testing.assert_array_equal(est.weighted_coef_sum_, ref.weighted_coef_sum_)
    assert est.mistakes_per_epoch_ == ref.mistakes_per_epoch_
    assert (est.n_iter_, est.t_, est.n_mistakes_, est.converged_) == (
        ref.n_iter_, ref.t_, ref.n_mistakes_, ref.converged_)


def test_lbfgs_on_one_block_is_the_single_machine_fit(client):
    X, y = _data(seed=6)
    est = hd.fit(LogisticRegression(C=0.5), *_dask(X, y, chunks=(50,)))
    ref = LogisticRegression(C=0.5).fit(X, y)
    # The same evaluations in the same order; BLAS may round the last bit differently on a
    # copy of theta with another memory alignment (or thread count) in the worker.
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=1e-12, atol=1e-14)
    assert est.n_iter_ == ref.n_iter_


def test_pegasos_averaging_on_one_block_is_the_single_machine_partial_fit(client):
    X, y = _data(seed=7)
    est = hd.fit(PegasosSVC(lam=0.05, max_iter=3), *_dask(X, y, chunks=(50,)), shuffle=False)
    ref = PegasosSVC(lam=0.05)
    for _ in range(3):
        ref.partial_fit(X, y, classes=[-1, 1])
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.intercept_, ref.intercept_)
    assert est.t_ == ref.t_ == 150


def _svm_optimum(X, y, C):
    qp = SVC(C=C, fit_intercept=False, solver="qp").fit(X, y)
    return svm_objective(qp.coef_[0], 0.0, X, np.where(y > 0, 1.0, -1.0), C=C)


def _svm_data(n_classes=2):
    """Separable rows (CoCoA+ needs few rounds on them), an optimal offset far from 0."""
    return _data(n=60, d=8, seed=8, n_classes=n_classes, noise=0.0)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["offset", "no-offset"])
@pytest.mark.parametrize("chunks", [(60,), (25, 35)], ids=["one-block", "two-blocks"])
def test_cocoa_reaches_the_single_machine_svm_optimum(client, chunks, fit_intercept):
    """The problem of SVC().fit, its offset unregularized: CoCoA+'s certified objective is
    the QP's optimum and single-machine DCD's to 1e-6, relatively (the default tol)."""
    X, y = _svm_data()
    y_pm = np.where(y > 0, 1.0, -1.0)
    est = hd.fit(SVC(C=0.05, fit_intercept=fit_intercept), *_dask(X, y, chunks=chunks),
                 local_iters=10, random_state=0)
    J = svm_objective(est.coef_[0], est.intercept_[0], X, y_pm, C=0.05)
    for solver in ("qp", "dcd"):
        ref = SVC(C=0.05, fit_intercept=fit_intercept, solver=solver).fit(X, y)
        best = svm_objective(ref.coef_[0], ref.intercept_[0], X, y_pm, C=0.05)
        assert abs(J - best) <= 1e-6 * best, solver
    assert est.objective_ == pytest.approx(J, rel=1e-12)
    assert 0.0 <= est.duality_gap_ <= 1e-6 * est.objective_  # the certificate
    if fit_intercept:
        assert abs(ref.intercept_[0]) > 0.2  # the offset matters
        assert est.intercept_[0] == pytest.approx(ref.intercept_[0], abs=1e-2)
        np.testing.assert_array_equal(est.dask_history_["offset"][-1], est.intercept_)
    else:
        assert est.intercept_[0] == 0.0
    assert est.n_iter_ == len(est.dask_history_["duality_gap"])


@pytest.mark.parametrize(("loss", "n_classes", "rho"), [("hinge", 2, 1.0),
                                                       ("squared_hinge", 3, None)])
def test_cocoa_squared_hinge_three_classes_and_any_rho_reach_the_qp_optimum(client, loss,
                                                                           n_classes, rho):
    """rho (the proximal step on the offset) changes the path, not the optimum."""
    X, y = _svm_data(n_classes)
    est = hd.fit(SVC(C=0.05, loss=loss), *_dask(X, y, chunks=(25, 35)), local_iters=10,
                 random_state=0, rho=rho)
    ref = SVC(C=0.05, loss=loss, solver="qp").fit(X, y)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_allclose(est.objective_, ref.objective_, rtol=1e-6)
    positives = ref.classes_[1:] if n_classes == 2 else ref.classes_  # one-vs-rest
    y_k = np.where(y[:, None] == positives, 1.0, -1.0)
    J = [svm_objective(est.coef_[k], est.intercept_[k], X, y_k[:, k], C=0.05, loss=loss)
         for k in range(y_k.shape[1])]
    np.testing.assert_allclose(J, est.objective_, rtol=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-offset", "offset"])
def test_cocoa_rounds_to_the_optimum_do_not_grow_with_the_rows(client, fit_intercept):
    """Noisy rows, C = 1: CoCoA+ alone (one local pass, no working set) is still far from a
    certified 1e-6 after 30 rounds; with the working-set step (the default) the fit reaches
    the QP optimum in at most 30 rounds on 4 shards, at 60 rows as at 240."""
    for n in (60, 240):
        X, y = _data(n=n, d=5, seed=21)
        parts = _dask(X, y, chunks=(n // 4,) * 4)
        ref = SVC(C=1.0, fit_intercept=fit_intercept, solver="qp").fit(X, y)
        est = hd.fit(SVC(C=1.0, fit_intercept=fit_intercept), *parts, max_iter=30,
                     random_state=0)
        assert est.objective_ == pytest.approx(ref.objective_, rel=1e-6)
        assert 0.0 <= est.duality_gap_ <= 1e-6 * est.objective_
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        plain = hd.fit(SVC(C=1.0, fit_intercept=fit_intercept), *parts, max_iter=30,
                       working_set=0, theta=0.0, local_iters=1, random_state=0)
    assert plain.duality_gap_ > 1e-5 * plain.objective_


def test_lbfgs_on_two_blocks_reaches_the_single_machine_optimum(client):
    X, y = _data(n=60, seed=10)
    est = hd.fit(LogisticRegression(C=2.0, tol=1e-10), *_dask(X, y, chunks=(35, 25)))
    ref = LogisticRegression(C=2.0, tol=1e-10).fit(X, y)
    y_pm = np.where(y > 0, 1.0, -1.0)
    J = logistic_objective(est.coef_[0], est.intercept_[0], X, y_pm, C=2.0)
    J_ref = logistic_objective(ref.coef_[0], ref.intercept_[0], X, y_pm, C=2.0)
    assert abs(J - J_ref) <= 1e-8 * J_ref
    assert est.predict_proba(X).shape == (60, 2)


@pytest.mark.parametrize("multi_class", ["auto", "ovr"])
def test_lbfgs_three_classes_on_one_block_is_the_single_machine_fit(client, multi_class):
    """Multinomial (the default for three classes) and one-vs-rest alike."""
    X, y = _data(n=60, seed=11, n_classes=3)
    est = hd.fit(LogisticRegression(C=0.5, multi_class=multi_class),
                 *_dask(X, y, chunks=(60,)))
    ref = LogisticRegression(C=0.5, multi_class=multi_class).fit(X, y)
    assert est.multi_class_ == ref.multi_class_ == (
        "multinomial" if multi_class == "auto" else "ovr")
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), rtol=1e-12)
    assert est.n_iter_ == ref.n_iter_


def test_lbfgs_multinomial_on_three_blocks_reaches_the_single_machine_optimum(client):
    X, y = _data(n=60, seed=12, n_classes=3)
    est = hd.fit(LogisticRegression(C=2.0, tol=1e-10), *_dask(X, y, chunks=(20, 15, 25)))
    ref = LogisticRegression(C=2.0, tol=1e-10).fit(X, y)
    assert est.multi_class_ == "multinomial"
    np.testing.assert_allclose(est.coef_, ref.coef_, atol=1e-7)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-7)
    assert est.objective_ == pytest.approx(ref.objective_, rel=1e-10)


# -- two workers: IPM separates, with the mixing bound ----------------------------------------
@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_ipm_separates_separable_data_within_the_mixing_bound(client, mixing):
    gamma = 0.15
    X, y = make_separable(n_samples=120, n_features=3, margin=gamma, random_state=1)
    rounds = []
    est = hd.fit(Perceptron(fit_intercept=False), *_dask(X, y, chunks=(30, 30, 30, 30)),
                 mixing=mixing, shuffle=True, random_state=0, callback=rounds.append)
    assert est.converged_ and est.score(X, y) == 1.0
    R = np.sqrt((X * X).sum(axis=1).max())
    mistakes = est.dask_history_["mistakes"]  # (epochs, shards)
    assert mistakes.shape == (est.n_iter_, 4) and mistakes[-1].sum() == 0
    if mixing == "uniform":
        mixed = (mistakes / 4.0).sum()
    else:
        k = mistakes.sum(axis=1, keepdims=True)
        mixed = (mistakes * mistakes / np.where(k > 0, k, 1)).sum()
    assert mixed == pytest.approx(rounds[-1]["mixed_mistakes"])
    assert mixed <= (R / gamma) ** 2
    assert est.n_mistakes_ == mistakes.sum() > 0


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 3 epochs, noisy
def test_averaged_ipm_on_two_blocks_is_the_average_of_every_iterate(client):
    """Two shards, uniform mixing: coef_ is (1/T) sum of every weight vector the shards
    produced, recomputed here with a NumPy perceptron run shard by shard."""
    X, y = _data(n=30, d=3, seed=11, noise=0.2)
    est = hd.fit(AveragedPerceptron(max_iter=3, shuffle=False), *_dask(X, y, chunks=(18, 12)))
    w, b, total, total_b, T = np.zeros(3), 0.0, np.zeros(3), 0.0, 0
    for _ in range(est.n_iter_):
        ends = []
        for lo, hi in ((0, 18), (18, 30)):
            wj, bj = w.copy(), b
            for x_t, y_t in zip(X[lo:hi], y[lo:hi], strict=True):
                if y_t * (wj @ x_t + bj) <= 0:
                    wj, bj = wj + y_t * x_t, bj + y_t
                total, total_b, T = total + wj, total_b + bj, T + 1
            ends.append((wj, bj))
        w, b = (ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2
    np.testing.assert_allclose(est.current_coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.coef_[0], total / T, rtol=1e-9, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(total_b / T, rel=1e-9)
    assert est.t_ == T == 90


def test_pegasos_averaging_on_two_blocks_approaches_the_svm_optimum(client):
    """Mixed per epoch, the shards' Pegasos runs converge to the SVM optimum (no offset)."""
    X, y = _data(n=60, d=3, seed=18)
    lam = 0.1
    rounds = []
    est = hd.fit(PegasosSVC(lam=lam, fit_intercept=False, max_iter=20, random_state=0),
                 *_dask(X, y, chunks=(30, 30)), callback=rounds.append)
    y_pm = np.where(y > 0, 1.0, -1.0)
    best = _svm_optimum(X, y, 1.0 / (lam * 60)) * lam  # J_lam = lam J_C
    J = svm_objective(est.coef_[0], 0.0, X, y_pm, lam=lam)
    assert best <= J <= 1.02 * best
    assert len(rounds) == est.n_iter_ == 20 and est.t_ == 20 * 30


# -- Pegasos synchronous mini-batches ------------------------------------------------------------
def _numpy_minibatch_pegasos(X, y, lam, k, T, seed):
    """Mini-batch Pegasos (eta_t = 1/(lam t), projection, no offset) on the same draws."""
    w = np.zeros(X.shape[1])
    for t in range(1, T + 1):
        rows = np.random.default_rng([seed, t]).integers(0, len(y), size=k)
        viol = y[rows] * (X[rows] @ w) < 1
        eta = 1.0 / (lam * t)
        w = (1 - eta * lam) * w + eta / k * (y[rows][viol] @ X[rows][viol])
        w *= min(1.0, 1.0 / (np.sqrt(lam) * np.linalg.norm(w) + 1e-300))
    return w


def test_minibatch_pegasos_does_not_depend_on_the_blocks(client):
    X, y = _data(n=60, seed=12)
    params = dict(lam=0.1, learning_rate="pegasos", average=False, fit_intercept=False)
    fits = [hd.fit(PegasosSVC(**params), *_dask(X, y, chunks=chunks), method="minibatch",
                   batch_size=16, n_iter=12, random_state=3)
            for chunks in [(60,), (13, 27, 20)]]
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-12, atol=1e-14)
    seed = np.random.RandomState(3).randint(0, 2**31 - 1)
    w = _numpy_minibatch_pegasos(X, np.where(y > 0, 1.0, -1.0), 0.1, 16, 12, seed)
    np.testing.assert_allclose(fits[1].coef_[0], w, rtol=1e-10, atol=1e-12)
    assert fits[1].t_ == 12
    est = fits[1]
    est.partial_fit(X, y)  # the Dask-fitted estimator continues on one machine
    assert est.t_ == 72


# -- inputs ------------------------------------------------------------------------------------
def test_dataframe_and_svmlight_shards_match_the_dask_array(client, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(n=40, d=3, seed=13)
    X[np.abs(X) < 0.5] = 0.0
    ref = hd.fit(Perceptron(), *_dask(X, y, chunks=(20, 20)), method="online")
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y)
    frame = dd.from_pandas(frame, npartitions=2)
    est = hd.fit(Perceptron(), frame, "label", method="online")
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    # the feature columns are recorded, as scikit-learn records a pandas DataFrame's
    np.testing.assert_array_equal(est.feature_names_in_, ["a", "b", "c"])
    np.testing.assert_array_equal(  # no warning: predicting on the same columns
        est.predict(pd.DataFrame(X, columns=["a", "b", "c"])), ref.predict(X))
    with pytest.raises(ValueError, match=r"feature columns \['b', 'a', 'c'\] differ from"
                                         r" those Perceptron was fitted with \['a', 'b',"):
        hd.fit(est, frame[["b", "a", "c", "label"]], "label", method="online")
    lr = hd.fit(LogisticRegression(), frame, "label")
    assert list(lr.feature_names_in_) == ["a", "b", "c"] and lr.n_features_in_ == 3
    paths = [tmp_path / "part0.svm", tmp_path / "part1.svm"]
    Xs = np.hstack([X, np.zeros((40, 2))])  # trailing empty columns are not in the files
    for path, rows in zip(paths, (slice(0, 20), slice(20, 40)), strict=True):
        dump_svmlight(Xs[rows], y[rows], path)  # 1-based indices
    est = hd.fit(Perceptron(), [str(p) for p in paths], method="online")
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    assert est.n_features_in_ == 3


def test_dask_ml_conventions_a_frame_with_a_series_and_prediction_on_a_frame(client):
    """fit(est, X_frame, y_series) as dask-ml takes it: the same shards as the label column
    of one frame, so the same model; predict on a DataFrame equals the local predict."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(n=60, d=3, seed=22)
    frame = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y),
                           npartitions=3)
    X_frame, y_series = frame[["a", "b", "c"]], frame["label"]
    by_name = hd.fit(SVC(C=1.0), frame, "label", random_state=0)
    by_series = hd.fit(SVC(C=1.0), X_frame, y_series, random_state=0)
    np.testing.assert_array_equal(by_series.coef_, by_name.coef_)
    np.testing.assert_array_equal(by_series.feature_names_in_, ["a", "b", "c"])
    ref = SVC(C=1.0, solver="qp").fit(X, y)
    assert by_series.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    local = pd.DataFrame(X, columns=["a", "b", "c"])
    np.testing.assert_array_equal(hd.predict(by_series, X_frame).compute(),
                                  by_series.predict(local))
    np.testing.assert_allclose(hd.decision_function(by_series, X_frame).compute(),
                               by_series.decision_function(local), rtol=1e-12)
    with pytest.raises(ValueError, match="y has 2 partitions .* but X has 3"):
        hd.fit(SVC(), X_frame, y_series.repartition(npartitions=2))
    with pytest.raises(ValueError, match="X has 4 columns, but SVC was fitted with 3"):
        hd.predict(by_series, frame)


def test_unknown_chunk_sizes_and_empty_blocks_from_a_row_filter(client):
    X, y = _data(n=60, seed=8)
    X[20:40, 0] = -1.0  # the filter empties the middle block
    dX, dy = _dask(X, y, chunks=(20, 20, 20))
    keep = dX[:, 0] > -0.5
    fX, fy = dX[keep], dy[keep]  # chunk sizes are unknown (nan) until computed
    assert np.isnan(fX.chunks[0][0])
    est = hd.fit(Perceptron(), fX, fy, method="online")
    mask = X[:, 0] > -0.5
    sizes = [int(mask[i:i + 20].sum()) for i in (0, 20, 40)]
    assert sizes[1] == 0
    ref = _in_memory_loop(Perceptron(), X[mask], y[mask], [-1, 1], chunks=sizes[::2])
    np.testing.assert_array_equal(est.coef_, ref.coef_)


# -- the fitted estimator needs no Dask --------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 5 rounds
def test_fitted_estimators_are_saved_and_loaded_without_dask(client, tmp_path):
    from halfspaces import load

    X, y = _data(n=40, seed=14)
    for est in (hd.fit(AveragedPerceptron(max_iter=3), *_dask(X, y, chunks=(20, 20))),
                hd.fit(SVC(), *_dask(X, y, chunks=(20, 20)), max_iter=5),
                hd.fit(PegasosSVC(), *_dask(X, y, chunks=(20, 20)), max_iter=2)):
        est.save(tmp_path / "m.npz")
        np.testing.assert_array_equal(load(tmp_path / "m.npz").predict(X), est.predict(X))


# -- faults and observability ------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 3 rounds
def test_the_client_does_not_train(client):
    """The fitting thread's CPU time is a small part of the workers' CPU time.

    The scheduler of a LocalCluster runs in this process, so the whole process's CPU time
    would count the scheduler's work; the thread that calls ``fit`` is where a client-side
    training loop (as the first backend's) would spend its time.
    """
    n = 1_000 if numba_config.DISABLE_JIT else 40_000  # interpreted kernels: ~100x slower
    rng = da.random.default_rng(0)
    dX = rng.standard_normal((n, 50), chunks=(n // 2, -1))  # generated on the workers
    dy = da.where(dX[:, 0] + 0.5 * dX[:, 1] + 0.3 * rng.standard_normal(n, chunks=n // 2)
                  > 0, 1, -1)
    dX, dy = client.persist([dX, dy])
    distributed.wait([dX, dy])
    before = client.run(time.process_time)
    start = time.thread_time()
    hd.fit(SVC(C=1.0), dX, dy, local_iters=20, max_iter=3, tol=1e-12, working_set=0)
    client_cpu = time.thread_time() - start
    after = client.run(time.process_time)
    compute = sum(after[w] - before[w] for w in after)  # the worker processes' CPU time
    assert compute > 0
    assert client_cpu < 0.25 * compute, (client_cpu, compute)


def test_verbose_and_callback_report_each_round(client, capsys):
    """What CoCoA+ guarantees round by round (sigma' = K, the safe bound): the dual
    objective never decreases. The duality gap need not, as the primal objective of the
    new w can rise: unseeded, an earlier form of this test (gap of round 3 below round 1's)
    failed for 15 of 20,000 seeds. So the test is seeded and asserts the dual."""
    X, y = _data(n=40, seed=16)
    rounds = []
    with pytest.warns(ConvergenceWarning, match=r"CoCoA\+ did not reach a relative duality"
                                                r" gap of tol=1e-12 in max_iter=4 rounds"):
        hd.fit(SVC(C=1.0, fit_intercept=False), *_dask(X, y, chunks=(20, 20)), max_iter=4,
               tol=1e-12, verbose=True, callback=rounds.append, random_state=0)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "halfspaces.dask" in ln]
    assert [r["round"] for r in rounds] == [1, 2, 3, 4] and len(lines) == 4
    assert all("duality gap" in line for line in lines)
    gaps = np.array([r["duality_gap"][0] for r in rounds])
    duals = np.array([r["objective"][0] for r in rounds]) - gaps
    assert gaps.min() >= 0.0 and gaps[0] == pytest.approx(40.0)  # P(0) = C n, D(0) = 0
    assert np.all(np.diff(duals) > 0.0)


# -- prediction ----------------------------------------------------------------------------------
def test_predict_on_the_cluster_equals_local_prediction(client):
    X, y = _data(seed=17)
    clf = hd.fit(LogisticRegression(), *_dask(X, y))
    dX = _dask(X, y)[0].map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 0)))
    np.testing.assert_array_equal(hd.predict(clf, dX).compute(), clf.predict(X))


# -- errors --------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # a noisy fit
def test_column_chunks_and_mismatched_row_chunks_are_rejected(client):
    X, y = _data()
    dX = da.from_array(X, chunks=(10, 2))
    with pytest.raises(ValueError, match=r"chunked along rows only.*2 column chunks.*"
                                         r"X\.rechunk\(\{1: -1\}\)"):
        hd.fit(Perceptron(), dX, da.from_array(y, chunks=10))
    with pytest.raises(ValueError, match=r"X\.rechunk\(\{1: -1\}\)"):
        hd.predict(Perceptron().fit(X, y), dX)
    with pytest.raises(ValueError, match=r"same row chunks as X.*\(10, 10, 10, 10, 10\).*"
                                         r"\(25, 25\).*y\.rechunk\(X\.chunks\[0\]\)"):
        hd.fit(Perceptron(), da.from_array(X, chunks=(10, -1)), da.from_array(y, chunks=25))


def test_bad_methods_and_options_are_rejected_before_any_work(client):
    X, y = _data()
    dX, dy = _dask(X, y)
    with pytest.raises(TypeError, match=r"LPSeparator has no partial_fit.*method='online'"):
        hd.fit(LPSeparator(), dX, dy)
    with pytest.raises(TypeError, match=r"method='cocoa' trains SVC; got Perceptron"):
        hd.fit(Perceptron(), dX, dy, method="cocoa")
    with pytest.raises(TypeError, match=r"\['mixing'\] are not used by method='cocoa'.*"
                                        r"max_iter, tol, local_iters"):
        hd.fit(SVC(), dX, dy, mixing="uniform")
    with pytest.raises(ValueError, match=r"'mixing' must be one of 'uniform', 'mistakes';"
                                         r" got 'mean'"):
        hd.fit(Perceptron(), dX, dy, mixing="mean")
    with pytest.raises(ValueError, match=r"CoCoA\+ trains the linear SVM.*kernel='rbf'"):
        hd.fit(SVC(kernel="rbf"), dX, dy)
    with pytest.raises(ValueError, match=r"CoCoA\+ needs a finite C"):
        hd.fit(SVC(C=np.inf), dX, dy)
    with pytest.raises(ValueError, match=r"PegasosSVC\(kernel='rbf'\).*kernel=None"):
        hd.fit(PegasosSVC(kernel="rbf"), dX, dy)
    with pytest.raises(ValueError, match=r"SVC: 'C' must be a float > 0"):
        hd.fit(SVC(C=-1.0), dX, dy)
    with pytest.raises(ValueError, match=r"'n_passes' must be an int >= 1; got 0"):
        hd.fit(Perceptron(), dX, dy, method="online", n_passes=0)
    with pytest.raises(TypeError, match=r"X must be a dask array.*got ndarray.*from_array"):
        hd.fit(Perceptron(), X, dy)
    with pytest.raises(ValueError, match=r"y must be a 1-D .*shape \(49,\)"):
        hd.fit(Perceptron(), dX, y[:-1])


def test_bad_data_is_reported_with_its_block_and_row(client, tmp_path):
    X, y = _data()
    X[30, 2] = np.nan  # block 3 holds rows 21..39
    with pytest.raises(ValueError, match=r"block 3 has a non-finite value \(nan or inf\) at"
                                         r" row 9 of the block, column 2"):
        hd.fit(Perceptron(), *_dask(X, y), retries=0)
    with pytest.raises(ValueError, match=r"needs samples of at least 2 classes.*\[1\]"):
        hd.fit(Perceptron(), *_dask(X[:5] * 0 + 1, np.ones(5, dtype=int), chunks=(5,)))
    path = tmp_path / "bad.svm"
    path.write_text("+1 1:0.5\n-1 2:x\n")
    with pytest.raises(ValueError, match=r"bad\.svm:2:"):
        hd.fit(Perceptron(), [str(path)], retries=0)
    with pytest.raises(ValueError, match=r"svmlight files hold their labels; pass y=None"):
        hd.fit(Perceptron(), [str(path)], y)


# -- last: a killed worker restarts cold (its imports), so no test comes after it ---------
def _kill_one_worker(client, when):
    """A callback that kills one worker process (SIGKILL) at round ``when``."""
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = []

    def callback(record):
        if record["round"] == when and not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    return callback, killed


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 8 rounds
def test_a_worker_killed_mid_fit_does_not_change_the_model(client):
    """CoCoA+ keeps each shard's dual variables on its worker from round to round: the
    scheduler recomputes the lost shards and their chain of rounds from their sources."""
    X, y = _data(n=60, seed=15, noise=0.2)
    options = dict(tol=1e-12, max_iter=8, random_state=0)
    parts = _dask(X, y, chunks=(15, 15, 15, 15))
    calm = hd.fit(SVC(C=1.0), *parts, **options)
    callback, killed = _kill_one_worker(client, when=3)
    hit = hd.fit(SVC(C=1.0), *parts, callback=callback, **options)
    assert killed  # the worker was killed mid-fit (rounds 4 to 8 ran after it)
    np.testing.assert_array_equal(hit.coef_, calm.coef_)
    np.testing.assert_array_equal(hit.intercept_, calm.intercept_)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it
    assert killed[0] not in client.run(os.getpid).values()
