"""A small, fast random generator for compiled kernels (splitmix64, Steele et al. 2014).

Kernels that shuffle inside one compiled call cannot use NumPy's Generator; they carry a
``uint64[1]`` state seeded from the estimator's ``random_state``, so results stay
reproducible bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import config as numba_config
from numba import njit


@njit(cache=True)
def splitmix64(rng_state):
    """The next 64-bit random integer; advances the state ``rng_state[0]`` in place."""
    z = rng_state[0] + np.uint64(0x9E3779B97F4A7C15)
    rng_state[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


if numba_config.DISABLE_JIT:  # kernels run as Python: NumPy warns on the wraparound we want
    _splitmix64 = splitmix64

    def splitmix64(rng_state):
        """``splitmix64`` with uint64 overflow (modular arithmetic by design) not warned."""
        with np.errstate(over="ignore"):
            return _splitmix64(rng_state)
