"""The Dask backend: block-by-block partial_fit and map_blocks prediction.

References: the in-memory loop ``for block: est.partial_fit(block)`` over the same NumPy
blocks (written here), NumPy perceptron and Pegasos passes over the concatenated rows written
from the update rules, and the estimator's own predict on the computed array.
Every test runs dask's synchronous scheduler, so the order of work is deterministic.
"""

from __future__ import annotations

import builtins
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

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

ROW_CHUNKS = (7, 13, 1, 19, 10)  # uneven, including a one-row block


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


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


def _in_memory_loop(est, X, y, classes, chunks=ROW_CHUNKS, n_passes=1, to_block=None):
    """The reference: partial_fit on each NumPy block, in order."""
    bounds = np.cumsum((0,) + tuple(chunks))
    for _ in range(n_passes):
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
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


def _numpy_pegasos(X, y, lam):
    """Pegasos, k = 1, eta_t = 1/(lam t), projection onto ||w|| <= 1/sqrt(lam), no b."""
    w, mistakes = np.zeros(X.shape[1]), 0
    for t, (x_t, y_t) in enumerate(zip(X, y, strict=True), start=1):
        eta, margin = 1.0 / (lam * t), y_t * (w @ x_t)
        mistakes += margin <= 0
        w = (1.0 - eta * lam) * w + (eta * y_t * x_t if margin < 1 else 0.0)
        w *= min(1.0, 1.0 / (np.sqrt(lam) * np.linalg.norm(w) + 1e-300))
    return w, mistakes


# -- fitting ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n_passes", [1, 3])
def test_perceptron_blocks_equal_the_in_memory_loop_and_the_pass_over_all_rows(n_passes):
    X, y = _data()
    dX, dy = _dask(X, y)
    est = hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1], n_passes=n_passes)
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1], n_passes=n_passes)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.intercept_, ref.intercept_)
    assert est.n_mistakes_ == ref.n_mistakes_
    # Block boundaries do not matter: one online pass over the concatenated rows.
    w, b, mistakes = _numpy_perceptron(X.astype(float), y, n_passes)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b)
    assert est.n_mistakes_ == mistakes
    assert mistakes > 0


def test_pegasos_blocks_equal_the_in_memory_loop_and_the_numpy_pegasos_pass():
    X, y = _data(seed=1)
    params = dict(lam=0.1, learning_rate="pegasos", eta0=1.0, average=False,
                  fit_intercept=False, random_state=0)
    dX, dy = _dask(X, y)
    est = hd.fit_blocks(PegasosSVC(**params), dX, dy, classes=[-1, 1])
    ref = _in_memory_loop(PegasosSVC(**params), X, y, [-1, 1])
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.intercept_, ref.intercept_)
    assert est.n_mistakes_ == ref.n_mistakes_
    assert est.t_ == ref.t_ == len(y)
    w, mistakes = _numpy_pegasos(X, y, lam=0.1)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.n_mistakes_ == mistakes


@pytest.mark.parametrize("make", [
    lambda: AveragedPerceptron(),
    lambda: VotedPerceptron(),
    lambda: PegasosSVC(lam=0.01, batch_size=3, random_state=0),  # eta0="auto", averaged
    lambda: LogisticRegression(lam=0.01),
], ids=["averaged", "voted", "pegasos-minibatch", "logistic"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_every_online_estimator_matches_its_in_memory_loop(make, n_classes):
    X, y = _data(n_classes=n_classes, seed=2)
    classes = np.unique(y)
    dX, dy = _dask(X, y)
    est = hd.fit_blocks(make(), dX, dy, classes=classes, n_passes=2)
    ref = _in_memory_loop(make(), X, y, classes, n_passes=2)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    if hasattr(ref, "n_mistakes_"):
        assert est.n_mistakes_ == ref.n_mistakes_


def test_csr_blocks_match_the_in_memory_loop_on_csr_and_the_dense_fit():
    X, y = _data(seed=3)
    X[np.abs(X) < 0.7] = 0.0  # genuinely sparse rows
    dX, dy = _dask(X, y)
    dS = dX.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 0)))
    est = hd.fit_blocks(Perceptron(), dS, dy, classes=[-1, 1], n_passes=2)
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1], n_passes=2, to_block=sp.csr_matrix)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    assert est.n_mistakes_ == ref.n_mistakes_
    dense = hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1], n_passes=2)
    np.testing.assert_allclose(est.coef_, dense.coef_, rtol=1e-12)
    labels = hd.predict(est, dS)
    np.testing.assert_array_equal(labels.compute(), est.predict(X))


def test_blocks_are_computed_one_at_a_time_in_order():
    X, y = _data(n=40)
    log = []

    def load(j, lo, hi):
        log.append(j)
        return X[lo:hi]

    bounds = [0, 10, 25, 30, 40]
    parts = [da.from_delayed(dask.delayed(load)(j, lo, hi), shape=(hi - lo, X.shape[1]),
                             dtype=X.dtype)
             for j, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))]
    dX = da.concatenate(parts, axis=0)
    dy = da.from_array(y, chunks=(tuple(np.diff(bounds)),))
    est = hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1], n_passes=2)
    assert log == [0, 1, 2, 3, 0, 1, 2, 3]  # each block once per pass, never X at once
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1], chunks=np.diff(bounds), n_passes=2)
    np.testing.assert_array_equal(est.coef_, ref.coef_)


def test_classes_none_computes_the_labels_of_y_and_continues_a_fitted_estimator():
    X, y = _data(seed=4)
    labels = np.array(["ham", "spam"])[(y > 0).astype(int)]
    dX, dy = _dask(X, labels)
    est = hd.fit_blocks(Perceptron(), dX, dy)  # da.unique(y) pass
    ref = _in_memory_loop(Perceptron(), X, labels, ["ham", "spam"])
    np.testing.assert_array_equal(est.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    # A fitted estimator continues from its state with its own classes_.
    hd.fit_blocks(est, dX, dy)
    _in_memory_loop(ref, X, labels, None)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    assert est.n_mistakes_ == ref.n_mistakes_


def test_numpy_labels_are_chunked_like_X():
    X, y = _data(seed=5)
    dX, _ = _dask(X, y)
    est = hd.fit_blocks(Perceptron(), dX, y, classes=[-1, 1])
    ref = _in_memory_loop(Perceptron(), X, y, [-1, 1])
    np.testing.assert_array_equal(est.coef_, ref.coef_)


# -- prediction ------------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3])
def test_map_blocks_predictions_equal_the_estimator_on_the_computed_array(n_classes):
    X, y = _data(n_classes=n_classes, seed=6)
    names = np.array(["a", "bb", "ccc"])[: n_classes]
    y = names[np.searchsorted(np.unique(y), y)]
    clf = LogisticRegression(lam=0.01).fit(X, y)
    dX, _ = _dask(X, y)
    labels = hd.predict(clf, dX)
    scores = hd.decision_function(clf, dX)
    proba = hd.predict_proba(clf, dX)
    # Metadata declared without computing anything.
    assert labels.shape == (len(y),) and labels.dtype == clf.classes_.dtype
    assert labels.chunks == (ROW_CHUNKS,)
    expected_scores_shape = (len(y),) if n_classes == 2 else (len(y), n_classes)
    assert scores.shape == expected_scores_shape and scores.dtype == np.float64
    assert proba.shape == (len(y), n_classes) and proba.chunks == (ROW_CHUNKS, (n_classes,))
    np.testing.assert_array_equal(labels.compute(), clf.predict(dX.compute()))
    # BLAS may sum a short block in another order: equal up to rounding.
    np.testing.assert_allclose(scores.compute(), clf.decision_function(X), rtol=1e-12,
                               atol=1e-13)
    np.testing.assert_allclose(proba.compute(), clf.predict_proba(X), rtol=1e-12, atol=1e-13)


def test_predict_works_for_a_batch_estimator_too():
    X, y = _data(seed=7, noise=0.0)
    clf = SVC(C=1.0).fit(X, y)
    dX, _ = _dask(X, y)
    np.testing.assert_array_equal(hd.predict(clf, dX).compute(), clf.predict(X))


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
def test_column_chunks_are_rejected_with_the_rechunk_hint():
    X, y = _data()
    dX = da.from_array(X, chunks=(10, 2))
    dy = da.from_array(y, chunks=10)
    with pytest.raises(ValueError, match=r"chunked along rows only.*2 column chunks.*"
                                         r"X\.rechunk\(\{1: -1\}\)"):
        hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1])
    clf = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match=r"X\.rechunk\(\{1: -1\}\)"):
        hd.predict(clf, dX)
    hd.fit_blocks(Perceptron(), dX.rechunk({1: -1}), dy, classes=[-1, 1])  # the hint works


def test_mismatched_row_chunks_are_rejected():
    X, y = _data()
    dX = da.from_array(X, chunks=(10, -1))
    dy = da.from_array(y, chunks=25)
    with pytest.raises(ValueError, match=r"same row chunks as X.*\(10, 10, 10, 10, 10\).*"
                                         r"\(25, 25\).*y\.rechunk\(X\.chunks\[0\]\)"):
        hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1])
    hd.fit_blocks(Perceptron(), dX, dy.rechunk(dX.chunks[0]), classes=[-1, 1])


@pytest.mark.parametrize("est", [SVC(), LPSeparator(), PegasosSVC(kernel="rbf")],
                         ids=["SVC", "LPSeparator", "kernel-Pegasos"])
def test_estimators_without_partial_fit_are_rejected(est):
    X, y = _data()
    dX, dy = _dask(X, y)
    name = type(est).__name__
    with pytest.raises(TypeError, match=rf"{name} has no partial_fit.*sample.*PegasosSVC"):
        hd.fit_blocks(est, dX, dy, classes=[-1, 1])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
def test_bad_arguments_are_rejected():
    X, y = _data()
    dX, dy = _dask(X, y)
    with pytest.raises(ValueError, match=r"'n_passes' must be an int >= 1; got 0"):
        hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1], n_passes=0)
    with pytest.raises(TypeError, match=r"X must be a dask array; got ndarray.*from_array"):
        hd.fit_blocks(Perceptron(), X, dy, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"y must be a 1-D .*shape \(49,\)"):
        hd.fit_blocks(Perceptron(), dX, y[:-1], classes=[-1, 1])
    with pytest.raises(ValueError, match=r"X must be a 2-D dask array"):
        hd.predict(Perceptron().fit(X, y), dy)
    with pytest.raises(NotFittedError):
        hd.predict(Perceptron(), dX)
    with pytest.raises(ValueError, match=r"X has 3 features, but Perceptron was fitted with 4"):
        hd.predict(Perceptron().fit(X, y), dX[:, :3])
    with pytest.raises(TypeError, match=r"Perceptron has no predict_proba"):
        hd.predict_proba(Perceptron().fit(X, y), dX)


MISSING = (r"The Dask backend needs the optional dependency 'dask\[array\]':"
           r" pip install \"halfspaces\[dask\]\"\.")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # not separable
def test_missing_dask_says_how_to_install_it(monkeypatch):
    X, y = _data()
    dX, dy = _dask(X, y)
    clf = Perceptron().fit(X, y)
    monkeypatch.setitem(sys.modules, "dask", None)  # `import dask` now raises ImportError
    monkeypatch.setitem(sys.modules, "dask.array", None)
    with pytest.raises(ImportError, match=MISSING):
        hd.fit_blocks(Perceptron(), dX, dy, classes=[-1, 1])
    with pytest.raises(ImportError, match=MISSING):
        hd.predict(clf, dX)


def test_missing_dask_through_the_import_hook(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith("dask."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(ImportError, match=MISSING):
        hd.decision_function(Perceptron(), object())


def test_importing_halfspaces_does_not_import_dask():
    code = ("import sys, halfspaces, halfspaces.dask; halfspaces.Perceptron;"
            " assert 'dask' not in sys.modules, sorted(m for m in sys.modules if 'dask' in m)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_chunk_sizes_from_a_row_filter():
    X, y = _data(n=60, seed=8)
    dX, dy = _dask(X, y, chunks=(20, 20, 20))
    keep = dX[:, 0] > -0.5
    fX, fy = dX[keep], dy[keep]  # chunk sizes are unknown (nan) until computed
    assert np.isnan(fX.chunks[0][0])
    est = hd.fit_blocks(Perceptron(), fX, fy, classes=[-1, 1])
    mask = X[:, 0] > -0.5
    sizes = [int(mask[i:i + 20].sum()) for i in (0, 20, 40)]
    ref = _in_memory_loop(Perceptron(), X[mask], y[mask], [-1, 1], chunks=sizes)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    proba = hd.predict_proba(LogisticRegression().fit(X, y), fX).compute()
    assert proba.shape == (mask.sum(), 2)
