"""Streaming with example weights (issue 12): ``fit_stream(..., sample_weight=True)`` and
``fit_file(..., sample_weight=True)`` give the model of ``fit(X, y, sample_weight=w)`` on all
the rows, bit for bit, whatever the blocks; a learner whose stream takes no weights is
refused before it learns."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import AveragedPerceptron, HalvingClassifier, PegasosSVC, Perceptron
from halfspaces.datasets import fit_file, fit_stream, load_vw, make_separable
from halfspaces.datasets.cache import open_cached
from halfspaces.datasets.stream import WeightsRefused


def _same(a, b):
    fitted = sorted(k for k in vars(b) if k.endswith("_") and not k.startswith("_"))
    for key in fitted:
        va, vb = np.asarray(getattr(a, key)), np.asarray(getattr(b, key))
        assert va.dtype == vb.dtype and va.tobytes() == vb.tobytes(), key


def _data(n=60):
    X, y = make_separable(n_samples=n, margin=0.05, random_state=2)
    w = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 2.0, 3.5], size=n)
    w[:16] = 1.0  # the first block's weights all 1: it goes without them
    return sp.csr_matrix(X), y, w


@pytest.mark.parametrize("make", [lambda: Perceptron(max_iter=5, shuffle=False),
                                  lambda: AveragedPerceptron(max_iter=3, shuffle=False)])
@pytest.mark.parametrize("size", [16, 7, 60])
def test_weighted_blocks_give_the_weighted_fit(make, size):
    X, y, w = _data()
    blocks = [(X[i:i + size], y[i:i + size], w[i:i + size]) for i in range(0, 60, size)]
    with warnings.catch_warnings(action="ignore"):
        _same(fit_stream(make(), blocks, sample_weight=True), make().fit(X, y, sample_weight=w))
        # without sample_weight=True a third item is not read as weights
        _same(fit_stream(make(), blocks), make().fit(X, y))


def test_halving_streams_with_weights():
    X, y, w = _data()
    blocks = [(X[i:i + 9], y[i:i + 9], w[i:i + 9]) for i in range(0, 60, 9)]
    separator = Perceptron(shuffle=False).fit(X, y)  # a consistent hypothesis among them
    hypotheses = np.vstack([np.random.default_rng(1).standard_normal((63, X.shape[1])),
                            separator.coef_])
    offsets = np.r_[np.zeros(63), separator.intercept_]
    make = lambda: HalvingClassifier(hypotheses, offsets)  # noqa: E731
    _same(fit_stream(make(), blocks, sample_weight=True), make().fit(X, y, sample_weight=w))


def _vw_file(path, weights):
    lines = [f"{(-1) ** i} {s!r} |f a:{i % 5 + 1} b:{(-1) ** (i // 3)}"
             for i, s in enumerate(weights)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("cache", [False, True])
def test_fit_file_reads_the_vw_importance_weights(tmp_path, cache):
    weights = [2.0, 0.5, 1.0, 0.0, 3.0, 1.0] * 20
    path = _vw_file(tmp_path / "w.vw", weights)
    X, y = load_vw(path, n_features=64)
    expected = Perceptron(max_iter=4, shuffle=False)
    with warnings.catch_warnings(action="ignore"):
        expected.fit(X, y, sample_weight=np.array(weights))
        got = fit_file(Perceptron(max_iter=4, shuffle=False), path, n_features=64,
                       sample_weight=True, cache=cache, block_bytes=200)
    _same(got, expected)
    if cache:
        assert open_cached(path, n_features=64, block_bytes=200).weighted


def test_a_stream_that_takes_no_weights_is_refused_before_it_learns(tmp_path):
    X, y, w = _data()
    blocks = [(X[i:i + 16], y[i:i + 16], w[i:i + 16]) for i in range(0, 60, 16)]
    est = PegasosSVC(sampling="cyclic", max_iter=2)
    with pytest.raises(WeightsRefused, match=r"PegasosSVC takes no example weights when"
                                             r" trained from a stream"):
        fit_stream(est, blocks, sample_weight=True)
    assert not hasattr(est, "coef_")
    ones = [(Xb, yb, np.ones(yb.size)) for Xb, yb, _ in blocks]  # all 1: nothing to refuse
    _same(fit_stream(PegasosSVC(sampling="cyclic", max_iter=2), ones, sample_weight=True),
          PegasosSVC(sampling="cyclic", max_iter=2).fit(X, y))
    path = _vw_file(tmp_path / "w.vw", [2.0, 1.0] * 10)
    with pytest.raises(ValueError, match="a svmlight file has no example weights"):
        fit_file(Perceptron(shuffle=False), _vw_file(tmp_path / "w.svm", [1.0]),
                 format="svmlight", sample_weight=True)
    with pytest.raises(WeightsRefused):
        fit_file(PegasosSVC(sampling="cyclic"), path, cache=True, sample_weight=True)
