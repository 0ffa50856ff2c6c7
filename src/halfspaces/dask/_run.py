"""Rounds on the cluster: one actor per worker holds its shards; a round is one call to each.

Every distributed method is a loop of rounds driven from the client. At the start of a fit
each worker that holds shards gets a :class:`ShardHost` actor, built on that worker from
its shards (no rows move); it keeps them, and each shard's own state (CoCoA+'s dual
variables), until the fit ends. A round is then

1. one direct call from the client to every host (no scheduler, no task graph) carrying the
   model (weight vectors and scalars) and the round's parameters;
2. on each host, the round's function on every shard it holds, in shard order;
3. the per-shard results (dicts of arrays and scalars) back to the client, which adds them
   in the fixed order of the shards (:func:`add`), so the sum depends neither on which
   worker computed what nor on how many workers there are.

A round therefore costs one message to and from each worker, whatever the number of
shards: the scheduler's batched streams (several milliseconds a hop) are not on its path.

**Failures.** Every round's function is deterministic given its inputs (random draws are
seeded by the round and the shard). The client keeps the inputs of every round that changed
a shard's state; if a host cannot be reached (its worker died), the scheduler recomputes
the lost shards from their source, the client builds the hosts again and replays the kept
rounds on them, then repeats the round: the fit ends with the model it would have had.

:func:`fit_online`'s chain of ``partial_fit`` tasks runs on the scheduler (one task per
block, keys ``("halfspaces-online-partial-fit-<tag>", pass, block)``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

#: Times the hosts are rebuilt after losing a worker before the fit gives up.
MAX_RECOVERIES = 3


def add(*parts: dict) -> dict:
    """The sum of dicts of numbers and arrays; ``"per_shard"`` dicts are merged."""
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


class ShardHost:
    """Actor: the shards one worker holds for a fit, and each shard's state between rounds."""

    def __init__(self, indices: list, *shards):
        self.shards = dict(zip(indices, shards, strict=True))
        self.states: dict = dict.fromkeys(indices)

    def step(self, func, args: tuple, kwargs: dict, stateful: bool) -> dict:
        """``func(shard_j, [state_j], *args, j=j, **kwargs)`` for every shard ``j`` held;
        a stateful ``func`` returns ``(new_state, result)``."""
        out = {}
        for j, shard in self.shards.items():
            if stateful:
                self.states[j], out[j] = func(shard, self.states[j], *args, j=j, **kwargs)
            else:
                out[j] = func(shard, *args, j=j, **kwargs)
        return out

    def replay(self, log: list) -> None:
        """Run the kept stateful rounds again (a host built after a worker was lost)."""
        for func, args, kwargs in log:
            self.step(func, args, kwargs, True)


class Run:
    """One fit's connection to the cluster: its shards, their hosts and progress reports."""

    def __init__(self, client, shards, method: str, *, retries: int, verbose: bool,
                 callback: Callable[[dict], Any] | None):
        self.client = client
        self.shards = shards
        self.method = method
        self.tag = uuid.uuid4().hex[:8]
        self.retries = retries
        self.verbose = verbose
        self.callback = callback
        self.bytes_sent = 0  # client -> cluster: models and round parameters
        self.bytes_received = 0  # cluster -> client: the per-shard results
        self.recoveries = 0
        self._hosts: list = []  # (actor future, actor)
        self._log: list = []  # the stateful rounds, for replay

    @property
    def n_shards(self) -> int:
        return len(self.shards.futures)

    def key(self, step: str, *index) -> tuple:
        return (f"halfspaces-{self.method}-{step}-{self.tag}", *index)

    def submit(self, func, *args, step: str, index: tuple, **kwargs):
        return self.client.submit(func, *args, key=self.key(step, *index),
                                  retries=self.retries, **kwargs)

    def gather(self, future):
        """The result of ``future`` on the client (its bytes are counted)."""
        from dask.sizeof import sizeof

        value = future.result()
        self.bytes_received += sizeof(value)
        return value

    def _build_hosts(self) -> None:
        from distributed import wait

        futures = self.shards.futures
        wait(futures)
        where = self.client.who_has(futures)
        by_worker: dict = {}  # "": shards being recomputed, the scheduler places their host
        for j, future in enumerate(futures):
            holders = where.get(future.key) or ("",)
            by_worker.setdefault(holders[0], []).append(j)
        self._hosts = []
        for n, (address, indices) in enumerate(sorted(by_worker.items())):
            future = self.client.submit(
                ShardHost, indices, *(futures[j] for j in indices), actor=True,
                workers=[address] if address else None, allow_other_workers=bool(address),
                key=self.key("host", self.recoveries, n))
            self._hosts.append((future, future.result()))

    def _call(self, func, args: tuple, kwargs: dict, stateful: bool) -> dict:
        from dask.sizeof import sizeof

        while True:
            try:
                if not self._hosts:
                    self._build_hosts()
                    if self._log:
                        for call in [a.replay(self._log) for _, a in self._hosts]:
                            call.result()
                calls = [actor.step(func, args, kwargs, stateful) for _, actor in self._hosts]
                parts: dict = {}
                for call in calls:
                    parts.update(call.result())
                break
            except OSError:  # a host's worker is gone: rebuild the hosts from the shards
                if self.recoveries >= MAX_RECOVERIES:
                    raise
                self.recoveries += 1
                self._release_hosts()
        self.bytes_sent += sizeof((args, kwargs)) * len(self._hosts)
        self.bytes_received += sizeof(parts)
        if stateful:
            self._log.append((func, args, kwargs))
        return parts

    def map(self, func, *args, stateful: bool = False, **kwargs) -> list:
        """The result of ``func`` on every shard, in shard order (one call per host)."""
        parts = self._call(func, args, kwargs, stateful)
        return [parts[j] for j in range(self.n_shards)]

    def map_reduce(self, func, *args, stateful: bool = False, **kwargs) -> dict:
        """The sum (:func:`add`, in shard order) of ``func``'s results on every shard.

        ``stateful``: ``func(shard, state, *args, j=j)`` returns ``(state, result)`` and the
        host keeps ``state`` for the shard's next stateful round (None in the first)."""
        return add(*self.map(func, *args, stateful=stateful, **kwargs))

    def report(self, record: dict, line: str) -> None:
        """Progress of one round: ``verbose`` prints ``line``, ``callback`` gets ``record``
        (with the bytes sent to and received from the cluster so far)."""
        record["bytes_sent"], record["bytes_received"] = self.bytes_sent, self.bytes_received
        if self.verbose:
            print(f"halfspaces.dask[{self.method}] {line}", flush=True)
        if self.callback is not None:
            self.callback(record)

    def _release_hosts(self) -> None:
        futures = [future for future, _ in self._hosts]
        self._hosts = []
        if futures:
            self.client.cancel(futures)

    def close(self) -> None:
        """Release the hosts and the shards held for this fit (the user's persisted data
        is untouched)."""
        self._release_hosts()
        self.client.cancel(self.shards.futures)
