"""Checkpoints of SVC's one-vs-rest DCD problems (see :mod:`halfspaces._checkpoint`).

A checkpoint holds the finished problems' results (``done_*``, ``done_problem`` their
indices) and the latest state of each problem stopped inside (the arrays of
:func:`halfspaces.solvers.dcd_state.state_arrays`, a row per problem; ``running`` their
indices), written by a problem after its checkpoint epochs, one thread at a time. A resumed
fit checks it, keeps the finished problems and continues each other one from its state, or
from the start: each problem makes the steps of the uninterrupted run, so the model is that
run's, bit for bit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from .._checkpoint import check_solver_arrays, solver_state_error
from .._parallel import map_problems
from ..solvers.dcd import check_state, state_shapes

__all__ = ["solve_with_checkpoints"]


def _done_shapes(n: int, d: int) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The dtype and shape of a finished DCD problem's ``(theta, theta_0, alpha, n_iter)`` in a
    checkpoint (``n`` rows, ``d`` features), in that order."""
    return {"done_theta": ("f8", (d,)), "done_theta_0": ("f8", ()),
            "done_alpha": ("f8", (n,)), "done_n_iter": ("i8", ())}


def _checkpoint_arrays(done: dict, running: dict, n: int, d: int) -> dict:
    """A one-vs-rest DCD checkpoint's arrays: ``done``, the finished problems' solutions,
    and ``running``, the others' states, by problem."""
    finished, stopped = sorted(done), sorted(running)
    arrays = {"done_problem": np.array(finished, dtype=np.int64),
              "running": np.array(stopped, dtype=np.int64)}
    for j, (name, (dtype, shape)) in enumerate(_done_shapes(n, d).items()):
        arrays[name] = np.array([done[k][j] for k in finished],
                                dtype=dtype).reshape(len(finished), *shape)
    for name, (dtype, shape) in state_shapes(n, d).items():
        arrays[name] = np.array([running[k][name] for k in stopped],
                                dtype=dtype).reshape(len(stopped), *shape)
    return arrays


def solve_with_checkpoints(resumed: dict, write, n: int, d: int, n_models: int, U,
                           solve: Callable, n_jobs) -> list:
    """The solutions of the ``n_models`` problems (``n`` rows, ``d`` features, ``alpha_i``
    at most ``U``), in ``n_jobs`` threads as without checkpoints, from the checkpoint
    ``resumed`` (empty: none), writing checkpoints by ``write(epochs, arrays)``.
    ``solve(k, checkpoint, start)`` is problem ``k``'s solution (a tuple; a float, DCD's
    relative duality gap, where it gave up: returned as it is, never saved), with
    DCD's ``checkpoint`` and ``resume`` (``start``, None: from the beginning)."""
    done, running = _resumed_problems(resumed, n, d, n_models, U) if resumed else ({}, {})
    lock = threading.Lock()

    def solve_one(k: int):
        def checkpoint(epochs, state):
            def arrays():  # this problem's state now, with the others' latest
                running[k] = state()
                return _checkpoint_arrays(done, running, n, d)

            with lock:
                write(epochs, arrays)

        with lock:
            start = running.get(k)
        solution = solve(k, checkpoint, start)
        with lock:
            running.pop(k, None)
            (done if isinstance(solution, tuple) else given_up)[k] = solution

    given_up: dict = {}
    todo = [k for k in range(n_models) if k not in done]
    map_problems(lambda j: solve_one(todo[j]), len(todo), n_jobs)
    return [done[k] if k in done else given_up[k] for k in range(n_models)]


def _resumed_problems(resumed: dict, n: int, d: int, n_models: int, U) -> tuple[dict, dict]:
    """The finished problems' solutions and the other problems' states in a checkpoint
    (dicts by problem), checked; a CheckpointError names what is wrong."""
    try:
        index = {}
        for name in ("done_problem", "running"):
            x = resumed.get(name)
            if x is None or x.dtype != np.int64 or x.ndim != 1:
                found = "missing" if x is None else f"{x.dtype} of shape {x.shape}"
                raise ValueError(f"the solver state {name!r} is {found}, not int64 of one"
                                 " dimension")
            if not ((np.diff(x) > 0).all() and ((x >= 0) & (x < n_models)).all()):
                raise ValueError(f"the solver state {name!r} is not increasing indices of"
                                 f" the {n_models} problems")
            index[name] = x.tolist()
        if set(index["done_problem"]) & set(index["running"]):
            raise ValueError("the solver state 'running' names a finished problem")
        for shapes, count in ((_done_shapes(n, d), len(index["done_problem"])),
                              (state_shapes(n, d), len(index["running"]))):
            check_solver_arrays(resumed, {name: (dtype, (count, *shape))
                                          for name, (dtype, shape) in shapes.items()})
        for name in _done_shapes(n, d):
            x = resumed[name]
            if not np.isfinite(x).all() or (name in ("done_alpha", "done_n_iter")
                                            and (x < 0).any()):
                raise ValueError(f"the solver state {name!r} is out of range")
        running = {k: {name: resumed[name][j] for name in state_shapes(n, d)}
                   for j, k in enumerate(index["running"])}
        for k, state in running.items():
            try:
                check_state(state, n, d, U)
            except ValueError as exc:
                raise ValueError(f"{exc} (problem {k})") from None
    except ValueError as exc:
        raise solver_state_error(str(exc)) from None
    done = {k: tuple(resumed[name][j] for name in _done_shapes(n, d))
            for j, k in enumerate(index["done_problem"])}
    return done, running
