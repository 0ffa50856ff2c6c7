"""crammer_singer's checkpoints: a run resumed from the state it reported after a pass (with
duality-gap checks that tightened tol' before it, dense and CSR, example weights) ends with
the iterates and result of the run that was not stopped, bit for bit; and a state that does
not fit the problem is refused by check_state, naming the array."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from halfspaces.solvers.crammer_singer import check_state, crammer_singer


def _problem(sparse: bool):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 4))
    y = np.argmax(X[:, :3] + 0.6 * rng.normal(size=(50, 3)), axis=1)
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.mark.parametrize(("sparse", "weighted"), [(False, False), (True, True)])
def test_resumed_after_a_pass_gives_the_uninterrupted_result(sparse, weighted):
    X, y = _problem(sparse)
    s = np.linspace(0.5, 2.0, len(y)) if weighted else None
    kw = dict(tol=1e-4, max_iter=300, seed=7, sample_weight=s)
    whole = crammer_singer(X, y, 3, 0.5, **kw)
    states = []
    kept = crammer_singer(X, y, 3, 0.5, checkpoint=lambda passes, state: states.append(
        (passes, state())), **kw)
    assert whole.converged and whole.n_iter > 5
    assert [p for p, _ in states] == list(range(1, whole.n_iter))  # not after the last
    # tol' was tightened by a gap check that did not converge: later states carry it
    tightened = [p for p, state in states if state["tol"][0] < 1e-4]
    assert tightened
    # (the first passes, every 20th, the first after tol' tightened and the last: quick
    # without the JIT too)
    for passes, state in states:
        if passes % 20 != 1 and passes not in (2, tightened[0], len(states)):
            continue
        resumed = crammer_singer(X, y, 3, 0.5, resume=state, **kw)
        for result in (kept, resumed):
            assert np.array_equal(result.W, whole.W) and np.array_equal(result.alpha,
                                                                          whole.alpha)
            assert (result.n_iter, result.primal, result.dual) == (
                whole.n_iter, whole.primal, whole.dual), f"resumed after pass {passes}"


def test_check_state_refuses_a_state_of_another_problem():
    X, y = _problem(False)
    states = []
    crammer_singer(X, y, 3, 0.5, max_iter=3, checkpoint=lambda p, state: states.append(
        state()))
    state = states[-1]
    check_state(state, y, 3, 4, 0.5, 3)  # its own problem
    with pytest.raises(ValueError, match=r"'W' is float64 of shape \(3, 4\), not float64 of"
                                         r" shape \(4, 4\)"):
        check_state(state, y, 4, 4, 0.5, 3)
    with pytest.raises(ValueError, match=r"'alpha' is float64 of shape \(50, 3\), not"
                                         r" float64 of shape \(49, 3\)"):
        check_state(state, y[:49], 3, 4, 0.5, 3)
    with pytest.raises(ValueError, match="'alpha' is outside alpha_i"):  # a smaller C
        check_state(state, y, 3, 4, 0.5 * state["alpha"].max(), 3)
    with pytest.raises(ValueError, match="'alpha' is outside alpha_i"):  # other labels
        check_state(state, (y + 1) % 3, 3, 4, 0.5, 3)
    with pytest.raises(ValueError, match="'n_iter' is not a number of passes from 1 to"
                                         r" max_iter - 1 = 1"):
        check_state(state, y, 3, 4, 0.5, 2)
    with pytest.raises(ValueError, match="'rng' is missing"):
        check_state({k: v for k, v in state.items() if k != "rng"}, y, 3, 4, 0.5, 3)
    for name, value, what in (("W", np.full((3, 4), np.nan), "not finite"),
                              ("order", np.zeros(50, dtype=np.int64),
                               "not a permutation of the rows"),
                              ("tol", np.array([np.inf]), "not a finite tol' > 0")):
        with pytest.raises(ValueError, match=f"'{name}' is {what}"):
            check_state({**state, name: value}, y, 3, 4, 0.5, 3)
