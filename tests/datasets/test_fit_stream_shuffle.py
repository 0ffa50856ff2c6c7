"""fit_stream with a perceptron's shuffle=True: each pass a block shuffle buffer seeded by
random_state; data of one window is fit's shuffled order, bit for bit; a cache's pieces come
in a random order, so a file sorted by label is mixed."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same_fit

from halfspaces import AveragedPerceptron, Perceptron, VotedPerceptron
from halfspaces.datasets import dump_svmlight
from halfspaces.datasets._shuffle import shuffled_pass
from halfspaces.datasets.cache import open_cached
from halfspaces.datasets.stream import _Blocks, fit_stream


def _noisy(n, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n, 12, density=0.4, random_state=seed, format="csr")
    X.data = rng.standard_normal(X.nnz)
    return X, rng.choice([-1.0, 1.0], n)


def _sorted_by_label(n, seed=0):
    """Distinct rows with noisy linear labels, sorted by label (all -1 first)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    order = np.argsort(y, kind="stable")
    return sp.csr_matrix(X[order]), y[order]


def _sorted_binary(n, seed):
    """0/1 features (a9a's kind), 30% of labels +1 by a noisy linear rule, sorted by
    label: the last class's long run pulls an average of the iterates off."""
    rng = np.random.default_rng(seed)
    X = (rng.random(size=(n, 10)) < 0.3).astype(float)
    y = np.where(X @ np.linspace(1, -1, 10) + 0.3 * rng.normal(size=n) > 0.5, 1.0, -1.0)
    order = np.argsort(y, kind="stable")
    return sp.csr_matrix(X[order]), y[order]


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_one_window_is_fits_shuffled_order(cls, tmp_path):
    """At most shuffle_window rows: each pass is rng.permutation(n), as fit draws it."""
    X, y = _noisy(90, 3)
    path = tmp_path / "d.svm"
    dump_svmlight(X, y, path)
    in_memory = cls(max_iter=4, random_state=7).fit(X, y)
    blocks = [(X[:17], y[:17]), (X[17:57], y[17:57]), (X[57:], y[57:])]
    for source in (blocks, open_cached(path, block_bytes=200)):
        streamed = fit_stream(cls(max_iter=4, random_state=7), source, shuffle_window=90)
        assert_same_fit(streamed, in_memory)


def _passes(cached, window, seed, n_passes=2):
    rng = np.random.RandomState(seed)
    return [list(shuffled_pass(_Blocks(cached), cached.n_rows, rng, window))
            for _ in range(n_passes)]


def test_a_caches_pass_is_a_permutation_of_its_rows_mixed_across_the_file(tmp_path):
    X, y = _sorted_by_label(200)
    path = tmp_path / "sorted.svm"
    dump_svmlight(X, y, path)
    cached = open_cached(path, block_bytes=600)  # many blocks
    assert len(cached.header["blocks"]) > 10
    rows = {tuple(r): i for i, r in enumerate(X.toarray())}  # the rows are distinct
    first, second = _passes(cached, 64, seed=1)
    for windows in (first, second):
        assert all(w[0].shape[0] == 64 for w in windows[:-1])  # at most a window held
        seen = np.concatenate([[rows[tuple(r)] for r in Xw.toarray()] for Xw, _, _ in windows])
        assert np.array_equal(np.sort(seen), np.arange(200))  # each row once
        assert np.array_equal(np.concatenate([w[1] for w in windows]), y[seen])
        # a window of a sorted file holds both classes: pieces from all over it
        shares = [np.mean(w[1] > 0) for w in windows[:-1]]
        assert min(shares) > 0.2 and max(shares) < 0.8, shares
    assert not np.array_equal(first[0][1], second[0][1])  # a new order each pass
    again = _passes(cached, 64, seed=1)  # the seed decides it all
    assert all((a[0] != b[0]).nnz == 0 and np.array_equal(a[1], b[1])
               for p, q in zip(again, (first, second), strict=True)
               for a, b in zip(p, q, strict=True))


def test_a_sorted_stream_trains_as_well_as_a_shuffled_fit(tmp_path):
    """The averaged perceptron on rows sorted by label: in file order the last class's
    iterates dominate the average; the shuffled stream of its cache scores as fit does."""
    X, y = _sorted_binary(300, 0)
    X_test, y_test = _sorted_binary(1000, 1)
    path = tmp_path / "sorted.svm"
    dump_svmlight(X, y, path)
    reference = AveragedPerceptron(max_iter=3, random_state=0).fit(X, y).score(X_test, y_test)
    ordered = fit_stream(AveragedPerceptron(max_iter=3, shuffle=False),
                         open_cached(path, block_bytes=500)).score(X_test, y_test)
    streamed = fit_stream(AveragedPerceptron(max_iter=3, random_state=1),
                          open_cached(path, block_bytes=500), shuffle_window=50)
    assert streamed.score(X_test, y_test) >= reference - 0.03
    assert reference > 0.88 and ordered < reference - 0.08


def test_weights_travel_with_their_rows(tmp_path):
    """VW importance weights: a window's rows keep theirs (1 where a block has none)."""
    X, y = _noisy(50, 5)
    w = np.arange(1.0, 51.0)
    blocks = [(X[:20], y[:20], None), (X[20:], y[20:], w[20:])]
    source = _Blocks(lambda: iter(blocks), sample_weight=True)
    (Xw, yw, ww), = shuffled_pass(source, None, np.random.RandomState(0), 64)
    expected = np.concatenate([np.ones(20), w[20:]])
    rows = {tuple(r): i for i, r in enumerate(X.toarray())}
    order = [rows[tuple(r)] for r in Xw.toarray()]
    assert np.array_equal(ww, expected[order]) and np.array_equal(yw, y[order])
