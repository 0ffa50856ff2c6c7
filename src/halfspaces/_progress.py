"""Progress of the iterative solvers, for a listener such as the command line's bar.

A solver that takes ``callback`` calls it between its iterations (never per row) with a
:class:`Progress`: how many iterations are done out of ``max_iter``, and the quantity its
stopping rule tests (``measure``, stopping when it is at most ``target``) when it was
computed at that iteration. The estimators pass the callback that :func:`listening` installed
for the current context (none by default), so that their parameters stay what they are.

:func:`iterations_left` estimates what is left by extrapolating the measure's log-linear
decrease (linear convergence, as dual coordinate descent, L-BFGS and interior points show
near their optimum) to the target, capped by ``max_iter``.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import numpy as np


class Progress(NamedTuple):
    """One report of an iterative solver.

    Attributes
    ----------
    solver : str
        e.g. ``"dcd"``, ``"qp"``, ``"lbfgs"``.
    iteration : int
        Iterations done (DCD: epochs; L-BFGS and the interior point: iterations).
    max_iter : int
        The most iterations the solver runs.
    measure : float or None
        The quantity the stopping rule tests, at this iteration; None when it was not
        computed there (DCD computes its duality gap only at its checks).
    target : float
        The solver stops when ``measure <= target``.
    name : str
        What ``measure`` is, e.g. ``"relative duality gap"``.
    objective : float or None
        The objective at this iteration, when the solver knows it.
    """

    solver: str
    iteration: int
    max_iter: int
    measure: float | None
    target: float
    name: str
    objective: float | None = None


Callback = Callable[[Progress], None]
_LISTENER: contextvars.ContextVar[Callback | None] = contextvars.ContextVar(
    "halfspaces_progress", default=None)


@contextlib.contextmanager
def listening(callback: Callback) -> Iterator[None]:
    """Send the progress of every solver run in this context to ``callback``."""
    token = _LISTENER.set(callback)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def listener() -> Callback | None:
    """The callback installed by :func:`listening`, or None."""
    return _LISTENER.get()


def iterations_left(points: Sequence[tuple[float, float]], target: float, iteration: float,
                    max_iter: float) -> tuple[float, bool]:
    """``(left, extrapolated)``: an estimate of the iterations left after ``iteration``.

    ``points`` are ``(iteration, measure)`` pairs in order. The last one, ``(k_2, m_2)``,
    and a reference ``(k_1, m_1)``, the first from the later half of the run (``k_1 >=
    k_2 / 2``; the one before the last if there is none other), give the rate at which
    ``log measure`` falls, ``r = (log m_2 - log m_1) / (k_2 - k_1)`` per iteration (the
    half run smooths the steps of a measure that does not fall at every iteration). The
    measure reaches ``target`` at ``k* = k_2 + (log target - log m_2) / r``, so
    ``k* - iteration`` are left (at least 0). Without two points with positive measures,
    when the measure did not fall (``r >= 0``), or past ``max_iter``, the answer is the
    iterations up to ``max_iter``, with ``extrapolated`` False: a bound, not an estimate.

    Examples
    --------
    The measure fell from 1e-2 at iteration 10 to 1e-4 at 20, a factor 100 per 10
    iterations; another factor 100 reaches 1e-6 at iteration 30:

    >>> iterations_left([(10, 1e-2), (20, 1e-4)], 1e-6, 20, 1000)
    (10.0, True)
    >>> iterations_left([(10, 1e-2), (20, 1e-4)], 1e-6, 20, 25)
    (5, False)
    """
    bound = max(max_iter - iteration, 0)
    usable = [(k, m) for k, m in points if m > 0 and math.isfinite(m)]
    if len(usable) < 2:
        return bound, False
    k2, m2 = usable[-1]
    if m2 <= target:
        return 0.0, True
    later = next(j for j, (k, _) in enumerate(usable) if k >= k2 / 2)
    k1, m1 = usable[min(later, len(usable) - 2)]
    rate = (math.log(m2) - math.log(m1)) / (k2 - k1) if k2 > k1 else 0.0
    if not rate < 0.0:
        return bound, False
    left = max(k2 + (math.log(target) - math.log(m2)) / rate - iteration, 0.0)
    return (left, True) if left < bound else (bound, False)


def lbfgs_reports(fun: Callable, callback: Callback | None, max_iter: int, tol: float):
    """``(fun, scipy_callback)`` for ``scipy.optimize.minimize(method="L-BFGS-B")`` that
    report each iteration to ``callback``: its number, ``J`` and ``max |grad J|`` (the
    stopping rule's measure, target ``tol``). ``fun`` (returning ``(J, grad J)``) is
    wrapped to remember its last point, which is L-BFGS-B's new iterate when it calls back
    (the measure is None if it is not). ``(fun, None)`` without ``callback``."""
    if callback is None:
        return fun, None
    last: list = []
    done = [0]

    def evaluate(theta):
        value = fun(theta)
        last[:] = [theta.copy(), value[1]]
        return value

    def report(intermediate_result):
        done[0] += 1
        x, grad = last
        same = np.array_equal(x, intermediate_result.x)
        callback(Progress("lbfgs", done[0], int(max_iter),
                          float(np.max(np.abs(grad), initial=0.0)) if same else None,
                          float(tol), "max |gradient|", float(intermediate_result.fun)))

    return evaluate, report
