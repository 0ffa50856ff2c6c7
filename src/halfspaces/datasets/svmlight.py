"""Read and write the svmlight / libsvm text format, fast and streaming.

One example per line::

    <label> [qid:<int>] <index>:<value> <index>:<value> ...  [# comment]

A ``#`` starts a comment that runs to the end of the line; lines that are blank after the
comment is removed are skipped; a line with a label and no feature is an all-zero row.
Indices must be strictly increasing within a line (as scikit-learn requires).

The reader is a compiled (numba) scan over the file's raw bytes: one pass finds the tokens,
checks their syntax and converts the numbers. It produces exactly the matrix of
:func:`sklearn.datasets.load_svmlight_file` on every well-formed file, bit for bit:

- a decimal value with at most 15 significant digits and a decimal exponent within
  ``[-22, 22]`` is ``m * 10**e`` or ``m / 10**-e`` with both operands exact, so the single
  IEEE operation is correctly rounded (Clinger's fast path);
- any other value is handed to the C library's ``strtod`` (correctly rounded in glibc), or
  to Python's ``float`` when ``strtod`` is not usable (a locale whose decimal point is not
  ``"."``) -- the same conversion as scikit-learn's reader.

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

import ctypes
import locale
import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from numba import config as numba_config
from numba import njit, types
from numpy.typing import ArrayLike

from ._io import (
    DataFormatError,
    atomic_write,
    blank_bom,
    line_and_column,
    open_binary,
    read_bytes,
    require_regular_file,
    token_text,
    weights_size_if_too_large,
)

__all__ = ["load_svmlight", "iter_svmlight", "dump_svmlight"]

# C's strtod, resolved by name when the kernel is linked (so the kernel stays cacheable);
# the two integer arguments are the addresses of the first byte and of the end pointer.
_strtod = types.ExternalFunction("strtod", types.float64(types.intp, types.intp))
if numba_config.DISABLE_JIT:  # plain-Python run of the kernels (coverage, debugging)
    _strtod = ctypes.CDLL(None).strtod
    _strtod.restype = ctypes.c_double
    _strtod.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

# 10**k for k = 0..22: every one is exactly representable as a float64.
_POW10 = np.array([float(10**k) for k in range(23)])

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
_CUT = _INT64_MAX // 10  # n * 10 + digit fits in an int64 when n < _CUT (or == and digit <= 7)
_NO_QID = -(2**63)


@njit(cache=True, inline="always")
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _is_delim(c):
    """Ends a token: blank, newline or '#' (a comment starts anywhere, as in sklearn)."""
    return c == 32 or c == 9 or c == 10 or c == 35 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def _token_end(buf, p):
    while not _is_delim(buf[p]):
        p += 1
    return p


@njit(cache=True)
def _match_word(buf, s, e, word):
    """Whether buf[s:e] equals the lowercase ASCII ``word`` (uint8 array), ignoring case."""
    if e - s != word.size:
        return False
    for k in range(word.size):
        c = buf[s + k]
        if 65 <= c <= 90:
            c += 32
        if c != word[k]:
            return False
    return True


_INF = np.frombuffer(b"inf", dtype=np.uint8).copy()
_INFINITY = np.frombuffer(b"infinity", dtype=np.uint8).copy()
_NAN = np.frombuffer(b"nan", dtype=np.uint8).copy()


@njit(cache=True)
def _parse_float(buf, s, pow10, use_strtod, endbox):
    """Parse the number that starts at buf[s] and ends at the next delimiter.

    Returns (value, status, end): status 0 parsed (correctly rounded), 1 not a number,
    2 NaN, 3 a valid number left to Python's float (strtod unusable or it disagreed).
    Accepts [+-]? (digits [. digits] | . digits) ([eE] [+-]? digits)? and [+-]? inf|infinity.
    The buffer must hold a delimiter after the token (the callers keep a final newline).
    """
    p = s
    neg = False
    c = buf[p]
    if c == 43 or c == 45:
        neg = c == 45
        p += 1
        c = buf[p]
    if not (48 <= c <= 57) and c != 46:
        e = _token_end(buf, p)
        if _match_word(buf, p, e, _INF) or _match_word(buf, p, e, _INFINITY):
            return (-np.inf if neg else np.inf), 0, e
        if _match_word(buf, p, e, _NAN):
            return np.nan, 2, e
        return 0.0, 1, e
    m = np.uint64(0)
    n_sig = 0  # significant digits (from the first non-zero one)
    scale = 0  # decimal exponent contributed by digits after the point
    n_digits = 0
    while 48 <= c <= 57:
        if n_sig > 0 or c != 48:
            n_sig += 1
            if n_sig <= 19:
                m = m * np.uint64(10) + np.uint64(int(c) - 48)
        n_digits += 1
        p += 1
        c = buf[p]
    if c == 46:
        p += 1
        c = buf[p]
        while 48 <= c <= 57:
            if n_sig > 0 or c != 48:
                n_sig += 1
                if n_sig <= 19:
                    m = m * np.uint64(10) + np.uint64(int(c) - 48)
            scale -= 1
            n_digits += 1
            p += 1
            c = buf[p]
    if n_digits == 0:
        return 0.0, 1, _token_end(buf, p)
    expo = 0
    if c == 101 or c == 69:
        p += 1
        c = buf[p]
        eneg = False
        if c == 43 or c == 45:
            eneg = c == 45
            p += 1
            c = buf[p]
        if not (48 <= c <= 57):
            return 0.0, 1, _token_end(buf, p)
        while 48 <= c <= 57:
            if expo < 100000:
                expo = expo * 10 + (int(c) - 48)
            p += 1
            c = buf[p]
        if eneg:
            expo = -expo
    if not _is_delim(c):
        return 0.0, 1, _token_end(buf, p)
    if n_sig == 0:
        return (-0.0 if neg else 0.0), 0, p
    ex = scale + expo
    if n_sig <= 15 and -22 <= ex <= 22:
        # Clinger's fast path: m < 10**15 < 2**53 and 10**|ex| are exact, so one rounding.
        v = float(m) * pow10[ex] if ex >= 0 else float(m) / pow10[-ex]
        return (-v if neg else v), 0, p
    if use_strtod:
        base = buf.ctypes.data
        v = _strtod(base + s, endbox.ctypes.data)
        if endbox[0] - base == p:
            return v, 0, p
    return 0.0, 3, p


@njit(cache=True)
def _count_capacity(buf, start, end):
    """Upper bounds on the rows (newlines + 1) and entries (colons) in buf[start:end]."""
    rows = 1
    colons = 0
    for p in range(start, end):
        c = buf[p]
        if c == 10:
            rows += 1
        elif c == 58:
            colons += 1
    return rows, colons


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
def _parse_svmlight(buf, start, end, allow_zero, limit, use_strtod, pow10, data, indices,
                    indptr, labels, qids, slow, info):
    """Parse the lines of buf[start:end] in one pass; buf[end - 1] or buf[end] is a newline.

    buf : uint8[n], C-contiguous; data : float64[cap_nnz]; indices : int64[cap_nnz];
    indptr : int64[cap_rows + 1]; labels : float64[cap_rows]; qids : int64[cap_rows]
    (_NO_QID on a line without one); slow : int64[cap_nnz + cap_rows, 3] receives
    (target, start, end) of the numbers left to Python (target >= 0: data index, target < 0:
    label -target-1). An index above ``limit`` (in the file's own numbering) fails.
    info : int64[12] receives status, bad token start/end, previous index (on error);
    n_rows, nnz, rows with a qid, n_slow, min index, max index, the offset of the first
    line whose having a qid differs from the first line (-1: none; set info[10] = -1 before),
    and the offset of the (first) token with the largest index.
    Returns the status (0 = success).
    """
    endbox = np.zeros(1, dtype=np.intp)
    first_has_qid = False
    row = 0
    nnz = 0
    n_slow = 0
    n_qid = 0
    min_idx = _INT64_MAX
    max_idx = -1
    max_pos = -1
    indptr[0] = 0
    p = start
    while p < end:
        line_start = p
        c = buf[p]
        while _is_space(c):
            p += 1
            c = buf[p]
        if c == 10 or c == 35:  # blank or comment-only line
            while buf[p] != 10:
                p += 1
            p += 1
            continue
        # the label
        v, st, q = _parse_float(buf, p, pow10, use_strtod, endbox)
        if st == 1 or st == 2:
            return _fail(info, _BAD_LABEL if st == 1 else _NAN_LABEL, p, q, 0)
        labels[row] = v
        if st == 3:
            slow[n_slow, 0] = -row - 1
            slow[n_slow, 1] = p
            slow[n_slow, 2] = q
            n_slow += 1
        p = q
        qids[row] = _NO_QID
        prev = -1
        first = True
        while True:
            c = buf[p]
            while _is_space(c):
                p += 1
                c = buf[p]
            if c == 10 or c == 35:
                break
            s = p
            if first and c == 113 and buf[p + 1] == 105 and buf[p + 2] == 100:
                # qid:<int> (a first token starting with 'qid', as scikit-learn reads it)
                first = False
                e = _token_end(buf, p)
                r = p + 3
                if buf[r] != 58:
                    return _fail(info, _BAD_QID, s, e, 0)
                r += 1
                qneg = buf[r] == 45
                if buf[r] == 43 or buf[r] == 45:
                    r += 1
                if r == e:
                    return _fail(info, _BAD_QID, s, e, 0)
                qv = 0
                while r < e:
                    c = buf[r]
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
                c = buf[p]
            idx = 0
            n_idx_digits = 0
            while 48 <= c <= 57:
                if _fits_after_digit(idx, int(c) - 48):
                    idx = idx * 10 + (int(c) - 48)
                else:  # stays there: no digit fits after it
                    idx = _INT64_MAX
                n_idx_digits += 1
                p += 1
                c = buf[p]
            # One test for every error on the common path; the branch tells them apart.
            if c != 58 or n_idx_digits == 0 or idx == _INT64_MAX:
                e = _token_end(buf, p)
                if c == 58 and n_idx_digits > 0:
                    return _fail(info, _BIG_INDEX, s, e, 0)
                has_colon = False
                for r in range(s, e):
                    if buf[r] == 58:
                        has_colon = True
                return _fail(info, _BAD_INDEX if has_colon else _NO_COLON, s, e, 0)
            if idx <= prev or idx > limit or (idx == 0 and not allow_zero):
                e = _token_end(buf, p)
                if idx == 0 and not allow_zero:
                    return _fail(info, _ZERO_INDEX, s, e, 0)
                if idx <= prev:
                    return _fail(info, _NOT_INCREASING, s, e, prev)
                return _fail(info, _OVER_LIMIT, s, e, 0)
            prev = idx
            v, st, q = _parse_float(buf, p + 1, pow10, use_strtod, endbox)
            if st == 1 or st == 2:
                return _fail(info, _BAD_VALUE if st == 1 else _NAN_VALUE, s, q, 0)
            if st == 3:
                slow[n_slow, 0] = nnz
                slow[n_slow, 1] = p + 1
                slow[n_slow, 2] = q
                n_slow += 1
            data[nnz] = v
            indices[nnz] = idx
            nnz += 1
            if idx < min_idx:
                min_idx = idx
            if idx > max_idx:
                max_idx = idx
                max_pos = s
            p = q
        has_qid = qids[row] != _NO_QID
        if row == 0:
            first_has_qid = has_qid
        elif has_qid != first_has_qid and info[10] < 0:
            info[10] = line_start
        row += 1
        indptr[row] = nnz
        while buf[p] != 10:  # skip a comment
            p += 1
        p += 1
    info[4] = row
    info[5] = nnz
    info[6] = n_qid
    info[7] = n_slow
    info[8] = min_idx
    info[9] = max_idx
    info[11] = max_pos
    return 0

def _strtod_usable() -> bool:
    """strtod reads '.' as the decimal point only under a C-like LC_NUMERIC locale."""
    return locale.localeconv()["decimal_point"] == "."


class _Parsed:
    """The arrays of one parsed region (float64 data, int64 indices, 0-based after shift)."""

    __slots__ = ("data", "indices", "indptr", "labels", "qids", "n_qid", "min_idx", "max_idx",
                 "max_pos", "qid_mismatch")


def _error_at(buf, pos, first_line, path, problem: str, **kwargs) -> DataFormatError:
    """A DataFormatError at byte ``pos`` of ``buf`` (whose first line is ``first_line``)."""
    line, column = line_and_column(buf, pos, first_line)
    return DataFormatError(path, line, problem, column=column, **kwargs)


def _token_at(buf, pos) -> str:
    return token_text(buf, pos, _token_end(buf, pos))


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


def _parse_region(buf, start, end, *, zero_based, n_cols, path, first_line=1,
                  stream_auto=False) -> _Parsed:
    """Run the kernel on buf[start:end], fix up the numbers left to Python, raise errors.

    ``zero_based`` is True, False or "auto" (undecided); ``n_cols`` the number of columns,
    or None when the file decides it.
    """
    if n_cols is None:
        limit = _INT64_MAX
    else:  # with "auto", index n_cols fits only when the file turns out 1-based
        limit = n_cols - 1 if zero_based is True else n_cols
    cap_rows, cap_nnz = _count_capacity(buf, start, end)
    data = np.empty(cap_nnz, dtype=np.float64)
    indices = np.empty(cap_nnz, dtype=np.int64)
    indptr = np.empty(cap_rows + 1, dtype=np.int64)
    labels = np.empty(cap_rows, dtype=np.float64)
    qids = np.empty(cap_rows, dtype=np.int64)
    slow = np.empty((cap_nnz + cap_rows, 3), dtype=np.int64)
    info = np.zeros(12, dtype=np.int64)
    info[10] = -1
    status = _parse_svmlight(buf, start, end, zero_based is not False, limit,
                             _strtod_usable(), _POW10, data, indices, indptr, labels, qids,
                             slow, info)
    if status:
        pos = int(info[1])
        if status == _ZERO_INDEX:
            raise _zero_index_error(buf, pos, first_line, path, stream_auto)
        if status == _OVER_LIMIT:
            raise _beyond_error(buf, pos, first_line, path, n_cols, zero_based)
        tok = token_text(buf, pos, int(info[2]))
        raise _error_at(buf, pos, first_line, path,
                        _ERRORS[status].format(tok=tok, prev=int(info[3])))
    n_rows, nnz, n_slow = int(info[4]), int(info[5]), int(info[7])
    for target, s, e in slow[:n_slow]:
        value = float(bytes(buf[s:e]))  # the same conversion as scikit-learn's reader
        if target >= 0:
            data[target] = value
        else:
            labels[-target - 1] = value
    out = _Parsed()
    out.data, out.indices = data[:nnz], indices[:nnz]
    out.indptr, out.labels, out.qids = indptr[: n_rows + 1], labels[:n_rows], qids[:n_rows]
    out.n_qid, out.min_idx, out.max_idx = int(info[6]), int(info[8]), int(info[9])
    out.max_pos = int(info[11])
    if out.n_qid and int(info[10]) >= 0:
        out.qid_mismatch = line_and_column(buf, int(info[10]), first_line)[0]
    else:
        out.qid_mismatch = None
    return out


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


def _qid_values(parsed: _Parsed, path, query_id: bool):
    if not query_id:
        return None
    if parsed.qid_mismatch is not None:
        raise DataFormatError(path, parsed.qid_mismatch, _ERRORS[_QID_MIXED])
    return parsed.qids.copy() if parsed.n_qid else np.empty(0, dtype=np.int64)


def _csr(data, indices, indptr, shape, dtype) -> sp.csr_matrix:
    with np.errstate(over="ignore"):  # float32 overflows to inf, as in scikit-learn
        data = data.astype(dtype, copy=False)
    X = sp.csr_matrix((data, indices, indptr), shape=shape)
    X.has_sorted_indices = True  # the kernel checked that indices increase in every row
    return X


def load_svmlight(
    path: str | os.PathLike,
    n_features: int | None = None,
    *,
    dtype=np.float64,
    zero_based: bool | str = "auto",
    query_id: bool = False,
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

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
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
    X, y, qid, _ = _load(path, n_features, dtype, zero_based, query_id)
    return (X, y, qid) if query_id else (X, y)


def _load(path, n_features, dtype, zero_based, query_id):
    """:func:`load_svmlight`'s ``(X, y, qid or None, zero_based)``, with ``zero_based``
    resolved to True or False (what "auto" decided)."""
    _check_zero_based(zero_based)
    dt = _check_dtype(dtype)
    n_cols = _check_n_features(n_features)
    buf = read_bytes(path)
    blank_bom(buf)
    parsed = _parse_region(buf, 0, buf.size, zero_based=zero_based, n_cols=n_cols, path=path)
    n_rows = parsed.labels.size
    if n_rows == 0:
        raise DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                              " blank and comment lines)", reason="no_examples")
    indices = parsed.indices
    nnz = indices.size
    if zero_based == "auto":  # as scikit-learn: 0-based unless every index is > 0
        zero_based = not (nnz > 0 and parsed.min_idx > 0)
    if not zero_based:
        indices -= 1
    if nnz and n_cols is None:
        n_cols = parsed.max_idx + int(zero_based)
        _check_allocatable(n_cols, buf, parsed.max_pos, 1, path)
    elif nnz and parsed.max_idx - int(not zero_based) >= n_cols:  # "auto" found 0-based
        raise _beyond_error(buf, parsed.max_pos, 1, path, n_cols, True)
    X = _csr(parsed.data, indices, parsed.indptr, (n_rows, 1 if n_cols is None else n_cols),
             dt)
    qid = _qid_values(parsed, path, query_id)
    return X, parsed.labels, qid, zero_based


def _blocks(path, block_size: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """Yield (buf, end, first_line): whole lines of the file, buf[end] is a newline.

    A byte-order mark at the start of the file is blanked.
    """
    carry = b""
    first_line = 1
    with open_binary(path) as f:
        while True:
            chunk = f.read(block_size)
            if not chunk:
                break
            block = carry + chunk
            cut = block.rfind(b"\n")
            if cut < 0:  # a line longer than the block: keep reading
                carry = block
                continue
            carry = block[cut + 1 :]
            buf = np.frombuffer(block[: cut + 1], dtype=np.uint8).copy()
            if first_line == 1:
                blank_bom(buf)
            yield buf, cut, first_line
            first_line += int(np.count_nonzero(buf == 10))
    if carry:
        buf = np.empty(len(carry) + 1, dtype=np.uint8)
        buf[:-1] = np.frombuffer(carry, dtype=np.uint8)
        buf[-1] = 10
        if first_line == 1:
            blank_bom(buf)
        yield buf, len(carry), first_line


def _scan(path, block_size: int, zero_based) -> tuple[int, int, int, tuple | None]:
    """One pass over the file: (nnz, min index, max index, where the max is), checking every
    line; ``where`` is the (buf, pos, first_line) of the largest index's token."""
    nnz, lo, hi, where = 0, _INT64_MAX, -1, None
    for buf, end, first_line in _blocks(path, block_size):
        parsed = _parse_region(buf, 0, end, zero_based=zero_based, n_cols=None, path=path,
                               first_line=first_line)
        if parsed.indices.size:
            nnz += parsed.indices.size
            lo = min(lo, parsed.min_idx)
            if parsed.max_idx > hi:
                hi, where = parsed.max_idx, (buf, parsed.max_pos, first_line)
    return nnz, lo, hi, where


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
    parsed by the same compiled kernel as :func:`load_svmlight`, so memory stays bounded by
    a block plus a chunk whatever the file's size; the chunks stacked vertically are exactly
    ``load_svmlight(path, n_features, ...)``. Feed them to ``partial_fit``.

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
    n_cols = _check_n_features(n_features)
    if n_cols is None:
        require_regular_file(path, "iter_svmlight", "'n_features' is required to read it (a"
                             " first pass over the file finds it); pass n_features= (and"
                             " zero_based=True or False), or save the stream to a file")
        nnz, lo, hi, where = _scan(path, block_size, zero_based)
        if zero_based == "auto":
            zero_based = not (nnz > 0 and lo > 0)
        n_cols = hi + int(zero_based) if nnz else 1
        if nnz:
            _check_allocatable(n_cols, *where, path)
    return _iter_chunks(path, chunk_rows, n_cols, dt, zero_based, query_id, block_size)


def _iter_chunks(path, chunk_rows, n_cols, dt, zero_based, query_id, block_size):
    pending: list[tuple] = []  # (X, y, qid) pieces not yet yielded
    n_pending = 0
    decided = zero_based if zero_based != "auto" else None
    qid_state = None  # whether the first line had a qid (query_id=True)
    for buf, end, first_line in _blocks(path, block_size):
        parsed = _parse_region(buf, 0, end, zero_based="auto" if decided is None else decided,
                               n_cols=n_cols, path=path, first_line=first_line,
                               stream_auto=zero_based == "auto")
        indices = parsed.indices
        if indices.size:
            if decided is None:
                decided = parsed.min_idx == 0
            if not decided:
                indices -= 1
            elif parsed.max_idx >= n_cols:  # "auto" decided 0-based in this block
                raise _beyond_error(buf, parsed.max_pos, first_line, path, n_cols, True)
        qid = None
        if query_id:
            has = parsed.n_qid > 0
            if parsed.labels.size and qid_state is None:
                qid_state = has
            if parsed.labels.size and (has != qid_state or parsed.qid_mismatch is not None):
                line = parsed.qid_mismatch if parsed.qid_mismatch is not None else first_line
                raise DataFormatError(path, line, _ERRORS[_QID_MIXED])
            qid = parsed.qids if has else np.empty(0, dtype=np.int64)
        X = _csr(parsed.data, indices, parsed.indptr, (parsed.labels.size, n_cols), dt)
        pending.append((X, parsed.labels, qid))
        n_pending += parsed.labels.size
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


def dump_svmlight(
    X: ArrayLike,
    y: ArrayLike,
    path: str | os.PathLike,
    *,
    zero_based: bool = False,
    query_id: ArrayLike | None = None,
    comment: str | None = None,
) -> None:
    """Write ``X``, ``y`` in svmlight format, atomically; compressed by extension.

    Values are written with Python's ``repr`` (the shortest string that reads back to the
    same float), so ``load_svmlight`` gives back exactly ``X`` (zeros are not stored) and
    ``y``. The file appears only when complete: it is written to a temporary file in the
    same directory and moved into place.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), numeric labels
    path : str or path-like (``.gz``, ``.bz2``, ``.xz`` compress)
    zero_based : bool, default=False
        Write 0-based indices; the default writes 1-based ones, as libsvm does.
    query_id : array-like of int, optional
        A ``qid:`` value per row.
    comment : str, optional
        Written as ``#`` lines at the top of the file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "out.svm")
    >>> dump_svmlight(np.array([[0.1, 0.0], [0.0, 2.0]]), np.array([1, -1]), path)
    >>> print(open(path).read(), end="")
    1 1:0.1
    -1 2:2.0
    >>> X, y = load_svmlight(path)
    >>> X.toarray(), y
    (array([[0.1, 0. ],
           [0. , 2. ]]), array([ 1., -1.]))
    """
    X = sp.csr_matrix(X) if not sp.issparse(X) else sp.csr_matrix(X)
    X = X.copy()
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"dump_svmlight: y must be 1-D with one label per row of X"
                         f" ({X.shape[0]}); got shape {y.shape}.")
    if not (np.issubdtype(y.dtype, np.number) or y.dtype == bool):
        raise ValueError(f"dump_svmlight: labels must be numbers (svmlight stores numeric"
                         f" labels); got dtype {y.dtype}. Encode them, e.g. y = np.where(y =="
                         " classes[1], 1, -1).")
    if np.issubdtype(X.dtype, np.floating) and not np.all(np.isfinite(X.data)) \
            and np.isnan(X.data).any():
        raise ValueError("dump_svmlight: X contains NaN, which the svmlight format cannot"
                         " hold; impute or drop those values first.")
    if query_id is not None:
        query_id = np.asarray(query_id)
        if query_id.shape != (X.shape[0],):
            raise ValueError(f"dump_svmlight: query_id must have one value per row"
                             f" ({X.shape[0]}); got shape {query_id.shape}.")
    integral_y = np.issubdtype(y.dtype, np.integer) or y.dtype == bool
    labels = [str(int(v)) for v in y] if integral_y else [repr(float(v)) for v in y]
    offset = 0 if zero_based else 1
    cols = (X.indices.astype(np.int64) + offset).tolist()
    vals = X.data.tolist() if np.issubdtype(X.dtype, np.floating) else \
        X.data.astype(np.float64).tolist()
    indptr = X.indptr.tolist()
    lines = []
    if comment:
        lines.extend("# " + line for line in comment.splitlines())
    for i in range(X.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        head = labels[i] if query_id is None else f"{labels[i]} qid:{int(query_id[i])}"
        feats = " ".join(f"{c}:{v!r}" for c, v in zip(cols[a:b], vals[a:b], strict=True))
        lines.append(f"{head} {feats}" if feats else head)
    text = "\n".join(lines) + "\n"
    with atomic_write(path) as f:
        f.write(text.encode("ascii"))

