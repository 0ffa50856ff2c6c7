"""The compiled Vowpal Wabbit line parser: one pass over a region of bytes (whole lines).

Each line is ``<label> [<importance> [<base>]] ['<tag>] |<namespace>[:<weight>] <name>[:<value>]
... |...`` (see :mod:`halfspaces.datasets.vw`); a tag after the label may also go without
its quote when it touches the '|' (``1 1.0 zebra|f a``). Tokens are separated by blanks, the
segments of a line by ``|``. A feature's column is ``murmurhash3_32(namespace + "^" + name, seed) %
n_features`` (MurmurHash3 x86 32-bit, as scikit-learn's ``murmurhash3_32(..., positive=True)``
on the UTF-8 bytes) or, without hashing, the integer ``name``; its value is ``value * weight``.
The numbers go through :func:`~halfspaces.datasets._numbers.parse_number`.

The kernel reads ASCII lines. A line with a byte above 127 (UTF-8 names, Unicode blanks or
digits, which Python's ``str.split`` and ``float`` accept) or with a number that C's strtod
cannot finish is left to Python, whole: the kernel gives it an empty row and notes it in
``Rows.slow``, and the block driver parses it again (``vw._python_row``) and splices it in.
The kernel never raises: a status code and the bad token's offsets go to ``Rows.info``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._numbers import IS_INF, IS_NAN, NOT_A_NUMBER, TO_PYTHON, delimiters, parse_number
from ._svmlight_lines import fits_after_digit

# Status codes (0 is success); vw.ERRORS words them.
NO_BAR, NO_LABEL, LONG_HEAD, BAD_LABEL, BAD_IMPORTANCE, BAD_BASE = 1, 2, 3, 4, 5, 6
BAD_NS_WEIGHT, NO_NAME, BAD_VALUE, NOT_INTEGER, BIG_INDEX = 7, 8, 9, 10, 11
NEGATIVE_IMPORTANCE = 12
_LEFT_TO_PYTHON = -1  # a line status: parse this line in Python

# Blanks as Python's str.split() sees them in ASCII; a token also ends at '|' and newline.
_SPACES = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f"
_BLANK = delimiters(_SPACES)
DELIM = delimiters(_SPACES + b"|\n")

# The slots of Rows.info.
I_STATUS, I_BAD_START, I_BAD_END, I_ROWS, I_NNZ, I_SLOW = range(6)
INFO_SIZE = 6

_M32 = np.uint64(0xFFFFFFFF)
_C1, _C2 = np.uint64(0xCC9E2D51), np.uint64(0x1B873593)
_F1, _F2 = np.uint64(0x85EBCA6B), np.uint64(0xC2B2AE35)
_N1, _FIVE = np.uint64(0xE6546B64), np.uint64(5)
_R13, _R15, _R16, _R17, _R19 = (np.uint64(k) for k in (13, 15, 16, 17, 19))
_S8, _S16, _S24 = np.uint64(8), np.uint64(16), np.uint64(24)


class Options(NamedTuple):
    """``hash_features``; ``n_buckets`` (the modulus of the hash); ``seed`` (uint32, as a
    non-negative int); whether C's strtod may finish the hard numbers; ``tag_namespaces``:
    each column also holds, in bits 32 to 39, the first byte of its namespace's name (a
    space for the default namespace), which feature interactions pair
    (:mod:`halfspaces.datasets._vw_interactions`)."""

    hash_features: bool
    n_buckets: int
    seed: int
    use_strtod: bool
    tag_namespaces: bool = False


class Rows(NamedTuple):
    """The kernel's output, arrays sized by the caller from the region's lines and tokens.

    data : float64[cap_nnz]; indices : int64[cap_nnz] (hashed columns, or integer names in
    the file's numbering); indptr : int64[cap_rows + 1]; labels, weights :
    float64[cap_rows] (the importance, 1 when absent); line_pos : int64[cap_rows], the offset
    of each row's line; slow : int64[cap_rows], the rows left to Python (their line is at
    ``line_pos``); info : int64[INFO_SIZE]: status, bad token start and end (on error), rows,
    entries, rows left to Python. On error the rows before the failing line are complete.
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    line_pos: np.ndarray
    slow: np.ndarray
    info: np.ndarray


@njit(cache=True, inline="always")
def _rotl(x, r):
    return ((x << r) | (x >> (np.uint64(32) - r))) & _M32


@njit(cache=True, inline="always")
def _mix(k):
    return (_rotl((k * _C1) & _M32, _R15) * _C2) & _M32


@njit(cache=True, inline="always")
def murmurhash3_32(key, n, seed):
    """MurmurHash3 x86 32-bit of the bytes key[:n] with a uint32 ``seed`` (an int), as an
    unsigned int (every product is of two values below 2**32, so it is exact in uint64)."""
    h = np.uint64(seed)
    n_blocks = n // 4
    for i in range(n_blocks):
        j = 4 * i
        k = (np.uint64(key[j]) | (np.uint64(key[j + 1]) << _S8)
             | (np.uint64(key[j + 2]) << _S16) | (np.uint64(key[j + 3]) << _S24))
        h = _rotl(h ^ _mix(k), _R13)
        h = (h * _FIVE + _N1) & _M32
    k = np.uint64(0)
    tail = 4 * n_blocks
    rest = n - tail
    if rest >= 3:
        k ^= np.uint64(key[tail + 2]) << _S16
    if rest >= 2:
        k ^= np.uint64(key[tail + 1]) << _S8
    if rest >= 1:
        k ^= np.uint64(key[tail])
        h ^= _mix(k)
    h ^= np.uint64(n)
    h ^= h >> _R16
    h = (h * _F1) & _M32
    h ^= h >> _R13
    h = (h * _F2) & _M32
    h ^= h >> _R16
    return np.int64(h)


@njit(cache=True, nogil=True)
def count_lines_and_tokens(buf, start, end):
    """Newlines in buf[start:end] and bytes that start a token (a byte that is not a blank,
    '|' or newline after one that is): bounds on the rows and entries of the region."""
    newlines = 0
    starts = 0
    was_delim = 1
    for p in range(np.uint64(start), np.uint64(end)):
        c = buf[p]
        d = DELIM[c]
        newlines += c == 10
        starts += (d == 0) & (was_delim != 0)
        was_delim = d
    return newlines, starts


@njit(cache=True, inline="always")
def _token(buf, p):
    """``(end, ascii)`` of the token at ``p``: its end (a blank, '|' or newline) and whether
    all its bytes are ASCII."""
    ascii_only = True
    c = buf[np.uint64(p)]
    while DELIM[c] == 0:
        ascii_only &= c < 128
        p += 1
        c = buf[np.uint64(p)]
    return p, ascii_only


@njit(cache=True, inline="always")
def _skip_blanks(buf, p):
    while _BLANK[buf[np.uint64(p)]] != 0:
        p += 1
    return p


@njit(cache=True, inline="always")
def _colon(buf, s, e):
    """The offset of the first ':' in buf[s:e], or e."""
    while s < e and buf[np.uint64(s)] != 58:
        s += 1
    return s


@njit(cache=True)
def _fail(info, code, s, e):
    info[I_STATUS], info[I_BAD_START], info[I_BAD_END] = code, s, e
    return code


@njit(cache=True, inline="always")
def _number(buf, s, e, code, opts, info):
    """``(status, value)`` of the number buf[s:e] (the whole token): 0, ``code`` (not a
    number, NaN or infinite) or _LEFT_TO_PYTHON."""
    v, st, q = parse_number(buf, s, DELIM, opts.use_strtod)
    if st == TO_PYTHON:
        return _LEFT_TO_PYTHON, 0.0
    if st == NOT_A_NUMBER or st == IS_NAN or st == IS_INF or q != e:
        return _fail(info, code, s, e), 0.0
    return 0, v


@njit(cache=True)
def _head(buf, p, spans, info):
    """The tokens before the first '|' (the tag left out: a token that starts with ``'``
    or, after the label, touches the '|', as VW reads it): ``(status, n, end)``, the
    (start, end) of the first three in ``spans`` (int64[6]), ``end`` the offset after the
    '|'."""
    n = 0
    line = p
    while True:
        p = _skip_blanks(buf, p)
        c = buf[np.uint64(p)]
        if c == 124:
            break
        if c == 10:
            return _fail(info, NO_BAR, line, p), n, p
        e, ascii_only = _token(buf, p)
        if not ascii_only:
            return _LEFT_TO_PYTHON, n, p
        if c != 39 and (buf[np.uint64(e)] != 124 or n == 0):
            if n < 3:
                spans[2 * n], spans[2 * n + 1] = p, e
            n += 1
        p = e
    if n == 0:
        return _fail(info, NO_LABEL, line, p), n, p
    if n > 3:
        return _fail(info, LONG_HEAD, line, p), n, p
    return 0, n, p + 1


@njit(cache=True)
def _label_and_weight(buf, line, opts, spans, info):
    """``(status, label, importance, offset after the first '|')`` of the line at ``line``
    (``spans``: scratch for :func:`_head`)."""
    st, n, p = _head(buf, line, spans, info)
    if st:
        return st, 0.0, 1.0, p
    st, label = _number(buf, spans[0], spans[1], BAD_LABEL, opts, info)
    importance = 1.0
    if st == 0 and n > 1:
        st, importance = _number(buf, spans[2], spans[3], BAD_IMPORTANCE, opts, info)
        if st == 0 and importance < 0.0:
            st = _fail(info, NEGATIVE_IMPORTANCE, spans[2], spans[3])
    if st == 0 and n > 2:
        st, _ = _number(buf, spans[4], spans[5], BAD_BASE, opts, info)
    return st, label, importance, p


@njit(cache=True)
def _key_room(key, n):
    """``key``, or a larger copy when it holds fewer than ``n`` bytes."""
    if key.size >= n:
        return key
    bigger = np.empty(2 * n, dtype=np.uint8)
    bigger[: key.size] = key
    return bigger


@njit(cache=True, inline="always")
def _column(buf, s, c, key, k, opts, info):
    """``(status, column, key)`` of the feature name buf[s:c]: hashed after the namespace's
    ``key[:k]`` (``namespace^``), or the integer it spells."""
    if opts.hash_features:
        key = _key_room(key, k + c - s)
        for r in range(s, c):
            key[k + r - s] = buf[np.uint64(r)]
        return 0, murmurhash3_32(key, k + c - s, opts.seed) % opts.n_buckets, key
    for r in range(s, c):
        if not 48 <= buf[np.uint64(r)] <= 57:
            return _fail(info, NOT_INTEGER, s, c), 0, key
    idx = 0
    for r in range(s, c):
        d = int(buf[np.uint64(r)]) - 48
        if not fits_after_digit(idx, d):
            return _fail(info, BIG_INDEX, s, c), 0, key
        idx = idx * 10 + d
    return 0, idx, key


@njit(cache=True, inline="always")
def _namespace(buf, p, key, opts, info):
    """Read the namespace token of a segment at ``p`` (none when a blank follows the '|'):
    ``(status, weight, key, k, end)``, ``key[:k]`` holding ``namespace^``."""
    c = buf[np.uint64(p)]
    if DELIM[c] != 0:  # a blank after the bar, or an empty segment: namespace ""
        key[0] = 94
        return 0, 1.0, key, 1, p
    e, ascii_only = _token(buf, p)
    if not ascii_only:
        return _LEFT_TO_PYTHON, 1.0, key, 0, e
    colon = _colon(buf, p, e)
    key = _key_room(key, colon - p + 1)
    for r in range(p, colon):
        key[r - p] = buf[np.uint64(r)]
    key[colon - p] = 94  # '^'
    weight = 1.0
    if e - colon > 1:
        st, weight = _number(buf, colon + 1, e, BAD_NS_WEIGHT, opts, info)
        if st:
            if st > 0:
                info[I_BAD_START] = p
            return st, weight, key, 0, e
    return 0, weight, key, colon - p + 1, e


@njit(cache=True)
def _features(buf, p, nnz, key, opts, out):
    """Read the segments after the first '|' to the end of the line: ``(status, nnz, key,
    end)`` (``end`` at the newline)."""
    info = out.info
    while True:
        st, scale, key, k, p = _namespace(buf, p, key, opts, info)
        if st:
            return st, nnz, key, p
        while True:
            p = _skip_blanks(buf, p)
            c = buf[np.uint64(p)]
            if c == 10 or c == 124:
                break
            e, ascii_only = _token(buf, p)
            if not ascii_only:
                return _LEFT_TO_PYTHON, nnz, key, p
            colon = _colon(buf, p, e)
            if colon == p:
                return _fail(info, NO_NAME, p, e), nnz, key, p
            v = 1.0
            if colon < e:
                st, v = _number(buf, colon + 1, e, BAD_VALUE, opts, info)
                if st:
                    if st > 0:
                        info[I_BAD_START] = p
                    return st, nnz, key, p
            st, col, key = _column(buf, p, colon, key, k, opts, info)
            if st:
                return st, nnz, key, p
            out.data[nnz] = v * scale
            out.indices[nnz] = col
            if opts.tag_namespaces:
                out.indices[nnz] += np.int64(key[0] if k > 1 else 32) << 32
            nnz += 1
            p = e
        if c == 10:
            return 0, nnz, key, p
        p += 1


@njit(cache=True, inline="always")
def _is_blank_line(buf, p):
    """Whether the line at ``p`` holds only ASCII blanks (a byte above 127 may be a Unicode
    blank: such a line is not called blank here, and goes to Python)."""
    return buf[np.uint64(_skip_blanks(buf, p))] == 10


@njit(cache=True, nogil=True)
def parse_vw(buf, start, end, opts, out):
    """Parse the lines of buf[start:end] into ``out`` (:class:`Rows`); returns the status.

    buf : uint8[n], C-contiguous, n >= end + PAD, with a newline at buf[end - 1];
    opts : :class:`Options`.
    """
    info = out.info
    key = np.empty(64, dtype=np.uint8)
    spans = np.empty(6, dtype=np.int64)
    row = nnz = n_slow = 0
    out.indptr[0] = 0
    p = start
    while p < end:
        line = p
        p = _next_newline(buf, p) + 1
        if _is_blank_line(buf, line):
            continue
        st, label, importance, q = _label_and_weight(buf, line, opts, spans, info)
        nnz_line = nnz
        if st == 0:
            st, nnz_line, key, q = _features(buf, q, nnz, key, opts, out)
        if st > 0:
            info[I_ROWS], info[I_NNZ], info[I_SLOW] = row, nnz, n_slow
            return st
        if st == _LEFT_TO_PYTHON:
            out.slow[n_slow] = row
            n_slow += 1
            label, importance = 0.0, 1.0
        else:
            nnz = nnz_line
        out.labels[row], out.weights[row], out.line_pos[row] = label, importance, line
        row += 1
        out.indptr[row] = nnz
    info[I_ROWS], info[I_NNZ], info[I_SLOW] = row, nnz, n_slow
    return 0


@njit(cache=True, inline="always")
def _next_newline(buf, p):
    while buf[np.uint64(p)] != 10:
        p += 1
    return p
