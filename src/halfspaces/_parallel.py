"""One-vs-rest across threads: the binary problems of a multi-class fit solved in parallel.

The compiled kernels release the GIL (``nogil=True``), so threads share the data without
copies and run on separate cores. Each problem gets everything random from the caller
before the threads start (a seed drawn in class order), so the result does not depend on
which thread runs which problem: it is the same, bit for bit, for every ``n_jobs``. The
online learners cut the classes into contiguous groups (:func:`map_groups`), a thread and a
scratch buffer per group, every group passing over the rows in the same order. The threads
do not see the caller's context variables: a progress listener
(:mod:`halfspaces._progress`) hears the problems only when they run in one thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ._specs import NONE, Int, OneOf

__all__ = ["N_JOBS", "effective_n_jobs", "map_groups", "map_problems"]

T = TypeVar("T")

N_JOBS = OneOf(Int(low=1), Int(high=-1), NONE).about(
    "threads for the one-vs-rest problems, as scikit-learn's: None or 1 is one, -1 every"
    " core, -2 all but one", "Try n_jobs=-1, or None for one thread.")


def effective_n_jobs(n_jobs: int | None) -> int:
    """The number of threads ``n_jobs`` means (scikit-learn's convention, ``n_jobs != 0``)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


def map_problems(solve: Callable[[int], T], n_problems: int, n_jobs: int | None) -> list[T]:
    """``[solve(0), ..., solve(n_problems - 1)]``, in threads when ``n_jobs`` allows; the
    first exception raised (in problem order) is raised here."""
    workers = min(effective_n_jobs(n_jobs), n_problems)
    if workers <= 1:
        return [solve(k) for k in range(n_problems)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(solve, range(n_problems)))


def map_groups(solve: Callable[[range], T], n_problems: int, n_jobs: int | None) -> list[T]:
    """``solve(group)`` for each of ``min(n_jobs, n_problems)`` contiguous groups of the
    problems ``0 .. n_problems - 1`` (sizes differing by at most one), one thread per
    group; the results in group order (see :func:`map_problems`). Where the work on a
    problem needs scratch memory, each group allocates its own once."""
    workers = min(effective_n_jobs(n_jobs), n_problems)
    if workers <= 1:
        return [solve(range(n_problems))]
    groups = [range(g * n_problems // workers, (g + 1) * n_problems // workers)
              for g in range(workers)]
    return map_problems(lambda g: solve(groups[g]), workers, workers)
