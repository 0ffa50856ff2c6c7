"""Rounds on the cluster: send a model, run a task on every shard, sum the results in a tree.

Every distributed method is a loop of rounds driven from the client. In a round the client

1. *puts* the current model (weight vectors and scalars) on the cluster as a task whose
   input is the model itself, so it can be recomputed if the worker that holds it dies;
2. *maps* a task over the shards: the scheduler runs each task on the worker that holds
   its shard (the shard is the large input, the model the small one);
3. *reduces* the per-shard results (dicts of arrays and scalars) by a tree of additions
   with ``fan_in`` inputs per task, in the fixed order of the shards, so the sum does not
   depend on which worker computed what, nor on how many workers there are;
4. *gathers* the sum: one model's worth of numbers comes back to the client.

Task keys are ``("halfspaces-<method>-<step>-<tag>", round, shard)``; the dashboard groups
them by their prefix (``halfspaces-ipm-epoch``, ``halfspaces-cocoa-local``, ...).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

FAN_IN = 8
INLINE_BYTES = 64_000


def identity(value):
    """Task: the value itself (a model put on the cluster; recomputable from its spec)."""
    return value


def add(*parts: dict) -> dict:
    """Task: the sum of dicts of numbers and arrays; ``"per_shard"`` dicts are merged."""
    out: dict = {}
    for part in parts:
        for name, value in part.items():
            if name == "per_shard":
                out.setdefault(name, {}).update(value)
            elif name in out:
                out[name] = out[name] + value
            else:
                out[name] = value.copy() if isinstance(value, np.ndarray) else value
    return out


def pick(result: dict, name: str):
    """Task: one entry of a result (runs where the result is, so the rest never moves)."""
    return result[name]


class Run:
    """One fit's connection to the cluster: its shards, task names and progress reports."""

    def __init__(self, client, shards, method: str, *, retries: int, verbose: bool,
                 callback: Callable[[dict], Any] | None):
        self.client = client
        self.shards = shards
        self.method = method
        self.tag = uuid.uuid4().hex[:8]
        self.retries = retries
        self.verbose = verbose
        self.callback = callback
        self.bytes_sent = 0  # client -> cluster: models (in task specs or put once)
        self.bytes_received = 0  # cluster -> client: the gathered sums

    @property
    def n_shards(self) -> int:
        return len(self.shards.futures)

    def key(self, step: str, *index) -> tuple:
        return (f"halfspaces-{self.method}-{step}-{self.tag}", *index)

    def submit(self, func, *args, step: str, index: tuple, **kwargs):
        return self.client.submit(func, *args, key=self.key(step, *index),
                                  retries=self.retries, **kwargs)

    def put(self, value, step: str, r: int):
        """The model ``value`` as a future (one upload; workers fetch it from each other),
        or ``value`` itself when it is small enough to travel inside every task."""
        from dask.sizeof import sizeof

        size = sizeof(value)
        if size <= INLINE_BYTES:
            self.bytes_sent += size * self.n_shards
            return value
        self.bytes_sent += size
        return self.submit(identity, value, step=step, index=(r,))

    def gather(self, future):
        """The result of ``future`` on the client (its bytes are counted)."""
        from dask.sizeof import sizeof

        value = future.result()
        self.bytes_received += sizeof(value)
        return value

    def map(self, func, *args, step: str, r: int, states: list | None = None, **kwargs) -> list:
        """``func(shard_j, [states[j]], *args, j=j, **kwargs)`` on every shard's worker."""
        futures = []
        for j, shard in enumerate(self.shards.futures):
            first = (shard,) if states is None else (shard, states[j])
            futures.append(self.submit(func, *first, *args, j=j, step=step, index=(r, j),
                                       **kwargs))
        return futures

    def reduce(self, futures: list, step: str, r: int):
        """The sum of the results (:func:`add`), by a tree of at most ``FAN_IN`` inputs."""
        level = 0
        while len(futures) > 1:
            futures = [self.submit(add, *futures[i:i + FAN_IN], step=step,
                                   index=(r, level, i // FAN_IN))
                       for i in range(0, len(futures), FAN_IN)]
            level += 1
        return futures[0]

    def pick(self, futures: list, name: str, step: str, r: int) -> list:
        return [self.submit(pick, f, name, step=step, index=(r, j))
                for j, f in enumerate(futures)]

    def map_reduce(self, func, *args, step: str, r: int, **kwargs) -> dict:
        """Map ``func`` over the shards, sum the results on the cluster, gather the sum."""
        return self.gather(self.reduce(self.map(func, *args, step=step, r=r, **kwargs),
                                       f"{step}-sum", r))

    def report(self, record: dict, line: str) -> None:
        """Progress of one round: ``verbose`` prints ``line``, ``callback`` gets ``record``
        (with the bytes sent to and received from the cluster so far)."""
        record["bytes_sent"], record["bytes_received"] = self.bytes_sent, self.bytes_received
        if self.verbose:
            print(f"halfspaces.dask[{self.method}] {line}", flush=True)
        if self.callback is not None:
            self.callback(record)

    def close(self) -> None:
        """Release the shards held for this fit (the user's persisted data is untouched)."""
        self.client.cancel(self.shards.futures)
