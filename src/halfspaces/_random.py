"""The random numbers of compiled passes: a splitmix64 generator whose state the estimator
seeds from its ``random_state`` and a Fisher-Yates shuffle driven by it (imported by the
passes through :mod:`halfspaces._primitives`)."""

from __future__ import annotations

import numpy as np
from numba import config as numba_config
from numba import njit


@njit(cache=True)
def splitmix64(rng_state):
    """The next 64-bit random integer (splitmix64, Steele et al. 2014); advances
    ``rng_state[0]`` (uint64[1], seeded from the estimator's ``random_state``) in place.

    Passes that shuffle inside one compiled call cannot use NumPy's Generator; they carry
    this state from epoch to epoch, so results stay reproducible bit for bit.
    """
    z = rng_state[0] + np.uint64(0x9E3779B97F4A7C15)
    rng_state[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


if numba_config.DISABLE_JIT:  # passes run as Python: NumPy warns on the wraparound we want
    _splitmix64 = splitmix64

    def splitmix64(rng_state):
        """``splitmix64`` with uint64 overflow (modular arithmetic by design) not warned."""
        with np.errstate(over="ignore"):
            return _splitmix64(rng_state)


@njit(cache=True)
def shuffle(order, rng_state):
    """Shuffle ``order`` in place into a uniformly random permutation of itself
    (Fisher-Yates driven by :func:`splitmix64`), in about a quarter of the time of
    ``RandomState.permutation``.

    j uniform in [0, i] is ``(r (i + 1)) >> 32`` for 32 random bits r (Lemire's
    multiply-shift: no division; bias about n / 2^32), or the modulo of 53 random bits
    beyond 2^32 rows.
    """
    for i in range(order.shape[0] - 1, 0, -1):
        z = splitmix64(rng_state)
        if i < 0xFFFFFFFF:
            j = np.int64(((z >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        else:  # pragma: no cover - more than 4 billion rows
            j = np.int64((z >> np.uint64(11)) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
