"""dcd_svm's checkpoints: a run resumed from the state it reported after an epoch (every
4th, and those of the duality-gap checks; with the offset's multiplier updates, the mean
direction split off, shrinking) ends with the iterates and result of the run that was not
stopped, bit for bit; and a state that does not fit the problem is refused by check_state."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.solvers.dcd import check_state, dcd_svm


def _problem(sparse: bool):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 5)) + 2.0  # off-centre: the offset's and the split's sums move
    y = np.where(X[:, 0] - X[:, 1] + 0.6 * rng.normal(size=70) > 0, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.mark.parametrize(("loss", "fit_intercept", "sparse"), [
    ("hinge", True, False), ("squared_hinge", False, True), ("hinge", False, False)])
def test_resumed_after_any_epoch_gives_the_uninterrupted_result(loss, fit_intercept, sparse):
    X, y = _problem(sparse)
    kw = dict(loss=loss, fit_intercept=fit_intercept, tol=1e-5, max_iter=200, rng=7)
    whole = dcd_svm(X, y, 1.0, **kw)
    states = []
    kept = dcd_svm(X, y, 1.0, checkpoint=lambda epochs, state: states.append(
        (epochs, state())), **kw)
    assert whole.converged and whole.n_iter > 12  # past the gap checks at epochs 10 and 15
    assert [e for e, _ in states] == list(range(1, len(states) + 1))
    assert len(states) >= whole.n_iter - 1
    # (every 4th epoch, and the gap checks' epochs: quick without the JIT too)
    resumed = (dcd_svm(X, y, 1.0, resume=state, **kw) for epochs, state in states
               if epochs % 4 == 1 or epochs in (10, 15, 22, 33, len(states)))
    for result in (kept, *resumed):
        assert np.array_equal(result.theta, whole.theta)
        assert result.theta_0 == whole.theta_0 and result.n_iter == whole.n_iter
        assert np.array_equal(result.alpha, whole.alpha)
        assert (result.primal, result.dual) == (whole.primal, whole.dual)


def test_check_state_refuses_a_state_of_another_problem():
    X, y = _problem(False)
    states = []
    dcd_svm(X, y, 1.0, max_iter=2, checkpoint=lambda e, state: states.append(state()))
    state = states[-1]
    check_state(state, 70, 5, 1.0)  # its own problem
    with pytest.raises(ValueError, match=r"'alpha' is float64 of shape \(70,\), not float64"
                                         r" of shape \(71,\)"):
        check_state(state, 71, 5, 1.0)
    with pytest.raises(ValueError, match=r"'alpha' is outside \[0, C_i\]"):
        check_state(state, 70, 5, 0.5 * state["alpha"].max())
    with pytest.raises(ValueError, match="'rng' is missing"):
        check_state({k: v for k, v in state.items() if k != "rng"}, 70, 5, 1.0)
    for name, value, what in (("counters", np.array([71, 0, 0, 0]), "out of range"),
                              ("scalars", np.r_[state["scalars"][:-2], 0.0, 10.0],
                               "tol' not positive"),
                              ("w", np.full(5, np.inf), "not finite")):
        with pytest.raises(ValueError, match=f"'{name}' is .*{what}"):
            check_state({**state, name: value}, 70, 5, 1.0)
