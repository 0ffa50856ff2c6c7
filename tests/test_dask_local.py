"""The Dask backend without a cluster: map_blocks prediction on dask's synchronous scheduler,
and the errors that need no running client (no client, no partial_fit, bad prediction input,
dask not installed).

References: the estimator's own predict, decision_function and predict_proba on the computed
array (the cluster tests are in test_dask.py).
"""

from __future__ import annotations

import builtins
import subprocess
import sys

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from sklearn.exceptions import NotFittedError  # noqa: E402
from test_dask import ROW_CHUNKS, _dask, _data  # noqa: E402

from halfspaces import SVC, LogisticRegression, Perceptron  # noqa: E402
from halfspaces import dask as hd  # noqa: E402


@pytest.mark.parametrize("n_classes", [2, 3])
def test_map_blocks_predictions_equal_the_estimator_on_the_computed_array(n_classes):
    X, y = _data(n_classes=n_classes, seed=6)
    names = np.array(["a", "bb", "ccc"])[: n_classes]
    y = names[np.searchsorted(np.unique(y), y)]
    clf = LogisticRegression(lam=0.01).fit(X, y)
    dX, _ = _dask(X, y)
    labels, scores = hd.predict(clf, dX), hd.decision_function(clf, dX)
    proba = hd.predict_proba(clf, dX)
    assert labels.shape == (len(y),) and labels.dtype == clf.classes_.dtype
    assert labels.chunks == (ROW_CHUNKS,)
    expected_scores_shape = (len(y),) if n_classes == 2 else (len(y), n_classes)
    assert scores.shape == expected_scores_shape and scores.dtype == np.float64
    assert proba.shape == (len(y), n_classes) and proba.chunks == (ROW_CHUNKS, (n_classes,))
    for lazy, dtype in ((labels, clf.classes_.dtype), (scores, np.float64),
                        (proba, np.float64)):  # the metadata: what compute() will return
        assert type(lazy._meta) is np.ndarray and lazy._meta.ndim == lazy.ndim
        assert lazy.dtype == lazy._meta.dtype == dtype
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(labels.compute(), clf.predict(X))
        np.testing.assert_allclose(scores.compute(), clf.decision_function(X), rtol=1e-12,
                                   atol=1e-13)
        np.testing.assert_allclose(proba.compute(), clf.predict_proba(X), rtol=1e-12,
                                   atol=1e-13)


def test_no_running_client_says_how_to_start_one(monkeypatch):
    def no_client():
        raise ValueError("No clients found")  # what distributed.get_client raises

    monkeypatch.setattr(distributed, "get_client", no_client)
    X, y = _data()
    with pytest.raises(ValueError, match=r"no dask\.distributed Client is running.*"
                                         r"client = Client\(\)"):
        hd.fit(Perceptron(), *_dask(X, y))


def test_estimators_without_partial_fit_are_rejected_by_fit_blocks():
    X, y = _data()
    with pytest.raises(TypeError, match=r"SVC has no partial_fit.*sample.*PegasosSVC"):
        hd.fit_blocks(SVC(), *_dask(X, y))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # noisy fits
def test_prediction_errors():
    X, y = _data()
    dX, dy = _dask(X, y)
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


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # a noisy fit
def test_missing_dask_says_how_to_install_it(monkeypatch):
    X, y = _data()
    dX, dy = _dask(X, y)
    clf = Perceptron().fit(X, y)
    monkeypatch.setitem(sys.modules, "dask", None)  # `import dask` now raises ImportError
    monkeypatch.setitem(sys.modules, "dask.array", None)
    with pytest.raises(ImportError, match=MISSING):
        hd.fit(Perceptron(), dX, dy)
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


def test_the_method_table_drives_auto_the_checks_and_the_options():
    """Every row of METHODS: auto picks it for its classes (where it is the default), it
    accepts them and its own options, and it refuses an option of another method."""
    import halfspaces

    for name, row in hd.METHODS.items():
        for cls in row.estimators:
            est = getattr(halfspaces, cls)()
            assert (hd._auto_method(est) == name) == row.auto
            hd._check_method(est, name)
            assert set(hd._options(est, name, {})) == set(row.options)
        if row.estimators and "n_passes" not in row.options:
            with pytest.raises(TypeError, match=f"not used by method='{name}'"):
                hd._options(est, name, {"n_passes": 2})
    assert hd._auto_method(halfspaces.VotedPerceptron()) == "online"
