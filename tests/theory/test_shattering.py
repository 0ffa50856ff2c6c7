"""shatters and radon_partition: VCdim(halfspaces in R^d) = d + 1, checked as theorems.

References: the Farkas-certificate definition (checker below), the exact linear-algebra
theorem (affinely independent points are shattered: [X 1](w, b) = y has a solution), Radon's
theorem, and sklearn's SVC for a brute-force check of every labelling.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from halfspaces.theory import ShatterResult, is_linearly_separable, radon_partition, shatters


def assert_certificate(X, y, alpha, fit_intercept, rtol=1e-8):
    assert np.all(alpha >= 0.0) and alpha.sum() > 0.0
    scale = max(np.abs(X).max(), 1.0) * alpha.sum()
    assert np.abs((alpha * y) @ X).max() <= rtol * scale
    if fit_intercept:
        assert abs((alpha * y).sum()) <= rtol * scale


def general_position(seed, m, d):
    """m random points in R^d; rejected unless every (d+1)-subset is well conditioned."""
    X = np.random.default_rng(seed).uniform(-1, 1, size=(m, d))
    A = np.hstack([X, np.ones((m, 1))])
    for S in itertools.combinations(range(m), min(m, d + 1)):
        s = np.linalg.svd(A[list(S)], compute_uv=False)
        if s[-1] < 1e-3 * s[0]:
            return None
    return X


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_simplex_vertices_are_shattered(d):
    X = np.vstack([np.zeros(d), np.eye(d)])  # d + 1 affinely independent points
    res = shatters(X)
    assert isinstance(res, ShatterResult)
    assert res and res.failing_labelling is None and res.certificate is None
    assert res.n_labellings_checked == 2**d  # half of the 2^(d+1), by symmetry
    # independent: every labelling solves [X 1](w, b) = y exactly
    A = np.hstack([X, np.ones((d + 1, 1))])
    for y in itertools.product([-1.0, 1.0], repeat=d + 1):
        wb = np.linalg.solve(A, y)
        assert np.all(np.array(y) * (A @ wb) > 0)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.uint32, np.int64])
def test_integer_points_far_out_do_not_overflow(dtype):
    """Simplex vertices scaled so that squares overflow the dtype: still shattered, and the
    four points of a square still fail (XOR), as for the same float64 points."""
    v = 30000 if dtype == np.int16 else 70000
    assert shatters((np.vstack([np.zeros(2), np.eye(2)]) * v).astype(dtype))
    square = (np.array([[0, 0], [1, 1], [0, 1], [1, 0]]) * v).astype(dtype)
    res = shatters(square)
    assert not res
    assert_certificate(square.astype(float), res.failing_labelling, res.certificate, True)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_through_the_origin_vcdim_is_d(d):
    assert shatters(np.eye(d), fit_intercept=False)
    res = shatters(np.vstack([np.eye(d), np.ones(d)]), fit_intercept=False)
    assert not res
    assert_certificate(np.vstack([np.eye(d), np.ones(d)]), res.failing_labelling,
                       res.certificate, False)


def test_square_and_collinear_points():
    square = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    res = shatters(square)
    assert not res
    # the only non-separable labellings of a square are the two diagonals (XOR)
    y = res.failing_labelling
    assert y[0] == y[1] and y[2] == y[3] and y[0] != y[2]
    assert_certificate(square, y, res.certificate, True)
    # three collinear points: the middle one cannot be split from the ends
    line = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    res = shatters(line)
    assert not res
    y = res.failing_labelling
    assert y[0] == y[2] != y[1]
    assert_certificate(line, y, res.certificate, True)


@pytest.mark.parametrize("seed", range(8))  # seeds 1, 4, 6 give collinear or equal points
def test_lp_enumeration_matches_brute_force_svc(seed):
    """Every labelling (both signs) checked with sklearn's SVC: shattered iff all separate."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, 2, size=(3, 2)).astype(float)
    expected = True
    for y in itertools.product([-1, 1], repeat=3):
        y = np.array(y)
        if len(set(y)) == 1:
            continue
        svc = SVC(kernel="linear", C=1e4).fit(X, y)
        expected &= bool(np.all(y * svc.decision_function(X) > 0))
    assert bool(shatters(X)) == expected == bool(shatters(X, method="rank"))


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_radon_partition_of_d_plus_2_points(d):
    X = general_position(d, d + 2, d)
    assert X is not None
    part = radon_partition(X)
    lam = part.weights
    # the affine dependence, and the Radon point in both convex hulls
    np.testing.assert_allclose(lam @ X, 0.0, atol=1e-12)
    assert lam.sum() == pytest.approx(0.0, abs=1e-12)
    pos, neg = lam[part.positive], lam[part.negative]
    assert np.all(pos >= 0) and np.all(neg < 0)
    assert pos.sum() == pytest.approx(1.0) and neg.sum() == pytest.approx(-1.0)
    np.testing.assert_allclose(pos @ X[part.positive], part.point, atol=1e-12)
    np.testing.assert_allclose(-neg @ X[part.negative], part.point, atol=1e-12)
    # the Radon labelling is certified non-separable by the LP, and shatters() fails
    res = is_linearly_separable(X, part.labels)
    assert not res
    assert_certificate(X, part.labels, res.certificate, True)
    assert not shatters(X)


def test_radon_partition_refuses_independent_points():
    with pytest.raises(ValueError, match=r"radon_partition: the 3 points in R\^2 are affinely"
                                         r" independent.*m >= d \+ 2 = 4"):
        radon_partition(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4))
def test_d_plus_1_points_in_general_position_are_shattered(seed, d):
    X = general_position(seed, d + 1, d)
    assume(X is not None)
    res = shatters(X)
    assert res and res.n_labellings_checked == 2**d
    assert shatters(X, method="rank")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), extra=st.integers(0, 2))
def test_no_d_plus_2_points_are_shattered(seed, d, extra):
    X = np.random.default_rng(seed).uniform(-1, 1, size=(d + 2 + extra, d))
    for method in ("lp", "rank"):
        res = shatters(X, method=method)
        assert not res and res.failing_labelling is not None
        assert set(np.unique(res.failing_labelling)) <= {-1.0, 1.0}
        assert_certificate(X, res.failing_labelling, res.certificate, True)


def test_empty_set_is_shattered():
    assert shatters(np.zeros((0, 3)))


def test_bad_input_messages():
    with pytest.raises(ValueError, match=r"shatters: 'method' must be one of 'lp', 'rank';"
                                         r" got 'brute'"):
        shatters(np.eye(2), method="brute")
    with pytest.raises(ValueError, match=r"shatters: method='lp' solves up to 2\^\(m-1\) LPs"
                                         r" and accepts at most 20 points; got m=21"):
        shatters(np.zeros((21, 2)))
    with pytest.raises(ValueError, match=r"'fit_intercept' must be a bool"):
        shatters(np.eye(2), fit_intercept=None)
