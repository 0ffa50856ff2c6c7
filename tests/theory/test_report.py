"""theory.bounds_report against independent solvers: scikit-learn's SVM for the max margin,
SciPy's SLSQP for the perceptron's margin on the points (x, 1), SciPy's LP for the
certificate, and the perceptron itself for the bound."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import hard_margin_through_origin, separable
from scipy.optimize import linprog
from sklearn.svm import SVC as SkSVC

from halfspaces import Perceptron
from halfspaces.theory import bounds_report


def _separable(seed=0, shift=0.0):
    X, y = separable(n=40, d=3, seed=seed)
    return X + shift, y


def test_with_an_offset_against_sklearn_and_the_points_x_1():
    X, y = _separable(shift=0.5)
    report = bounds_report(X, y)
    R = np.linalg.norm(X, axis=1).max()
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-10).fit(X, y)
    assert report.separable and report.fit_intercept
    assert (report.n_samples, report.n_features, report.vc_dimension) == (40, 3, 4)
    assert report.radius == pytest.approx(R)
    assert report.max_margin == pytest.approx(1.0 / np.linalg.norm(ref.coef_), rel=1e-4)
    z = y * (X @ report.w + report.b)
    assert z.min() == pytest.approx(1.0, rel=1e-6)  # the canonical separator
    Z = np.hstack([X, np.ones((len(y), 1))])
    gamma_aug = hard_margin_through_origin(Z, y)
    assert report.perceptron.augmented
    assert report.perceptron.radius == pytest.approx(np.sqrt(R**2 + 1))
    assert report.novikoff_bound == pytest.approx((R**2 + 1) / gamma_aug**2, rel=1e-3)
    mistakes = Perceptron(max_iter=int(report.novikoff_bound) + 2).fit(X, y).n_mistakes_
    assert mistakes <= report.novikoff_bound


def test_through_the_origin_the_max_margin_is_the_perceptrons_margin():
    X, y = _separable(seed=1)
    report = bounds_report(sp.csr_matrix(X), y, fit_intercept=False)
    gamma = hard_margin_through_origin(X, y)
    assert report.vc_dimension == 3 and report.b == 0.0
    assert report.max_margin == report.perceptron.margin
    assert report.max_margin == pytest.approx(gamma, rel=1e-4)
    assert report.novikoff_bound == pytest.approx((report.radius / gamma) ** 2, rel=1e-3)


def test_svm_margin_false_skips_only_the_offset_qp():
    X, y = _separable(seed=2, shift=0.3)
    full, quick = bounds_report(X, y), bounds_report(X, y, svm_margin=False)
    assert quick.max_margin is None and quick.w is None and quick.b is None
    assert quick.novikoff_bound == full.novikoff_bound and quick.radius == full.radius


def test_not_separable_gives_rows_that_are_infeasible_on_their_own():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR-like
    report = bounds_report(X, y)
    assert not report.separable and report.novikoff_bound is None
    assert report.max_margin is None
    rows = report.certificate_rows
    A = -y[rows, None] * np.hstack([X[rows], np.ones((rows.size, 1))])
    lp = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(rows.size), bounds=[(None, None)] * 3)
    assert lp.status == 2  # infeasible


@pytest.mark.parametrize("y", [[0, 1, 2, 1], [1, 1, 1, 1]])
def test_needs_exactly_two_classes(y):
    with pytest.raises(ValueError, match=r"bounds_report: needs exactly two classes for margins"
                                         r" and bounds; got \d"):
        bounds_report(np.eye(4), y)
