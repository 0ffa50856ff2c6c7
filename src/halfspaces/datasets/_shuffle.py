"""The rows of a shuffled stream's pass: a block shuffle buffer, seeded.

A pass holds at most ``window`` rows at a time. The rows come in windows of ``window``
consecutive rows of the stream, and each window is permuted. A stream that can be read out
of order (a binary cache) first permutes pieces of ``window // PIECES`` rows of its blocks,
so that a window gathers pieces from all over the data: a file sorted by label is then mixed
as well as by a shuffle of all its rows. A text file is read in its order, so its rows move
only within their window.

Every choice is drawn from one ``RandomState``, in the order the pass is read: a pass is a
function of the generator's state at its start, which a checkpoint inside the pass records.
Data of at most ``window`` rows is one window: its pass is then ``rng.permutation(n)`` of the
rows, the order in which ``fit`` visits them with ``shuffle=True``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

# Rows held by a pass: most data sets are one window.
SHUFFLE_WINDOW = 1 << 16
# The pieces of a window read out of order (a cache).
PIECES = 16


def check_window(window) -> int:
    """``window`` (rows, an int >= 1; None: :data:`SHUFFLE_WINDOW`) checked."""
    if window is None:
        return SHUFFLE_WINDOW
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"fit_stream: 'shuffle_window' must be an int >= 1 (rows) or None;"
                         f" got {window!r}.")
    return int(window)


def shuffled_pass(source, n_rows: int | None, rng: np.random.RandomState, window: int):
    """The ``(X, y, w)`` blocks of one pass over ``source`` (a ``stream._Blocks``) of
    ``n_rows`` rows (None: not known before the pass), shuffled with ``rng``."""
    cache = source.cache
    if cache is not None and n_rows is not None and n_rows > window:
        blocks = _pieces(cache, rng, max(1, window // PIECES), source.sample_weight)
    else:
        blocks = source.weighted()
    held, count = [], 0
    for X, y, w in blocks:
        start = 0
        while start < X.shape[0]:
            stop = min(X.shape[0], start + window - count)
            held.append((X[start:stop], y[start:stop], None if w is None else w[start:stop])
                        if start or stop < X.shape[0] else (X, y, w))
            count += stop - start
            start = stop
            if count == window:
                yield _permuted(held, rng)
                held, count = [], 0
    if held:
        yield _permuted(held, rng)


def _pieces(cache, rng: np.random.RandomState, piece: int, weights: bool):
    """The pieces of ``piece`` rows of the cache's blocks (the last of a block may be
    shorter), in the order of a permutation drawn from ``rng``."""
    starts = [(k, a) for k, (rows, _) in enumerate(cache.header["blocks"])
              for a in range(0, rows, piece)]
    for i in rng.permutation(len(starts)):
        k, a = starts[i]
        X, y, *w = cache.block(k, weights=weights)
        w = w[0] if w else None
        yield X[a:a + piece], y[a:a + piece], None if w is None else w[a:a + piece]


def _permuted(held: list, rng: np.random.RandomState) -> tuple:
    """The rows of the blocks ``held``, stacked, in the order of a permutation drawn from
    ``rng`` (weights: 1 for a block that has none, when another has some)."""
    X = held[0][0] if len(held) == 1 else sp.vstack([h[0] for h in held], format="csr")
    y = np.concatenate([h[1] for h in held])
    w = None
    if any(h[2] is not None for h in held):
        w = np.concatenate([np.ones(h[1].shape[0]) if h[2] is None else h[2] for h in held])
    order = rng.permutation(y.shape[0])
    return X[order], y[order], None if w is None else w[order]
