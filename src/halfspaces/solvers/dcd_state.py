"""The state of a dual coordinate descent run (:mod:`halfspaces.solvers.dcd`) between its
compiled calls: the fixed parameters (:class:`DCDParams`), the scalars (:class:`DCDState`) and
the arrays (:class:`DCDArrays`) that ``_dcd_run`` reads and returns, and the same state as
named arrays for a checkpoint (:func:`state_arrays`), checked (:func:`check_state`) and
restored (:func:`restore_state`) when a run resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._checkpoint import check_solver_arrays

__all__ = ["CONVERGED", "RUNNING", "Checkpoint", "DCDArrays", "DCDParams", "DCDState",
           "check_state", "restore_state", "state_arrays", "state_shapes"]

RUNNING, CONVERGED = 0, 1  # DCDState.status (CONVERGED: to tol')
# dcd_svm's checkpoint(epochs, state): state() gives the run's state_arrays
Checkpoint = Callable[[int, Callable[[], dict]], None]


class DCDParams(NamedTuple):
    """The fixed parameters of a run (``tol`` and ``budget`` change between calls)."""

    U: float            # upper bound of alpha_i: C (hinge), inf (squared hinge)
    Dii: float          # 0 (hinge), 1/(2C) (squared hinge)
    rho: float          # offset: the weight of sum alpha y; no offset: kappa
    M: float            # ||mu||^2
    e_max: float        # max |e_i|
    tol: float          # tol', the projected-gradient tolerance
    budget: float       # the row visits at which this call stops
    shrinking: bool
    offset: bool        # fit_intercept: the method of multipliers on sum alpha_i y_i = 0
    split: bool         # no offset: the mean direction m is split off


class DCDState(NamedTuple):
    """The state of a run between calls."""

    n_active: int       # the first n_active entries of ``active`` are the active rows
    n_outer: int        # outer iterations
    visits: int         # row visits (epochs = visits / n)
    status: int         # RUNNING, or CONVERGED to tol'
    PGmax_old: float    # shrinking thresholds
    PGmin_old: float
    b: float            # offset: b, s = sum alpha_i y_i, w.mu
    s: float
    wmu: float
    beta: float         # no offset: m.w and its proximal copy c
    c: float
    r_prev: float       # the proximal residual (s, or c - beta) at the last update


class DCDArrays(NamedTuple):
    """The arrays of a run: y, Qbar_ii, e_i, the example weights (read); alpha, w, active,
    the generator (updated in place)."""

    y: NDArray[np.float64]        # in {-1, +1}
    QD: NDArray[np.float64]       # Qbar_ii
    e: NDArray[np.float64]        # mu.x_i (offset) or m.x_i (split); else empty
    alpha: NDArray[np.float64]
    w: NDArray[np.float64]        # sum_i alpha_i y_i x_i over the raw rows
    active: NDArray[np.int64]     # a permutation of the rows, the active ones first
    rng_state: NDArray[np.uint64]
    s: NDArray[np.float64] | None = None  # s_i > 0: C_i = C s_i (U_i = U s_i, D_ii / s_i)


_COUNTERS = ("n_active", "n_outer", "visits", "status")
_SCALARS = ("PGmax_old", "PGmin_old", "b", "s", "wmu", "beta", "c", "r_prev")


def state_arrays(a: DCDArrays, p: DCDParams, st: DCDState, check_at: float) -> dict:
    """The state of a run between two compiled calls, as copies of arrays by name (see
    ``dcd_svm``'s ``checkpoint``): ``counters`` (int64: ``_COUNTERS`` of the state),
    ``scalars`` (float64: ``_SCALARS``, then ``tol'`` and the row visits of the next gap
    check)."""
    counters = np.array([getattr(st, name) for name in _COUNTERS], dtype=np.int64)
    scalars = np.array([*(getattr(st, name) for name in _SCALARS), p.tol, check_at])
    return {"alpha": a.alpha.copy(), "w": a.w.copy(), "active": a.active.copy(),
            "rng": a.rng_state.copy(), "counters": counters, "scalars": scalars}


def state_shapes(n: int, d: int) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The dtype and shape of each array of :func:`state_arrays` (``n`` rows, ``d``
    features)."""
    return {"alpha": ("f8", (n,)), "w": ("f8", (d,)), "active": ("i8", (n,)),
            "rng": ("u8", (1,)), "counters": ("i8", (len(_COUNTERS),)),
            "scalars": ("f8", (len(_SCALARS) + 2,))}


def check_state(arrays: dict, n: int, d: int, U: NDArray | float) -> None:
    """Refuse (ValueError, naming the array) a run's state (:func:`state_arrays`) that this
    problem (``n`` rows, ``d`` features, ``alpha_i`` at most ``U``) cannot continue from."""
    check_solver_arrays(arrays, state_shapes(n, d))
    alpha, scalars = arrays["alpha"], arrays["scalars"]
    n_active, n_outer, visits, status = arrays["counters"].tolist()
    problems = (
        ("alpha", not (np.all(alpha >= 0.0) and np.all(alpha <= U)), "outside [0, C_i]"),
        ("w", not np.all(np.isfinite(arrays["w"])), "not finite"),
        ("active", not np.array_equal(np.sort(arrays["active"]), np.arange(n)),
         "not a permutation of the rows"),
        ("counters", not (0 <= n_active <= n and n_outer >= 0 and visits >= 0
                          and status in (RUNNING, CONVERGED)), "out of range"),
        ("scalars", np.isnan(scalars).any() or not np.isfinite(scalars[2:]).all()
         or not scalars[-2] > 0.0, "not finite (or tol' not positive)"))
    for name, bad, what in problems:
        if bad:
            raise ValueError(f"the solver state {name!r} is {what}")


def restore_state(arrays: dict, a: DCDArrays,
                  p: DCDParams) -> tuple[DCDParams, DCDState, float]:
    """``(params, state, check_at)`` of a run resumed from ``arrays`` (checked by
    :func:`check_state`), whose arrays are copied into ``a``."""
    for name, into in (("alpha", a.alpha), ("w", a.w), ("active", a.active),
                       ("rng", a.rng_state)):
        into[:] = arrays[name]
    counters, scalars = arrays["counters"].tolist(), arrays["scalars"].tolist()
    st = DCDState(*counters, *scalars[:len(_SCALARS)])
    return p._replace(tol=scalars[-2]), st, scalars[-1]
