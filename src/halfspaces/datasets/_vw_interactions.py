"""Vowpal Wabbit's quadratic feature interactions (``-q ab``) over hashed features.

VW groups the namespaces of a line by the first character of their name (the default
namespace is ``' '``). For an interaction ``ab`` (``:`` stands for any namespace) and each
pair of namespaces ``x <= y`` it names on a line, each feature ``i`` of ``x`` (hash
``h_i``, value ``v_i``) and feature ``j`` of ``y`` give the feature

    index = ((16777619 * h_i) XOR h_j) mod 2**64,    value = v_i * v_j

(16777619 is the 32-bit FNV prime); when ``x == y``, only the ``j`` at or after ``i`` on
the line (VW's simple combinations: a feature with itself, not both orders). An interaction
named twice (``ab`` and ``ba``) counts once. The line keeps its own features, and every
index then goes to its bucket, ``index mod n_features``: with VW's ``2**bits`` buckets,
``index & (2**bits - 1)``.

The hashes ``h`` are the reader's MurmurHash3 of ``namespace^name``, not VW's own hash, so
the columns are not VW's; the rule that builds the interactions is VW's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FNV_PRIME = 16777619
ANY = ord(":")
_LOW32 = np.uint64(0xFFFFFFFF)


def check_interactions(interactions) -> np.ndarray:
    """The interactions as a uint8 array of shape (k, 2): each is two characters, the first
    letters of two namespaces (``' '`` the default one) or ``:`` for any; ``()``: none
    (the line's own features, tagged, to count the collisions of their hashes)."""
    if isinstance(interactions, str):
        interactions = [interactions]
    specs = list(interactions)
    bad = [s for s in specs if not isinstance(s, str) or len(s.encode("utf-8")) != 2]
    if bad or not (specs or isinstance(interactions, tuple)):
        raise ValueError(f"vw: 'interactions' must be a list of two-character strings (the"
                         f" first letters of two namespaces, ':' for any, ' ' for the default"
                         f" namespace), e.g. ['ab'] or ['::']; got {interactions!r}.")
    return np.array([list(s.encode("utf-8")) for s in specs], dtype=np.uint8).reshape(-1, 2)


@njit(cache=True, inline="always")
def _matches(specs, x, y):
    """Whether the namespaces ``x <= y`` make one of the interactions, in either order."""
    for k in range(specs.shape[0]):
        a, b = specs[k, 0], specs[k, 1]
        if ((a == ANY or a == x) and (b == ANY or b == y)) or \
                ((a == ANY or a == y) and (b == ANY or b == x)):
            return True
    return False


@njit(cache=True)
def _row(data, keys, start, stop, specs, spaces, out_data, out_keys, at, fill):
    """Write row ``keys[start:stop]``'s own features, then its interactions, from ``at``
    (only count them unless ``fill``); returns where the row ends."""
    n_spaces = 0
    for p in range(start, stop):
        ns = keys[p] >> 32
        if fill:
            out_data[at], out_keys[at] = data[p], np.uint64(keys[p]) & _LOW32
        at += 1
        seen = False
        for s in range(n_spaces):
            seen = seen or spaces[s] == ns
        if not seen:
            spaces[n_spaces] = ns
            n_spaces += 1
    for s in range(n_spaces):
        for t in range(n_spaces):
            x, y = spaces[s], spaces[t]
            if x > y or not _matches(specs, x, y):
                continue
            for p in range(start, stop):
                if keys[p] >> 32 != x:
                    continue
                half = np.uint64(FNV_PRIME) * (np.uint64(keys[p]) & _LOW32)
                for q in range(p if x == y else start, stop):
                    if keys[q] >> 32 == y:
                        if fill:
                            out_data[at] = data[p] * data[q]
                            out_keys[at] = half ^ (np.uint64(keys[q]) & _LOW32)
                        at += 1
    return at


@njit(cache=True)
def quadratic_rows(data, keys, indptr, specs):
    """The rows of ``(data, keys, indptr)`` (keys: 32-bit hashes tagged with their
    namespace in bits 32 to 39) with their interactions: ``(data, full keys as uint64,
    indptr)``, unmasked."""
    n_rows = indptr.size - 1
    spaces = np.empty(256, dtype=np.int64)
    out_indptr = np.zeros(n_rows + 1, dtype=np.int64)
    none_f, none_k = np.empty(0, dtype=np.float64), np.empty(0, dtype=np.uint64)
    for r in range(n_rows):
        out_indptr[r + 1] = _row(data, keys, indptr[r], indptr[r + 1], specs, spaces,
                                 none_f, none_k, out_indptr[r], False)
    out_data = np.empty(out_indptr[n_rows], dtype=np.float64)
    out_keys = np.empty(out_indptr[n_rows], dtype=np.uint64)
    for r in range(n_rows):
        _row(data, keys, indptr[r], indptr[r + 1], specs, spaces, out_data, out_keys,
             out_indptr[r], True)
    return out_data, out_keys, out_indptr


def interact(data, keys, indptr, specs, n_features: int):
    """``(data, indices, indptr, keys)``: the rows with their interactions, the indices in
    ``n_features`` buckets, and the keys before that (what tells two features apart, for
    :class:`Collisions`)."""
    with np.errstate(over="ignore"):  # the FNV product wraps, as VW's uint64 does
        out_data, out_keys, out_indptr = quadratic_rows(data, keys, indptr, specs)
    indices = (out_keys % np.uint64(n_features)).astype(np.int64)
    return out_data, indices, out_indptr, out_keys


class Collisions:
    """The distinct features (unmasked keys) seen, and the buckets they share."""

    def __init__(self, n_features: int):
        self.n_features, self.keys = n_features, np.empty(0, dtype=np.uint64)

    def add(self, keys) -> None:
        self.keys = np.union1d(self.keys, np.unique(keys))

    def result(self) -> dict:
        """``distinct_features``, ``buckets_used``, ``collided`` (the distinct features that
        share their bucket with another) and ``rate`` (collided / distinct)."""
        buckets = self.keys % np.uint64(self.n_features)
        _, counts = np.unique(buckets, return_counts=True)
        collided = int(counts[counts > 1].sum())
        n = int(self.keys.size)
        return {"distinct_features": n, "buckets": self.n_features,
                "buckets_used": int(counts.size), "collided": collided,
                "rate": collided / n if n else 0.0}
