"""experts.make_hypotheses: the finite classes the command line's --hypotheses builds.

References are written here from the definitions: standard normal directions drawn from the
same seed, and every decision stump s (x_j - theta) with theta halfway between consecutive
distinct values of x_j.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces import HalvingClassifier
from halfspaces.experts import make_hypotheses


def _stumps_reference(X):
    """(j, s, theta) of every stump, from the definition (dense X, every midpoint)."""
    found = set()
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for theta in (values[:-1] + values[1:]) / 2:
            for s in (1.0, -1.0):
                found.add((j, s, float(theta)))
    return found


def _as_stumps(H):
    """(j, s, theta) of each hypothesis: w = s e_j, offset = -s theta."""
    W, offsets = H
    assert np.all(np.count_nonzero(W, axis=1) == 1)
    rows = []
    for w, b in zip(W, offsets, strict=True):
        (k,) = np.flatnonzero(w)
        s = float(w[k])
        assert s in (1.0, -1.0)
        rows.append((int(k), s, float(-b * s)))
    return rows


def test_random_class_is_seeded_standard_normal_directions_through_the_origin():
    X = np.zeros((5, 3))
    H = make_hypotheses(X, "random", n_hypotheses=7, random_state=4)
    np.testing.assert_array_equal(H.hypotheses,
                                  np.random.default_rng(4).standard_normal((7, 3)))
    assert H.offsets is None


def test_stumps_are_every_midpoint_of_every_feature_when_n_allows():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(30, 3)).astype(float)
    stumps = _as_stumps(make_hypotheses(X, "stumps", n_hypotheses=1000))
    assert len(stumps) == len(set(stumps))
    assert set(stumps) == _stumps_reference(X)


def test_stumps_on_sparse_data_count_the_implicit_zeros():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(25, 4)).astype(float) * (rng.random((25, 4)) < 0.5)
    dense = make_hypotheses(X, "stumps", n_hypotheses=500)
    sparse = make_hypotheses(sp.csr_matrix(X), "stumps", n_hypotheses=500)
    np.testing.assert_array_equal(sparse.hypotheses, dense.hypotheses)
    np.testing.assert_array_equal(sparse.offsets, dense.offsets)


def test_stumps_are_thinned_to_at_most_n():
    X = np.arange(200, dtype=float).reshape(100, 2)
    H = make_hypotheses(X, "stumps", n_hypotheses=40)
    assert H.hypotheses.shape == (40, 2)  # 10 thresholds per feature and sign
    assert set(_as_stumps(H)) <= _stumps_reference(X)


def test_a_stump_labelled_sequence_is_realizable_by_the_stumps_class():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(80, 3))
    y = np.where(X[:, 2] >= 0.25, 1, -1)
    H = make_hypotheses(X, "stumps", n_hypotheses=1000)
    predictions = np.where(X @ H.hypotheses.T + H.offsets >= 0, 1, -1)
    assert np.any(np.all(predictions == y[:, None], axis=0))
    clf = HalvingClassifier(**H._asdict()).fit(X, y)
    assert clf.n_mistakes_ <= np.log2(H.hypotheses.shape[0])


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": "trees"}, r"make_hypotheses: 'kind' must be one of 'random', 'stumps'; got 'trees'"),
    ({"n_hypotheses": 0}, r"make_hypotheses: 'n_hypotheses' must be an int >= 1 .*; got 0"),
    ({"n_hypotheses": 30_000_000}, r"'n_hypotheses' must be at most 25,000,000 in 2 dimensions"
                                   r"; got 30000000\. That is 60,000,000 weights"),
])
def test_bad_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_hypotheses(np.zeros((3, 2)), **kwargs)
