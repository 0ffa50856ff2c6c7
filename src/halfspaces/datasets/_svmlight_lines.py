"""The compiled svmlight line parser: one pass over a region of bytes (whole lines).

Each line is ``<label> [qid:<int>] <index>:<value> ... [# comment]``; the kernel checks the
syntax, converts the numbers (:func:`~halfspaces.datasets._numbers.parse_number`) and writes
the rows as CSR pieces into :class:`Rows`. It never raises: a status code (0 = success) and
the offsets of the bad token go to ``Rows.info``, and the block driver
(:mod:`halfspaces.datasets._svmlight_blocks`) turns them into a message naming the line.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._numbers import IS_NAN, NOT_A_NUMBER, OK, TO_PYTHON, delimiters, parse_number, token_end

# Status codes the kernel returns (0 is success); ERRORS turns them into messages.
BAD_LABEL, NAN_LABEL, NO_COLON, BAD_INDEX, BAD_VALUE, NAN_VALUE = 1, 2, 3, 4, 5, 6
ZERO_INDEX, NOT_INCREASING, BAD_QID, QID_MIXED = 7, 8, 9, 10
BIG_INDEX, BIG_QID, OVER_LIMIT, INF_LABEL, INF_VALUE = 11, 12, 13, 14, 15
ERRORS = {
    BAD_LABEL: "expected a label (a number such as +1, -1 or 0.5), got {tok!r}",
    NAN_LABEL: "the label is NaN ({tok!r}); every label must be a number",
    NO_COLON: "expected 'index:value', got {tok!r}",
    BAD_INDEX: "expected 'index:value' with a non-negative integer index, got {tok!r}",
    BAD_VALUE: "expected 'index:value' with a number as value, got {tok!r}",
    NAN_VALUE: "the value is NaN in {tok!r}; remove the entry or impute a number",
    INF_LABEL: "the label {tok!r} is not finite; the learners need finite labels: clean the"
    " file (give the line a finite label such as +1 or -1, or remove it)",
    INF_VALUE: "the feature value in {tok!r} is not finite (an infinity, or beyond the largest"
    " double); the learners need finite values: clean the file (remove the entry or replace"
    " it by a finite number)",
    NOT_INCREASING: "feature indices must be strictly increasing within a line (sorted,"
    " no repeats); got {tok!r} after index {prev}",
    BAD_QID: "expected 'qid:<integer>', got {tok!r}",
    QID_MIXED: "this line has no 'qid:' but other lines do; with query_id=True every line"
    " needs one",
    BIG_INDEX: "the index in {tok!r} does not fit in a 64-bit integer index (the largest is"
    " 2**63 - 2); is it a typo?",
    BIG_QID: "the qid in {tok!r} does not fit in a 64-bit integer (at most 2**63 - 1 in"
    " absolute value)",
}
INT64_MAX = 2**63 - 1
_CUT = INT64_MAX // 10  # n * 10 + digit fits in an int64 when n < _CUT (or == and digit <= 7)
NO_QID = -(2**63)
# A token ends at a blank, a newline or '#' (a comment starts anywhere, as in sklearn).
DELIM = delimiters(b" \t\n#\r\x0b\x0c")

# The slots of Rows.info.
(I_STATUS, I_BAD_START, I_BAD_END, I_PREV, I_ROWS, I_NNZ, I_QIDS, I_SLOW, I_MIN, I_MAX,
 I_QID_MISMATCH, I_MAX_POS, I_FIRST_ROW, I_MIN_POS) = range(14)
INFO_SIZE = 14


class Options(NamedTuple):
    """What the kernel accepts: an index 0 (``allow_zero``), indices up to ``limit`` (in the
    file's own numbering), and whether C's strtod may finish the hard numbers."""

    allow_zero: bool
    limit: int
    use_strtod: bool


class Rows(NamedTuple):
    """The kernel's output, arrays sized by the caller from an upper bound of the region's
    rows and entries.

    data : float64[cap_nnz]; indices : int64[cap_nnz]; indptr : int64[cap_rows + 1];
    labels : float64[cap_rows]; qids : int64[cap_rows] (NO_QID on a line without one);
    slow : int64[m, 3] receives (target, start, end) of the first m numbers left to Python
    (target >= 0: data index, target < 0: label -target-1);
    info : int64[INFO_SIZE] receives the status, the bad token's start and end and the
    previous index (on error); the rows, entries, rows with a qid, numbers left to Python
    (all of them, even beyond m), the smallest and largest index, the offset of the first
    line whose having a qid differs from the first line's (-1: none), the offset of the
    (first) token with the largest index, of the first row's line (-1: no row) and of the
    (first) token with the smallest index. The extremes and their offsets, and the numbers
    left to Python, cover the tokens before a failing one too.
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    labels: np.ndarray
    qids: np.ndarray
    slow: np.ndarray
    info: np.ndarray


@njit(cache=True, inline="always")
def is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, inline="always")
def skip_spaces(buf, p):
    """The first byte at or after ``p`` that is not a blank, and its offset."""
    c = buf[np.uint64(p)]
    while is_space(c):
        p += 1
        c = buf[np.uint64(p)]
    return c, p


@njit(cache=True, inline="always")
def next_line(buf, p):
    """The offset after the newline that ends the line of ``p``."""
    while buf[np.uint64(p)] != 10:
        p += 1
    return p + 1


@njit(cache=True, nogil=True)
def count_lines_and_colons(buf, start, end):
    """Newlines and colons in buf[start:end] (branch-free, so the loop is vectorized):
    bounds on the rows (newlines + 1) and entries (colons) of the region."""
    newlines = 0
    colons = 0
    for p in range(np.uint64(start), np.uint64(end)):
        c = buf[p]
        newlines += c == 10
        colons += c == 58
    return newlines, colons


@njit(cache=True)
def fail(info, code, s, e, prev):
    info[I_STATUS] = code
    info[I_BAD_START] = s
    info[I_BAD_END] = e
    info[I_PREV] = prev
    return code


@njit(cache=True, inline="always")
def record_slow(slow, n_slow, target, s, e):
    """Note a number left to Python (the first ``len(slow)`` of them); the new count."""
    if n_slow < slow.shape[0]:
        slow[n_slow, 0] = target
        slow[n_slow, 1] = s
        slow[n_slow, 2] = e
    return n_slow + 1


@njit(cache=True, inline="always")
def fits_after_digit(n, d):
    """Whether n * 10 + d fits in an int64 (n >= 0, 0 <= d <= 9)."""
    return n < _CUT or (n == _CUT and d <= 7)


@njit(cache=True)
def _long_index(buf, s, e):
    """The integer of the digits buf[s:e], or INT64_MAX when it does not fit in an int64
    below that (2**63 - 1 marks "too large")."""
    idx = 0
    for r in range(s, e):
        d = int(buf[r]) - 48
        if not fits_after_digit(idx, d):
            return INT64_MAX
        idx = idx * 10 + d
    return idx


@njit(cache=True)
def _parse_qid(buf, p):
    """``(status, qid, end)`` of the token ``qid:<int>`` at ``p`` (status 0: read)."""
    e = token_end(buf, p, DELIM)
    r = p + 3
    if buf[np.uint64(r)] != 58:
        return BAD_QID, 0, e
    r += 1
    qneg = buf[np.uint64(r)] == 45
    if buf[np.uint64(r)] == 43 or buf[np.uint64(r)] == 45:
        r += 1
    if r == e:
        return BAD_QID, 0, e
    qv = 0
    while r < e:
        c = buf[np.uint64(r)]
        if not (48 <= c <= 57):
            return BAD_QID, 0, e
        if not fits_after_digit(qv, int(c) - 48):
            return BIG_QID, 0, e
        qv = qv * 10 + (int(c) - 48)
        r += 1
    return 0, (-qv if qneg else qv), e


@njit(cache=True, inline="always")
def _is_qid(buf, p, c):
    return c == 113 and buf[np.uint64(p + 1)] == 105 and buf[np.uint64(p + 2)] == 100


@njit(cache=True, inline="always")
def _read_index(buf, p, c):
    """``(index, digits, end)`` of the ``[+]digits`` at ``p`` (``c = buf[p]``); the index is
    INT64_MAX when it does not fit below that."""
    if c == 43:
        p += 1
        c = buf[np.uint64(p)]
    digits = p
    idx = 0
    while 48 <= c <= 57:
        idx = idx * 10 + (int(c) - 48)  # exact up to 18 digits; more: see below
        p += 1
        c = buf[np.uint64(p)]
    if p - digits > 18:
        idx = _long_index(buf, digits, p)
    return idx, p - digits, p


@njit(cache=True)
def _index_status(buf, s, p, n_digits, idx, prev, opts):
    """Why the ``index:`` of the token buf[s:...] (its digits end at ``p``) is refused:
    ``(status, end of the token)``, status 0 when it is accepted."""
    if buf[np.uint64(p)] != 58 or n_digits == 0 or idx == INT64_MAX:
        e = token_end(buf, p, DELIM)
        if buf[np.uint64(p)] == 58 and n_digits > 0:
            return BIG_INDEX, e
        for r in range(s, e):
            if buf[np.uint64(r)] == 58:
                return BAD_INDEX, e
        return NO_COLON, e
    if idx <= prev or idx > opts.limit or (idx == 0 and not opts.allow_zero):
        e = token_end(buf, p, DELIM)
        if idx == 0 and not opts.allow_zero:
            return ZERO_INDEX, e
        if idx <= prev:
            return NOT_INCREASING, e
        return OVER_LIMIT, e
    return 0, p


@njit(cache=True)
def _value_error(st):
    """The status of a feature value that parse_number refused with ``st``."""
    return BAD_VALUE if st == NOT_A_NUMBER else NAN_VALUE if st == IS_NAN else INF_VALUE


@njit(cache=True)
def _label_error(st):
    """The status of a label that parse_number refused with ``st``."""
    return BAD_LABEL if st == NOT_A_NUMBER else NAN_LABEL if st == IS_NAN else INF_LABEL


@njit(cache=True, inline="always")
def _note_extremes(info, idx, s):
    """Keep the smallest and largest index in ``info`` and where they first are."""
    if idx < info[I_MIN]:
        info[I_MIN], info[I_MIN_POS] = idx, s
    if idx > info[I_MAX]:
        info[I_MAX], info[I_MAX_POS] = idx, s


# 11 arguments, above the project's ~8, on purpose: this is the parser's innermost loop, and
# the output arrays grouped in a tuple (7 arguments, the tuple unpacked once per row, the
# output bit-identical) cost the compiled parse of a 100 MB file 2.5% (151-153 ms against
# 155-157 ms, minimum of 21 rotated repeats in one process; two copies of today's form
# differed by at most 1.5%). Measured for issue 11.
@njit(cache=True, inline="always")
def _parse_entries(buf, p, nnz, n_slow, row, opts, data, indices, qids, slow, info):
    """Read the ``[qid:q] index:value ...`` of row ``row`` from ``p`` to the end of the
    line or a comment: ``(status, offset, nnz, n_slow, n_qid)``."""
    qids[row] = NO_QID
    prev = -1
    first = True
    n_qid = 0
    while True:
        c, p = skip_spaces(buf, p)
        if c == 10 or c == 35:
            return 0, p, nnz, n_slow, n_qid
        s = p
        if first and _is_qid(buf, p, c):  # a first token starting with 'qid', as sklearn
            first = False
            st, qid, p = _parse_qid(buf, p)
            qids[row] = qid
            if st:
                return fail(info, st, s, p, 0), p, nnz, n_slow, n_qid
            n_qid = 1
            continue
        first = False
        idx, n_digits, p = _read_index(buf, p, c)
        # One test for every error on the common path; the branch tells them apart.
        if buf[np.uint64(p)] != 58 or n_digits == 0 or idx == INT64_MAX or idx <= prev \
                or idx > opts.limit or (idx == 0 and not opts.allow_zero):
            st, e = _index_status(buf, s, p, n_digits, idx, prev, opts)
            return fail(info, st, s, e, prev if st == NOT_INCREASING else 0), p, nnz, \
                n_slow, n_qid
        prev = idx
        v, st, q = parse_number(buf, p + 1, DELIM, opts.use_strtod)
        if st != OK:
            if st != TO_PYTHON:
                return fail(info, _value_error(st), s, q, 0), p, nnz, n_slow, n_qid
            n_slow = record_slow(slow, n_slow, nnz, p + 1, q)
        data[nnz] = v
        indices[nnz] = idx
        nnz += 1
        _note_extremes(info, idx, s)
        p = q


@njit(cache=True, nogil=True)
def parse_svmlight(buf, start, end, opts, out):
    """Parse the lines of buf[start:end] into ``out`` (:class:`Rows`) in one pass; returns
    the status (0 = success).

    buf : uint8[n], C-contiguous, n >= end + PAD, with a newline at buf[end - 1] or buf[end];
    opts : :class:`Options`. An index above ``opts.limit`` fails.
    """
    # The arrays taken out of ``out`` once: a member read in the loop costs a reference count.
    data, indices, indptr, labels, qids, slow, info = out
    first_has_qid = 0
    row = nnz = n_slow = n_qid = 0
    info[I_MIN], info[I_MIN_POS] = INT64_MAX, -1
    info[I_MAX], info[I_MAX_POS] = -1, -1
    info[I_QID_MISMATCH], info[I_FIRST_ROW] = -1, -1
    indptr[0] = 0
    p = start
    while p < end:
        line_start = p
        c, p = skip_spaces(buf, p)
        if c == 10 or c == 35:  # blank or comment-only line
            p = next_line(buf, p)
            continue
        v, st, q = parse_number(buf, p, DELIM, opts.use_strtod)
        if st != OK:
            if st != TO_PYTHON:
                info[I_SLOW] = n_slow
                return fail(info, _label_error(st), p, q, 0)
            n_slow = record_slow(slow, n_slow, -row - 1, p, q)
        labels[row] = v
        st, p, nnz, n_slow, has_qid = _parse_entries(buf, q, nnz, n_slow, row, opts, data,
                                                     indices, qids, slow, info)
        if st:
            info[I_SLOW] = n_slow  # the numbers left to Python before the failing token
            return st
        n_qid += has_qid
        if row == 0:
            first_has_qid = has_qid
            info[I_FIRST_ROW] = line_start
        elif has_qid != first_has_qid and info[I_QID_MISMATCH] < 0:
            info[I_QID_MISMATCH] = line_start
        row += 1
        indptr[row] = nnz
        p = next_line(buf, p)  # after a comment
    info[I_ROWS], info[I_NNZ], info[I_QIDS], info[I_SLOW] = row, nnz, n_qid, n_slow
    return 0
