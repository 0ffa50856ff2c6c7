"""The threaded block driver of the svmlight reader.

A background thread reads the file in blocks of whole lines (and decompresses it,
:func:`~halfspaces.datasets._io.read_blocks`); worker threads run the compiled line parser
(:mod:`halfspaces.datasets._svmlight_lines`, which releases the GIL) on them ahead of the
consumer (:func:`~halfspaces.datasets._io.map_in_order`). The consumer walks the parsed
blocks in file order (:class:`_Lines`): it numbers their lines, raises the first error in
the file with its line and column, and keeps what the whole file decides (the largest
index, the indexing, the qid rule). :func:`_assemble` stacks blocks into CSR arrays.
"""

from __future__ import annotations

import math
import os

import numpy as np
import scipy.sparse as sp

from . import _svmlight_lines as lines_kernel
from ._io import (
    DataFormatError,
    compression_of,
    line_and_column,
    map_in_order,
    read_blocks,
    token_text,
    weights_size_if_too_large,
)
from ._numbers import strtod_usable, token_end
from ._svmlight_lines import (
    DELIM,
    ERRORS,
    INF_LABEL,
    INF_VALUE,
    INT64_MAX,
    NO_QID,
    OVER_LIMIT,
    QID_MIXED,
    ZERO_INDEX,
)

_INT32_MAX = 2**31 - 1
# Rows of the first list of numbers left to Python's float (a block needing more is parsed
# again with room for all of them; with a usable strtod, only subnormals and numbers of more
# than 19 digits whose power-of-five product is undecided go there, and strtod takes them).
_SLOW_ROWS = 64
_MIN_LOAD_BLOCK, _MAX_LOAD_BLOCK = 1 << 16, 32 << 20  # the blocks of load_svmlight


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


def _parse_block(block: tuple[np.ndarray, int], opts: lines_kernel.Options) -> _Block:
    """Run the kernel on the lines ``buf[:end]`` of ``block = (buf, end)`` (see
    :func:`~halfspaces.datasets._io.read_blocks`; a worker thread's job, which never raises a
    format error) and convert the numbers left to Python."""
    buf, end = block
    out = _Block()
    out.buf, out.info = buf, np.zeros(lines_kernel.INFO_SIZE, dtype=np.int64)
    out.status, rows, out.newlines = _run_kernel(buf, end, opts, out.info)
    # The numbers left to Python come before a failing token: an infinite one comes first.
    out.status = _finish_slow_numbers(buf, rows) or out.status
    _take_rows(out, rows)  # on a failure, the rows before it (their qids come first)
    return out


def _run_kernel(buf, end: int, opts, info) -> tuple[int, lines_kernel.Rows, int]:
    """``(status, rows, newlines)`` of the kernel on ``buf[:end]``, with arrays sized from the
    region's newlines and colons and room for every number left to Python."""
    newlines, colons = lines_kernel.count_lines_and_colons(buf, 0, end)
    cap_rows = newlines + 1
    rows = lines_kernel.Rows(
        data=np.empty(colons, dtype=np.float64), indices=np.empty(colons, dtype=np.int64),
        indptr=np.empty(cap_rows + 1, dtype=np.int64),
        labels=np.empty(cap_rows, dtype=np.float64), qids=np.empty(cap_rows, dtype=np.int64),
        slow=np.empty((_SLOW_ROWS, 3), dtype=np.int64), info=info)
    with np.errstate(over="ignore"):  # the kernel's wrapping uint64 arithmetic, run as Python
        status = lines_kernel.parse_svmlight(buf, 0, end, opts, rows)
        n_slow = int(info[lines_kernel.I_SLOW])
        if n_slow > _SLOW_ROWS:
            rows = rows._replace(slow=np.empty((n_slow, 3), dtype=np.int64))
            status = lines_kernel.parse_svmlight(buf, 0, end, opts, rows)
    return status, rows, newlines


def _finish_slow_numbers(buf, rows: lines_kernel.Rows) -> int:
    """Convert the numbers the kernel left to Python's float (as scikit-learn's reader); the
    first infinite one fails as in the kernel (its status is returned, else 0)."""
    for target, s, e in rows.slow[: rows.info[lines_kernel.I_SLOW]]:
        value = float(bytes(buf[s:e]))
        if math.isinf(value):
            if target < 0:
                return lines_kernel.fail(rows.info, INF_LABEL, s, e, 0)
            while DELIM[buf[s - 1]] == 0:  # back to the start of 'index:value'
                s -= 1
            return lines_kernel.fail(rows.info, INF_VALUE, s, e, 0)
        if target >= 0:
            rows.data[target] = value
        else:
            rows.labels[-target - 1] = value
    return 0


def _take_rows(out: _Block, rows: lines_kernel.Rows) -> None:
    """Fill ``out`` with the parsed rows (trimmed) and what the kernel found."""
    k = lines_kernel
    info = rows.info
    n_rows, nnz = int(info[k.I_ROWS]), int(info[k.I_NNZ])
    out.data, out.indices = rows.data[:nnz], rows.indices[:nnz]
    out.indptr, out.labels = rows.indptr[: n_rows + 1], rows.labels[:n_rows]
    out.qids = rows.qids[:n_rows]
    out.n_qid, out.min_idx, out.max_idx = (int(info[i]) for i in (k.I_QIDS, k.I_MIN, k.I_MAX))
    out.max_pos, out.qid_mismatch, out.first_row = (
        int(info[i]) for i in (k.I_MAX_POS, k.I_QID_MISMATCH, k.I_FIRST_ROW))


def _parsed_blocks(path, block_bytes: int, n_threads: int, *, zero_based, n_cols):
    """The parsed blocks of the file, in order, parsed ahead by ``n_threads`` threads.

    ``zero_based`` is True, False or "auto" (undecided); ``n_cols`` the number of columns,
    or None when the file decides it.
    """
    if n_cols is None:
        limit = INT64_MAX
    else:  # with "auto", index n_cols fits only when the file turns out 1-based
        limit = n_cols - 1 if zero_based is True else n_cols
    opts = lines_kernel.Options(allow_zero=zero_based is not False, limit=limit,
                                use_strtod=strtod_usable())
    return map_in_order(read_blocks(path, block_bytes), lambda block: _parse_block(block, opts),
                        n_threads, depth=n_threads + 1)


def _error_at(buf, pos, first_line, path, problem: str, **kwargs) -> DataFormatError:
    """A DataFormatError at byte ``pos`` of ``buf`` (whose first line is ``first_line``)."""
    line, column = line_and_column(buf, pos, first_line)
    return DataFormatError(path, line, problem, column=column, **kwargs)


def _token_at(buf, pos) -> str:
    return token_text(buf, pos, token_end(buf, pos, DELIM))


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
    k = lines_kernel
    if not decided and info[k.I_MIN] == 0:
        raise _zero_index_error(block.buf, int(info[k.I_MIN_POS]), first_line, path, True)
    if decided and info[k.I_MAX] >= n_cols:
        raise _beyond_error(block.buf, int(info[k.I_MAX_POS]), first_line, path, n_cols, True)


def _raise_failed(block: _Block, first_line: int, path, *, zero_based, n_cols,
                  stream_auto=False) -> None:
    """Raise the DataFormatError of a block whose kernel failed."""
    buf, info = block.buf, block.info
    pos = int(info[lines_kernel.I_BAD_START])
    if block.status == ZERO_INDEX:
        raise _zero_index_error(buf, pos, first_line, path, stream_auto)
    if block.status == OVER_LIMIT:
        raise _beyond_error(buf, pos, first_line, path, n_cols, zero_based)
    tok = token_text(buf, pos, int(info[lines_kernel.I_BAD_END]))
    raise _error_at(buf, pos, first_line, path,
                    ERRORS[block.status].format(tok=tok, prev=int(info[lines_kernel.I_PREV])),
                    reason=_REASONS.get(block.status))


# The failures a caller may re-word (DataFormatError.reason): a first field that is not a
# label (a CSV line?), a field without ':' (VW's '|namespace'?).
_REASONS = {lines_kernel.BAD_LABEL: "label", lines_kernel.NO_COLON: "pair"}


class _Lines:
    """Walks the blocks in order: checks each, numbers its lines and tracks what the whole
    file needs (the largest index and where it is, the first line breaking the qid rule)."""

    def __init__(self, path, *, zero_based, n_cols, stream_auto=False, query_id=False):
        self.path, self.zero_based, self.n_cols = path, zero_based, n_cols
        self.stream_auto, self.query_id = stream_auto, query_id
        self.first_line = 1
        self.min_idx, self.max_idx, self.where = INT64_MAX, -1, None
        self.first_has_qid = None  # whether the file's first row has a qid
        self.qid_mismatch = None  # the first line whose qid-ness differs from the first row's

    def take(self, block: _Block) -> int:
        """Check ``block`` (raise its error: with ``query_id``, a line breaking the qid rule
        before the block's failure is the first error) and record it; return its first
        line."""
        first_line = self.first_line
        if block.n_rows:  # the rows parsed (before a failure, if the block has one)
            has = bool(block.qids[0] != NO_QID)
            if self.first_has_qid is None:
                self.first_has_qid = has
            if self.qid_mismatch is None:
                pos = block.first_row if has != self.first_has_qid else block.qid_mismatch
                if pos >= 0:
                    self.qid_mismatch = line_and_column(block.buf, pos, first_line)[0]
        if self.query_id and self.qid_mismatch is not None:
            raise self.qid_error()
        if block.status:
            _raise_failed(block, first_line, self.path, zero_based=self.zero_based,
                          n_cols=self.n_cols, stream_auto=self.stream_auto)
        self.first_line += block.newlines
        if block.indices.size:
            self.min_idx = min(self.min_idx, block.min_idx)
            if block.max_idx > self.max_idx:
                self.max_idx = block.max_idx
                self.where = (block.buf, block.max_pos, first_line)
        block.buf = None  # the text is not needed any more (the largest index's is kept)
        return first_line

    def qid_error(self) -> DataFormatError:
        if self.first_has_qid:
            return DataFormatError(self.path, self.qid_mismatch, ERRORS[QID_MIXED])
        return DataFormatError(self.path, self.qid_mismatch, "this line has a 'qid:' but the"
                               " first line does not; with query_id=True every line needs"
                               " one (or pass query_id=False to ignore them)")


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
