"""The exact online pass: the model travels to the data.

A pass is a chain of tasks, one per block, in block order (or a seeded permutation of the
blocks): task ``j`` runs ``estimator.partial_fit(X_j, y_j)`` on the worker that holds block
``j``, starting from the estimator returned by task ``j - 1``. Only the estimator travels
(from worker to worker); the rows never leave their worker. Because ``partial_fit`` visits
the rows of a block in order and carries its whole state across calls, a pass is the
single-machine online pass over the concatenated blocks, bit for bit:

    for pass in 1..n_passes:  for j in order:  est.partial_fit(X_j, y_j, classes)

The work is sequential by nature (step ``t`` needs the model of step ``t - 1``); the other
methods trade this exactness for parallel work. The client holds the estimator between
passes, so a worker lost mid-pass costs at most the tasks of that pass.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.utils import check_random_state


def partial_fit_block(shard, estimator, classes, *, j: int):
    """Task: the estimator after ``partial_fit`` on one block (the input is not changed)."""
    X, y = shard
    est = copy.deepcopy(estimator)  # the input may be another key's stored result
    est.partial_fit(X, y, classes=classes)
    return est


def fit_online(run, estimator, classes, *, n_passes: int = 1, shuffle_blocks: bool = False,
               random_state=None):
    """Chain ``partial_fit`` over the blocks ``n_passes`` times; returns the fitted copy."""
    from dask.sizeof import sizeof

    rng = check_random_state(random_state)
    m = run.n_shards
    state = copy.copy(estimator)
    # the blocks are arrays: feature names would only make partial_fit warn (fit sets them)
    if hasattr(state, "feature_names_in_"):
        del state.feature_names_in_
    for p in range(n_passes):
        order = rng.permutation(m) if shuffle_blocks else np.arange(m)
        before = getattr(state, "n_mistakes_", 0)
        future = state  # the first task's input is the estimator itself, in its spec
        run.bytes_sent += sizeof(state)
        for i, j in enumerate(order):
            future = run.submit(partial_fit_block, run.shards.futures[j], future, classes,
                                j=int(j), step="partial-fit", index=(p, i))
        state = run.gather(future)
        record = {"method": "online", "round": p + 1, "blocks": order.tolist()}
        if hasattr(state, "n_mistakes_"):
            record["mistakes"] = int(state.n_mistakes_ - before)
        run.report(record, f"pass {p + 1}: {m} blocks"
                   + (f", {record['mistakes']} mistakes" if "mistakes" in record else ""))
    return state
