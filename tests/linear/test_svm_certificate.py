"""SVC(C=inf) on non-separable data: the NotSeparableError carries a verified certificate.

Issue 8: the interior point's infeasibility certificate was raised as proof without a check;
it is approximate (relative residual 3e-8 here, 5e-7 on 50,000 rows) and puts weight on
every row, so the message named rows [0, 1, ..., 9]. Now the certificate is the LP's vertex,
checked here from the definition (Farkas' lemma), and the message gives its rows and residual.
"""

import numpy as np
import pytest

from halfspaces import NotSeparableError
from halfspaces.linear.svm import SVC


def _noisy(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("kernel", ["linear", lambda A, B: A @ B.T])
def test_certificate_is_verified_and_named(kernel, fit_intercept):
    X, y = _noisy()
    with pytest.raises(NotSeparableError, match=r"SVC: the data .*is not linearly separable"
                       r".* puts weight on rows \[[0-9, ]+\] \([0-9]+ rows\) \(see .certificate;"
                       r" relative residual [0-9.e+-]+\)\. The hard-margin SVM \(C=inf\) has"
                       r" no solution; use a finite C") as info:
        SVC(C=np.inf, kernel=kernel, fit_intercept=fit_intercept).fit(X, y)
    err = info.value
    a = err.certificate
    assert a.min() >= 0 and a.sum() > 0
    # sum_i a_i y_i x_i = 0 (and sum_i a_i y_i = 0): then every (w, b) has
    # sum_i a_i y_i (w.x_i + b) = 0, so some row with a_i > 0 is misclassified or on the line
    # (each column at its own scale max_i |x_ij|, the offset's column of ones at 1)
    residual = (np.abs((a * y) @ X) / np.abs(X).max(axis=0)).max() / a.sum()
    if fit_intercept:
        residual = max(residual, abs(a @ y) / a.sum())
    assert residual <= 1e-8
    rows = np.flatnonzero(a > 0)
    np.testing.assert_array_equal(err.rows, rows)
    assert rows.size <= X.shape[1] + 2  # a vertex of the Farkas polytope (Caratheodory)
    assert f"rows {rows[:10].tolist()}" in str(err) and f"({rows.size} rows)" in str(err)
    if kernel == "linear":  # the callable's certificate is checked on its Gram matrix
        assert err.residual == pytest.approx(residual, rel=1e-6, abs=1e-15)
    assert err.residual <= 1e-8


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_an_infeasibility_claim_the_lp_refutes_is_an_error(kernel, monkeypatch):
    # Clarabel claims infeasibility with a certificate that fails the check, on data the
    # separating LP separates: no model and no certificate can be returned; the error says so.
    import halfspaces.linear.svm as svm_module
    from halfspaces.solvers.qp import QPResult

    def claims_infeasible(Z, y, C, **kwargs):
        return QPResult("AlmostPrimalInfeasible", None, None, 0.0, 30, np.ones(len(y)), 1e-3)

    monkeypatch.setattr(svm_module, "svm_primal_qp", claims_infeasible)
    monkeypatch.setattr(svm_module, "svm_dual_qp", claims_infeasible)
    X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    with pytest.raises(RuntimeError, match=r"status 'AlmostPrimalInfeasible' \(its certificate's"
                       r" relative residual is 1.0e-03\) on the hard-margin QP, but the"
                       r" separating LP found a separator"):
        SVC(C=np.inf, kernel=kernel).fit(X, [-1, -1, 1, 1])
