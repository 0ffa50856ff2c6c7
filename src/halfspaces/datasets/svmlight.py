"""Read and write the svmlight / libsvm text format, fast and streaming.

One example per line::

    <label> [qid:<int>] <index>:<value> <index>:<value> ...  [# comment]

A ``#`` starts a comment that runs to the end of the line; lines that are blank after the
comment is removed are skipped; a line with a label and no feature is an all-zero row.
Indices must be strictly increasing within a line (as scikit-learn requires).

The reader is a compiled (numba) scan over the file's raw bytes: one pass finds the tokens,
checks their syntax and converts the numbers (:mod:`halfspaces.datasets._numbers`: Clinger's
fast path, a truncated product of powers of five, then C's ``strtod``, all correctly
rounded, or Python's ``float`` when ``strtod`` is not usable). It produces exactly the
matrix of :func:`sklearn.datasets.load_svmlight_file` on every well-formed file, bit for bit.
The file is read in blocks of whole lines by a background thread (which also decompresses)
and the blocks are parsed by worker threads (the kernel releases the GIL); the result does
not depend on the number of threads, and neither do the errors (the first one in the file).

Differences from scikit-learn, all of them errors rather than different answers: NaN values
or labels are refused (no estimator accepts them), as are ``_`` digit separators, which
Python's ``float`` accepts; a malformed ``qid:`` is refused even when ``query_id=False``
(scikit-learn then ignores it); a ``qid`` must be on every line or on none when
``query_id=True``, and ``qid:-9223372036854775808`` (-2**63) is refused; a file with no
example is refused (scikit-learn returns a 0 x 1 matrix); an index whose weight vector
(``index + 1`` float64 values) cannot be allocated is refused, naming the memory it would
take. Every problem raises :class:`~halfspaces.datasets.DataFormatError` (a
ValueError) naming the file, line and column, e.g.
``a9a.bad:17:5: expected 'index:value', got 'abc'``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from numba import njit

from ._dump import dump_svmlight  # the writer, streamed
from ._io import (
    DataFormatError,
    check_n_threads,
    compression_of,
    line_and_column,
    map_in_order,
    read_blocks,
    require_regular_file,
    token_text,
    weights_size_if_too_large,
)
from ._numbers import (
    IS_NAN,
    NOT_A_NUMBER,
    TO_PYTHON,
    delimiters,
    parse_number,
    strtod_usable,
    token_end,
)

__all__ = ["load_svmlight", "iter_svmlight", "dump_svmlight"]

# Status codes the kernel returns (0 is success); _ERRORS turns them into messages.
_BAD_LABEL, _NAN_LABEL, _NO_COLON, _BAD_INDEX, _BAD_VALUE, _NAN_VALUE = 1, 2, 3, 4, 5, 6
_ZERO_INDEX, _NOT_INCREASING, _BAD_QID, _QID_MIXED = 7, 8, 9, 10
_BIG_INDEX, _BIG_QID, _OVER_LIMIT = 11, 12, 13
_ERRORS = {
    _BAD_LABEL: "expected a label (a number such as +1, -1 or 0.5), got {tok!r}",
    _NAN_LABEL: "the label is NaN ({tok!r}); every label must be a number",
    _NO_COLON: "expected 'index:value', got {tok!r}",
    _BAD_INDEX: "expected 'index:value' with a non-negative integer index, got {tok!r}",
    _BAD_VALUE: "expected 'index:value' with a number as value, got {tok!r}",
    _NAN_VALUE: "the value is NaN in {tok!r}; remove the entry or impute a number",
    _NOT_INCREASING: "feature indices must be strictly increasing within a line (sorted,"
    " no repeats); got {tok!r} after index {prev}",
    _BAD_QID: "expected 'qid:<integer>', got {tok!r}",
    _QID_MIXED: "this line has no 'qid:' but other lines do; with query_id=True every line"
    " needs one",
    _BIG_INDEX: "the index in {tok!r} does not fit in a 64-bit integer index (the largest is"
    " 2**63 - 2); is it a typo?",
    _BIG_QID: "the qid in {tok!r} does not fit in a 64-bit integer (at most 2**63 - 1 in"
    " absolute value)",
}
_INT64_MAX = 2**63 - 1
_INT32_MAX = 2**31 - 1
_CUT = _INT64_MAX // 10  # n * 10 + digit fits in an int64 when n < _CUT (or == and digit <= 7)
_NO_QID = -(2**63)
# A token ends at a blank, a newline or '#' (a comment starts anywhere, as in sklearn).
_DELIM = delimiters(b" \t\n#\r\x0b\x0c")
# Rows of the first list of numbers left to Python's float (a block needing more is parsed
# again with room for all of them; with a usable strtod, only subnormals and numbers of more
# than 19 digits whose power-of-five product is undecided go there, and strtod takes them).
_SLOW_ROWS = 64
_MIN_LOAD_BLOCK, _MAX_LOAD_BLOCK = 1 << 16, 32 << 20  # the blocks of load_svmlight


@njit(cache=True, inline="always")
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, nogil=True)
def _count_lines_and_colons(buf, start, end):
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
def _fail(info, code, s, e, prev):
    info[0] = code
    info[1] = s
    info[2] = e
    info[3] = prev
    return code


@njit(cache=True, inline="always")
def _fits_after_digit(n, d):
    """Whether n * 10 + d fits in an int64 (n >= 0, 0 <= d <= 9)."""
    return n < _CUT or (n == _CUT and d <= 7)


@njit(cache=True)
def _long_index(buf, s, e):
    """The integer of the digits buf[s:e], or _INT64_MAX when it does not fit in an int64
    below that (2**63 - 1 marks "too large")."""
    idx = 0
    for r in range(s, e):
        d = int(buf[r]) - 48
        if not _fits_after_digit(idx, d):
            return _INT64_MAX
        idx = idx * 10 + d
    return idx


@njit(cache=True, nogil=True)
def _parse_svmlight(buf, start, end, allow_zero, limit, use_strtod, data, indices, indptr,
                    labels, qids, slow, info):
    """Parse the lines of buf[start:end] in one pass; buf[end - 1] or buf[end] is a newline.

    buf : uint8[n], C-contiguous, n >= end + PAD; data : float64[cap_nnz];
    indices : int64[cap_nnz];
    indptr : int64[cap_rows + 1]; labels : float64[cap_rows]; qids : int64[cap_rows]
    (_NO_QID on a line without one); slow : int64[m, 3] receives (target, start, end) of the
    first m numbers left to Python (target >= 0: data index, target < 0: label -target-1).
    An index above ``limit`` (in the file's own numbering) fails.
    info : int64[14] receives status, bad token start/end, previous index (on error);
    n_rows, nnz, rows with a qid, numbers left to Python (all of them, even beyond m), the
    smallest index, the largest index, the offset of the first line whose having a qid
    differs from the first line (-1: none), the offset of the (first) token with the largest
    index, the offset of the first row's line (-1: no row), the offset of the (first) token
    with the smallest index. The extremes and their offsets cover the tokens before a
    failing one too. Returns the status (0 = success).
    """
    endbox = np.zeros(1, dtype=np.intp)
    first_has_qid = False
    row = 0
    nnz = 0
    n_slow = 0
    n_qid = 0
    min_idx = _INT64_MAX
    max_idx = -1
    info[8], info[13] = min_idx, -1
    info[9], info[11] = max_idx, -1
    info[10] = -1
    info[12] = -1
    indptr[0] = 0
    p = start
    while p < end:
        line_start = p
        c = buf[np.uint64(p)]
        while _is_space(c):
            p += 1
            c = buf[np.uint64(p)]
        if c == 10 or c == 35:  # blank or comment-only line
            while buf[np.uint64(p)] != 10:
                p += 1
            p += 1
            continue
        # the label
        v, st, q = parse_number(buf, p, _DELIM, use_strtod, endbox)
        if st == NOT_A_NUMBER or st == IS_NAN:
            return _fail(info, _BAD_LABEL if st == NOT_A_NUMBER else _NAN_LABEL, p, q, 0)
        labels[row] = v
        if st == TO_PYTHON:
            if n_slow < slow.shape[0]:
                slow[n_slow, 0] = -row - 1
                slow[n_slow, 1] = p
                slow[n_slow, 2] = q
            n_slow += 1
        p = q
        qids[row] = _NO_QID
        prev = -1
        first = True
        while True:
            c = buf[np.uint64(p)]
            while _is_space(c):
                p += 1
                c = buf[np.uint64(p)]
            if c == 10 or c == 35:
                break
            s = p
            if first and c == 113 and buf[np.uint64(p + 1)] == 105 and buf[np.uint64(p + 2)] == 100:
                # qid:<int> (a first token starting with 'qid', as scikit-learn reads it)
                first = False
                e = token_end(buf, p, _DELIM)
                r = p + 3
                if buf[np.uint64(r)] != 58:
                    return _fail(info, _BAD_QID, s, e, 0)
                r += 1
                qneg = buf[np.uint64(r)] == 45
                if buf[np.uint64(r)] == 43 or buf[np.uint64(r)] == 45:
                    r += 1
                if r == e:
                    return _fail(info, _BAD_QID, s, e, 0)
                qv = 0
                while r < e:
                    c = buf[np.uint64(r)]
                    if not (48 <= c <= 57):
                        return _fail(info, _BAD_QID, s, e, 0)
                    if not _fits_after_digit(qv, int(c) - 48):
                        return _fail(info, _BIG_QID, s, e, 0)
                    qv = qv * 10 + (int(c) - 48)
                    r += 1
                qids[row] = -qv if qneg else qv
                n_qid += 1
                p = e
                continue
            first = False
            if c == 43:
                p += 1
                c = buf[np.uint64(p)]
            digits = p
            idx = 0
            while 48 <= c <= 57:
                idx = idx * 10 + (int(c) - 48)  # exact up to 18 digits; more: see below
                p += 1
                c = buf[np.uint64(p)]
            n_idx_digits = p - digits
            if n_idx_digits > 18:
                idx = _long_index(buf, digits, p)
            # One test for every error on the common path; the branch tells them apart.
            if c != 58 or n_idx_digits == 0 or idx == _INT64_MAX:
                e = token_end(buf, p, _DELIM)
                if c == 58 and n_idx_digits > 0:
                    return _fail(info, _BIG_INDEX, s, e, 0)
                has_colon = False
                for r in range(s, e):
                    if buf[np.uint64(r)] == 58:
                        has_colon = True
                return _fail(info, _BAD_INDEX if has_colon else _NO_COLON, s, e, 0)
            if idx <= prev or idx > limit or (idx == 0 and not allow_zero):
                e = token_end(buf, p, _DELIM)
                if idx == 0 and not allow_zero:
                    return _fail(info, _ZERO_INDEX, s, e, 0)
                if idx <= prev:
                    return _fail(info, _NOT_INCREASING, s, e, prev)
                return _fail(info, _OVER_LIMIT, s, e, 0)
            prev = idx
            v, st, q = parse_number(buf, p + 1, _DELIM, use_strtod, endbox)
            if st == NOT_A_NUMBER or st == IS_NAN:
                return _fail(info, _BAD_VALUE if st == NOT_A_NUMBER else _NAN_VALUE, s, q, 0)
            if st == TO_PYTHON:
                if n_slow < slow.shape[0]:
                    slow[n_slow, 0] = nnz
                    slow[n_slow, 1] = p + 1
                    slow[n_slow, 2] = q
                n_slow += 1
            data[nnz] = v
            indices[nnz] = idx
            nnz += 1
            # The extremes and where they are (kept in info even when a later token fails).
            if idx < min_idx:
                min_idx = idx
                info[8], info[13] = idx, s
            if idx > max_idx:
                max_idx = idx
                info[9], info[11] = idx, s
            p = q
        has_qid = qids[row] != _NO_QID
        if row == 0:
            first_has_qid = has_qid
            info[12] = line_start
        elif has_qid != first_has_qid and info[10] < 0:
            info[10] = line_start
        row += 1
        indptr[row] = nnz
        while buf[np.uint64(p)] != 10:  # skip a comment
            p += 1
        p += 1
    info[4] = row
    info[5] = nnz
    info[6] = n_qid
    info[7] = n_slow
    return 0


class _Block:
    """One parsed block of lines: float64 values, int64 indices in the file's numbering,
    local indptr; ``status``/``info`` say what went wrong (raised by the consumer, who knows
    the block's first line)."""

    __slots__ = ("buf", "status", "info", "data", "indices", "indptr", "labels", "qids",
                 "n_qid", "min_idx", "max_idx", "max_pos", "qid_mismatch", "first_row",
                 "newlines")

    @property
    def n_rows(self) -> int:
        return self.labels.size


def _parse_block(block: tuple[np.ndarray, int], allow_zero: bool, limit: int,
                 use_strtod: bool) -> _Block:
    """Run the kernel on the lines ``buf[:end]`` of ``block = (buf, end)`` (see
    :func:`~halfspaces.datasets._io.read_blocks`; a worker thread's job, which never raises a
    format error) and convert the numbers left to Python."""
    buf, end = block
    newlines, colons = _count_lines_and_colons(buf, 0, end)
    cap_rows = newlines + 1
    data = np.empty(colons, dtype=np.float64)
    indices = np.empty(colons, dtype=np.int64)
    indptr = np.empty(cap_rows + 1, dtype=np.int64)
    labels = np.empty(cap_rows, dtype=np.float64)
    qids = np.empty(cap_rows, dtype=np.int64)
    info = np.zeros(14, dtype=np.int64)
    slow = np.empty((_SLOW_ROWS, 3), dtype=np.int64)
    args = (buf, 0, end, allow_zero, limit, use_strtod, data, indices, indptr, labels, qids)
    with np.errstate(over="ignore"):  # the kernel's wrapping uint64 arithmetic, run as Python
        status = _parse_svmlight(*args, slow, info)
        if status == 0 and info[7] > slow.shape[0]:  # room for every number left to Python
            slow = np.empty((int(info[7]), 3), dtype=np.int64)
            status = _parse_svmlight(*args, slow, info)
    out = _Block()
    out.buf, out.status, out.info, out.newlines = buf, status, info, newlines
    if status:
        return out
    n_rows, nnz = int(info[4]), int(info[5])
    for target, s, e in slow[: info[7]]:
        value = float(bytes(buf[s:e]))  # the same conversion as scikit-learn's reader
        if target >= 0:
            data[target] = value
        else:
            labels[-target - 1] = value
    out.data, out.indices = data[:nnz], indices[:nnz]
    out.indptr, out.labels, out.qids = indptr[: n_rows + 1], labels[:n_rows], qids[:n_rows]
    out.n_qid, out.min_idx, out.max_idx = int(info[6]), int(info[8]), int(info[9])
    out.max_pos, out.qid_mismatch, out.first_row = int(info[11]), int(info[10]), int(info[12])
    return out


def _parsed_blocks(path, block_bytes: int, n_threads: int, *, zero_based, n_cols):
    """The parsed blocks of the file, in order, parsed ahead by ``n_threads`` threads.

    ``zero_based`` is True, False or "auto" (undecided); ``n_cols`` the number of columns,
    or None when the file decides it.
    """
    if n_cols is None:
        limit = _INT64_MAX
    else:  # with "auto", index n_cols fits only when the file turns out 1-based
        limit = n_cols - 1 if zero_based is True else n_cols
    allow_zero, use_strtod = zero_based is not False, strtod_usable()
    return map_in_order(read_blocks(path, block_bytes),
                        lambda block: _parse_block(block, allow_zero, limit, use_strtod),
                        n_threads, depth=n_threads + 1)


def _error_at(buf, pos, first_line, path, problem: str, **kwargs) -> DataFormatError:
    """A DataFormatError at byte ``pos`` of ``buf`` (whose first line is ``first_line``)."""
    line, column = line_and_column(buf, pos, first_line)
    return DataFormatError(path, line, problem, column=column, **kwargs)


def _token_at(buf, pos) -> str:
    return token_text(buf, pos, token_end(buf, pos, _DELIM))


def _zero_index_error(buf, pos, first_line, path, stream_auto: bool) -> DataFormatError:
    tok = _token_at(buf, pos)
    if stream_auto:
        return _error_at(buf, pos, first_line, path, f"index 0 in {tok!r}, but the stream was"
                         " read as 1-based from its first block (zero_based='auto' cannot"
                         " look ahead)", hint="pass zero_based=True", reason="zero_index")
    return _error_at(buf, pos, first_line, path, f"index 0 in {tok!r} in a file read with"
                     " 1-based indices", hint="pass zero_based=True, or zero_based='auto',"
                     " for a file with 0-based indices", reason="zero_index")


def _beyond_error(buf, pos, first_line, path, n_cols: int, zero_based) -> DataFormatError:
    """The index at ``pos`` does not fit ``n_cols`` columns."""
    if zero_based is True:
        basis = f"0-based indices go up to {n_cols - 1}"
    elif zero_based is False:
        basis = f"1-based indices go up to {n_cols}"
    else:
        basis = f"indices go up to {n_cols - 1} if 0-based, {n_cols} if 1-based"
    return _error_at(buf, pos, first_line, path, f"the index in {_token_at(buf, pos)!r} is"
                     f" beyond the {n_cols} features ({basis})",
                     hint="pass a larger n_features", reason="n_features")


def _check_allocatable(n_cols: int, buf, pos, first_line, path) -> None:
    """Refuse a number of columns whose weight vector (float64) cannot be allocated; the
    index at ``pos`` of ``buf`` is the largest."""
    size = weights_size_if_too_large(n_cols)
    if size is not None:
        raise _error_at(buf, pos, first_line, path, f"the index in {_token_at(buf, pos)!r}"
                        f" makes {n_cols} features, and a weight vector that long ({size} of"
                        " float64) cannot be allocated", hint="check that index; hash the"
                        " features of an index space this large")


def _check_decided(block: _Block, decided: bool, first_line: int, path, n_cols: int) -> None:
    """A stream whose indexing "auto" decided from an earlier block: raise the error the
    kernel would have raised had it known (an index 0 when 1-based, index ``n_cols`` when
    0-based). The extremes cover the tokens before a kernel error, so the first error of the
    block is raised."""
    info = block.info
    if not decided and info[8] == 0:
        raise _zero_index_error(block.buf, int(info[13]), first_line, path, True)
    if decided and info[9] >= n_cols:
        raise _beyond_error(block.buf, int(info[11]), first_line, path, n_cols, True)


def _raise_failed(block: _Block, first_line: int, path, *, zero_based, n_cols,
                  stream_auto=False) -> None:
    """Raise the DataFormatError of a block whose kernel failed."""
    buf, info = block.buf, block.info
    pos = int(info[1])
    if block.status == _ZERO_INDEX:
        raise _zero_index_error(buf, pos, first_line, path, stream_auto)
    if block.status == _OVER_LIMIT:
        raise _beyond_error(buf, pos, first_line, path, n_cols, zero_based)
    tok = token_text(buf, pos, int(info[2]))
    raise _error_at(buf, pos, first_line, path,
                    _ERRORS[block.status].format(tok=tok, prev=int(info[3])))


class _Lines:
    """Walks the blocks in order: checks each, numbers its lines and tracks what the whole
    file needs (the largest index and where it is, the first line breaking the qid rule)."""

    def __init__(self, path, *, zero_based, n_cols, stream_auto=False):
        self.path, self.zero_based, self.n_cols = path, zero_based, n_cols
        self.stream_auto = stream_auto
        self.first_line = 1
        self.min_idx, self.max_idx, self.where = _INT64_MAX, -1, None
        self.first_has_qid = None  # whether the file's first row has a qid
        self.qid_mismatch = None  # the first line whose qid-ness differs from the first row's

    def take(self, block: _Block) -> int:
        """Check ``block`` (raise its error) and record it; return its first line."""
        first_line = self.first_line
        if block.status:
            _raise_failed(block, first_line, self.path, zero_based=self.zero_based,
                          n_cols=self.n_cols, stream_auto=self.stream_auto)
        self.first_line += block.newlines
        if block.n_rows:
            has = bool(block.qids[0] != _NO_QID)
            if self.first_has_qid is None:
                self.first_has_qid = has
            if self.qid_mismatch is None:
                pos = block.first_row if has != self.first_has_qid else block.qid_mismatch
                if pos >= 0:
                    self.qid_mismatch = line_and_column(block.buf, pos, first_line)[0]
        if block.indices.size:
            self.min_idx = min(self.min_idx, block.min_idx)
            if block.max_idx > self.max_idx:
                self.max_idx = block.max_idx
                self.where = (block.buf, block.max_pos, first_line)
        block.buf = None  # the text is not needed any more (the largest index's is kept)
        return first_line

    def qid_error(self) -> DataFormatError:
        return DataFormatError(self.path, self.qid_mismatch, _ERRORS[_QID_MIXED])


def _check_zero_based(zero_based) -> None:
    if not (zero_based is True or zero_based is False or zero_based == "auto"):
        raise ValueError(f"svmlight: 'zero_based' must be True, False or 'auto'; got"
                         f" {zero_based!r}. Use 'auto' to detect 0-based indices.")


def _check_dtype(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.float64, np.float32):
        raise ValueError(f"svmlight: 'dtype' must be float64 or float32; got {dt}."
                         " Convert the matrix afterwards for other types.")
    return dt


def _check_n_features(n_features) -> int | None:
    if n_features is None:
        return None
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) \
            or n_features < 0:
        raise ValueError(f"svmlight: 'n_features' must be a non-negative int or None; got"
                         f" {n_features!r}.")
    return int(n_features)


def _index_dtype(n_cols: int, nnz: int) -> np.dtype:
    """int32 when every index and pointer fits (as scipy would choose), else int64."""
    return np.dtype(np.int32 if max(n_cols, nnz) <= _INT32_MAX else np.int64)


def _assemble(blocks: list[_Block], n_cols: int, dt: np.dtype, shift: int):
    """(data, indices, indptr, labels, qids) of the blocks stacked: values as ``dt``,
    indices minus ``shift`` (0-based), index arrays int32 when they fit."""
    nnz = sum(b.indices.size for b in blocks)
    n_rows = sum(b.n_rows for b in blocks)
    it = _index_dtype(n_cols, nnz)
    if len(blocks) == 1 and blocks[0].data.dtype == dt:
        data = blocks[0].data
    else:
        data = np.empty(nnz, dtype=dt)
    indices = np.empty(nnz, dtype=it)
    indptr = np.empty(n_rows + 1, dtype=it)
    indptr[0] = 0
    o = r = 0
    with np.errstate(over="ignore"):  # float32 overflows to inf, as in scikit-learn
        for b in blocks:
            n, m = b.indices.size, b.n_rows
            if data is not b.data:
                data[o : o + n] = b.data
            np.subtract(b.indices, shift, out=indices[o : o + n], casting="unsafe")
            np.add(b.indptr[1:], o, out=indptr[r + 1 : r + 1 + m], casting="unsafe")
            o, r = o + n, r + m
    labels = blocks[0].labels if len(blocks) == 1 else np.concatenate([b.labels for b in
                                                                        blocks])
    qids = blocks[0].qids if len(blocks) == 1 else np.concatenate([b.qids for b in blocks])
    return data, indices, indptr, labels, qids


def _csr(data, indices, indptr, shape) -> sp.csr_matrix:
    """A CSR matrix on these arrays, without a copy (the index arrays have one dtype)."""
    X = sp.csr_matrix((data, indices, indptr), shape=shape)
    X.has_sorted_indices = True  # the kernel checked that indices increase in every row
    return X


def _load_block_bytes(path, n_threads: int) -> int:
    """Block size for a whole-file load: a few blocks per thread, so that small files are
    parsed in parallel too, and at most _MAX_LOAD_BLOCK of text per block."""
    try:
        size = os.stat(path).st_size if compression_of(path) is None else 0
    except (TypeError, OSError):  # a file object or a pipe
        size = 0
    if size <= 0:
        return _MAX_LOAD_BLOCK
    return int(min(_MAX_LOAD_BLOCK, max(_MIN_LOAD_BLOCK, size // (2 * n_threads) + 1)))


def load_svmlight(
    path: str | os.PathLike,
    n_features: int | None = None,
    *,
    dtype=np.float64,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    n_threads: int | None = None,
):
    """Load an svmlight / libsvm file as a CSR matrix and a label vector.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed by extension (an
        open file object, a pipe or ``/dev/stdin`` is read as a stream, to its end).
    n_features : int or None, default=None
        Number of columns; None takes the largest index + 1. Pass it to load a test file
        whose largest index is smaller than the training file's (a9a.t); an index beyond
        it is an error.
    dtype : float64 or float32, default=float64
        Type of the values (float32 values are the float64 ones rounded, as in sklearn).
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0. "auto" (as scikit-learn): 0-based if any index is 0,
        else 1-based; 1-based indices are shifted down by one.
    query_id : bool, default=False
        Also return the ``qid:`` values (an int64 array, empty when the file has none).
    n_threads : int or None, default=None
        Threads that parse blocks of the file while it is read; None: one per available
        core. The result does not depend on it.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        int32 indices when they fit (as scipy chooses), else int64.
    y : ndarray of float64, shape (n_samples,)
    qid : ndarray of int64, only when ``query_id=True``

    Raises
    ------
    DataFormatError
        A ValueError with ``.path`` and ``.line``, for any malformed line, an index beyond
        ``n_features`` or beyond what a weight vector can be allocated for, and a file with
        no examples.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:2 # a comment\\n-1\\n-1 2:25e-2\\n")
    >>> X, y = load_svmlight(path)
    >>> X.toarray()
    array([[0.5 , 0.  , 2.  ],
           [0.  , 0.  , 0.  ],
           [0.  , 0.25, 0.  ]])
    >>> y
    array([ 1., -1., -1.])
    """
    X, y, qid, _ = _load(path, n_features, dtype, zero_based, query_id, n_threads)
    return (X, y, qid) if query_id else (X, y)


def _load(path, n_features, dtype, zero_based, query_id, n_threads=None):
    """:func:`load_svmlight`'s ``(X, y, qid or None, zero_based)``, with ``zero_based``
    resolved to True or False (what "auto" decided)."""
    _check_zero_based(zero_based)
    dt = _check_dtype(dtype)
    n_cols = _check_n_features(n_features)
    n_threads = check_n_threads("load_svmlight", n_threads)
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols)
    blocks = []
    for block in _parsed_blocks(path, _load_block_bytes(path, n_threads), n_threads,
                                zero_based=zero_based, n_cols=n_cols):
        lines.take(block)
        if block.n_rows:
            blocks.append(block)
    if not blocks:
        raise no_examples(path)
    nnz = sum(b.indices.size for b in blocks)
    n_cols, zero_based = decide_columns(path, lines, nnz, n_cols, zero_based)
    data, indices, indptr, labels, qids = _assemble(blocks, n_cols, dt, int(not zero_based))
    X = _csr(data, indices, indptr, (labels.size, n_cols))
    qid = None
    if query_id:
        if lines.qid_mismatch is not None:
            raise lines.qid_error()
        qid = qids if lines.first_has_qid else np.empty(0, dtype=np.int64)
    return X, labels, qid, zero_based


def _scan(path, block_size: int, zero_based, n_threads: int):
    """One pass over the file checking every line: (nnz, min index, max index, where the max
    is), ``where`` being the (buf, pos, first_line) of the largest index's token."""
    lines = _Lines(path, zero_based=zero_based, n_cols=None)
    nnz = 0
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=None):
        lines.take(block)
        nnz += block.indices.size
    return nnz, lines.min_idx, lines.max_idx, lines.where


def _survey(path, n_cols, zero_based, block_size: int, n_threads: int):
    """One pass over the file, checking every line as :func:`load_svmlight` does, without
    holding it: ``(n_cols, zero_based, classes, n_rows)`` with the columns and the indexing
    decided by the whole file, and the distinct labels."""
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols)
    nnz = n_rows = 0
    labels = []
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=n_cols):
        lines.take(block)
        nnz += block.indices.size
        n_rows += block.n_rows
        labels.append(np.unique(block.labels))
    if not n_rows:
        raise no_examples(path)
    n_cols, zero_based = decide_columns(path, lines, nnz, n_cols, zero_based)
    return n_cols, zero_based, np.unique(np.concatenate(labels)), n_rows


def no_examples(path) -> DataFormatError:
    """The error for a file without a single example."""
    return DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                           " blank and comment lines)", reason="no_examples")


def decide_columns(path, lines, nnz: int, n_cols, zero_based):
    """After a pass that saw every line (``lines``, ``nnz`` stored entries): ``(n_cols,
    zero_based)``. "auto" indexing is 0-based unless every index is > 0 (as scikit-learn);
    the columns are the largest index's (checked allocatable) unless ``n_cols`` was given,
    which the largest index must then fit; 1 column for a file without features."""
    if zero_based == "auto":
        zero_based = not (nnz > 0 and lines.min_idx > 0)
    if nnz and n_cols is None:
        n_cols = lines.max_idx + int(zero_based)
        _check_allocatable(n_cols, *lines.where, path)
    elif nnz and lines.max_idx - int(not zero_based) >= n_cols:  # "auto" found 0-based
        raise _beyond_error(*lines.where, path, n_cols, True)
    return (1 if n_cols is None else n_cols), zero_based


def _resolve_columns(path, caller: str, n_cols, zero_based, block_size: int,
                     n_threads: int):
    """``(n_cols, zero_based)`` of a stream: given, or found by a first pass over the file
    (which then resolves "auto" exactly as :func:`load_svmlight`)."""
    if n_cols is not None:
        return n_cols, zero_based
    require_regular_file(path, caller, "'n_features' is required to read it (a first pass"
                         " over the file finds it); pass n_features= (and zero_based=True or"
                         " False), or save the stream to a file")
    nnz, lo, hi, where = _scan(path, block_size, zero_based, n_threads)
    if zero_based == "auto":
        zero_based = not (nnz > 0 and lo > 0)
    n_cols = hi + int(zero_based) if nnz else 1
    if nnz:
        _check_allocatable(n_cols, *where, path)
    return n_cols, zero_based


def _stream_blocks(path, n_cols: int, dt: np.dtype, zero_based, query_id: bool,
                   block_size: int, n_threads: int) -> Iterator[tuple]:
    """``(X, y, qid or None)`` of each block of the file in order (blocks without rows are
    skipped), parsed ahead in threads. ``zero_based="auto"`` is decided by the first block
    with a feature (a stream cannot look ahead)."""
    auto = zero_based == "auto"
    decided = None if auto else zero_based
    lines = _Lines(path, zero_based=zero_based, n_cols=n_cols, stream_auto=auto)
    for block in _parsed_blocks(path, block_size, n_threads, zero_based=zero_based,
                                n_cols=n_cols):
        buf = block.buf
        if auto and decided is not None:
            _check_decided(block, decided, lines.first_line, path, n_cols)
        first_line = lines.take(block)
        if not block.n_rows:
            continue
        if decided is None and block.indices.size:
            decided = lines.zero_based = bool(block.min_idx == 0)
            if decided and block.max_idx >= n_cols:
                raise _beyond_error(buf, block.max_pos, first_line, path, n_cols, True)
        qid = None
        if query_id:
            if lines.qid_mismatch is not None:
                raise lines.qid_error()
            qid = block.qids if lines.first_has_qid else np.empty(0, dtype=np.int64)
        data, indices, indptr, labels, _ = _assemble([block], n_cols, dt, int(decided is False))
        yield _csr(data, indices, indptr, (labels.size, n_cols)), labels, qid


def iter_svmlight(
    path: str | os.PathLike,
    chunk_rows: int = 10000,
    n_features: int | None = None,
    *,
    dtype=np.float64,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    block_size: int = 1 << 22,
) -> Iterator[tuple]:
    """Stream an svmlight file as ``(X_chunk, y_chunk)`` pairs of at most ``chunk_rows`` rows.

    The file is read in blocks of ``block_size`` bytes cut at line ends, and each block is
    parsed by the same compiled kernel as :func:`load_svmlight` (in worker threads, ahead of
    the consumer), so memory stays bounded by a few blocks plus a chunk whatever the file's
    size; the chunks stacked vertically are exactly ``load_svmlight(path, n_features, ...)``.
    Feed them to ``partial_fit``; :func:`halfspaces.datasets.iter_blocks` yields the blocks
    themselves (no re-chunking), for VW files too.

    Parameters
    ----------
    path : str, path-like or binary file object
        The file (``.gz``, ``.bz2``, ``.xz`` by extension); a pipe, ``/dev/stdin`` or an
        open file object is read as a stream, once, so it needs ``n_features``.
    chunk_rows : int, default=10000
        Rows per chunk (the last chunk may be shorter).
    n_features : int or None, default=None
        Columns of every chunk. With None, a first pass over the whole file finds the largest
        index (and resolves ``zero_based="auto"`` exactly as :func:`load_svmlight`); pass it
        to read the file only once (required for a stream).
    dtype, zero_based, query_id
        As in :func:`load_svmlight`, with one difference: a stream cannot look ahead, so when
        ``n_features`` is given and ``zero_based="auto"``, the indexing is decided from the
        first block that has any feature (0-based if it holds an index 0, else 1-based), and
        an index 0 in a later block raises :class:`DataFormatError` asking for
        ``zero_based=True``. Pass ``zero_based`` explicitly to avoid this.
    block_size : int, default=4 MiB
        Bytes read at a time.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_chunk, n_features)
    y : ndarray of float64, shape (n_chunk,)
    qid : ndarray of int64, only when ``query_id=True``

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:1\\n-1 2:1\\n+1 1:2 2:2\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_svmlight(path, chunk_rows=2)]
    [((2, 2), [1.0, -1.0]), ((1, 2), [1.0])]
    """
    _check_zero_based(zero_based)
    dt = _check_dtype(dtype)
    for name, value in (("chunk_rows", chunk_rows), ("block_size", block_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"iter_svmlight: '{name}' must be an int >= 1; got {value!r}.")
    n_threads = check_n_threads("iter_svmlight", None)
    n_cols, zero_based = _resolve_columns(path, "iter_svmlight", _check_n_features(n_features),
                                          zero_based, block_size, n_threads)
    blocks = _stream_blocks(path, n_cols, dt, zero_based, query_id, block_size, n_threads)
    return _iter_chunks(blocks, chunk_rows, query_id)


def _iter_chunks(blocks, chunk_rows: int, query_id: bool):
    pending: list[tuple] = []  # (X, y, qid) pieces not yet yielded
    n_pending = 0
    for piece in blocks:
        pending.append(piece)
        n_pending += piece[1].size
        while n_pending >= chunk_rows:
            out, pending, n_pending = _take(pending, chunk_rows, n_pending)
            yield out if query_id else out[:2]
    if n_pending:
        out, pending, n_pending = _take(pending, n_pending, n_pending)
        yield out if query_id else out[:2]


def _take(pending, k, n_pending):
    """Remove the first ``k`` rows from the pending pieces; return them stacked."""
    taken_X, taken_y, taken_q, rest = [], [], [], []
    need = k
    for X, y, q in pending:
        if need == 0:
            rest.append((X, y, q))
            continue
        m = y.size
        if m <= need:
            taken_X.append(X)
            taken_y.append(y)
            taken_q.append(q)
            need -= m
        else:
            taken_X.append(X[:need])
            taken_y.append(y[:need])
            taken_q.append(None if q is None else q[:need])
            rest.append((X[need:], y[need:], None if q is None else q[need:]))
            need = 0
    X = taken_X[0] if len(taken_X) == 1 else sp.vstack(taken_X, format="csr")
    y = taken_y[0] if len(taken_y) == 1 else np.concatenate(taken_y)
    if taken_q[0] is None:
        q = None
    else:
        q = taken_q[0] if len(taken_q) == 1 else np.concatenate(taken_q)
    return (X, y, q), rest, n_pending - k
