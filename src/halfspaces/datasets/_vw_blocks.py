"""The threaded block driver of the Vowpal Wabbit reader.

As for svmlight (:mod:`halfspaces.datasets._svmlight_blocks`): blocks of whole lines read by
a background thread, parsed by worker threads running the compiled kernel
(:mod:`halfspaces.datasets._vw_lines`), consumed in file order. A worker also parses, in
Python, the lines the kernel left to it (non-ASCII bytes) and returns the block's first
error as a value, its line counted in the block; the consumer numbers it in the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import numpy as np

from . import _vw_lines as kernel
from ._io import DataFormatError, line_and_column, map_in_order, read_blocks
from ._numbers import strtod_usable

_INT64_MAX = 2**63 - 1
_DOUBLE_MAX = float(np.finfo(np.float64).max)
BLOCK_BYTES = 1 << 20  # text per block parsed by a worker


class Block:
    """The rows of one block of lines: float64 values, int64 columns in the file's numbering
    (hashed or the integer names), labels, importance weights, the line of each row (counted
    from 1 in the block), the newlines of the block, and its first error (or None)."""

    __slots__ = ("data", "indices", "indptr", "labels", "weights", "lines", "newlines",
                 "error")

    @property
    def n_rows(self) -> int:
        return self.labels.size


def _name_error(path, line: int, name: str, column=None) -> DataFormatError:
    return DataFormatError(path, line, f"feature name {name!r} is not a non-negative integer;"
                           " with hash_features=False names are column indices. Use"
                           " hash_features=True for named features", column)


def _big_index_error(path, line: int, name: str, column=None) -> DataFormatError:
    return DataFormatError(path, line, f"feature index {name!r} does not fit in a 64-bit"
                           " integer (at most 2**63 - 1); is it a typo?", column)


def _number_error(path, line: int, what: str, text: str, column=None) -> DataFormatError:
    try:
        infinite = math.isinf(float(text))
    except ValueError:
        infinite = False
    if infinite:
        return DataFormatError(path, line, f"{what} is not finite: got {text!r} (an infinity,"
                               " or beyond the largest double); the learners need finite"
                               " values: clean the file (replace it by a finite number)",
                               column)
    return DataFormatError(path, line, f"expected {what} (a number), got {text!r}", column)


def _kernel_error(path, buf, info, first_line: int) -> DataFormatError:
    """The DataFormatError of a kernel status, its line counted from ``first_line``."""
    code, s, e = (int(info[i]) for i in (kernel.I_STATUS, kernel.I_BAD_START,
                                          kernel.I_BAD_END))
    line, column = line_and_column(buf, s, first_line)
    text = bytes(buf[s:e]).decode("ascii")
    name, _, value = text.partition(":")
    if code == kernel.NO_BAR:
        return DataFormatError(path, line, "expected '|namespace features' after the label,"
                               f" got {text.strip()[:40]!r}")
    if code == kernel.NO_LABEL:
        return DataFormatError(path, line, "missing label before '|'; every line needs a"
                               " label such as 1 or -1")
    if code == kernel.LONG_HEAD:
        return DataFormatError(path, line, "expected 'label [importance [base]] ['tag]'"
                               f" before '|', got {text.strip()[:40]!r}")
    if code == kernel.NEGATIVE_IMPORTANCE:
        return _negative_importance(path, line, text, column)
    whats = {kernel.BAD_LABEL: "a label", kernel.BAD_IMPORTANCE: "an importance weight",
             kernel.BAD_BASE: "a base prediction"}
    if code in whats:
        return _number_error(path, line, whats[code], text, column)
    if code == kernel.BAD_NS_WEIGHT:
        return _number_error(path, line, f"a weight of namespace {name!r}", value, column)
    if code == kernel.BAD_VALUE:
        return _number_error(path, line, f"a value in {text!r}", value, column)
    if code == kernel.NO_NAME:
        return DataFormatError(path, line, f"expected 'name[:value]', got {text!r}", column)
    if code == kernel.NOT_INTEGER:
        return _name_error(path, line, text, column)
    return _big_index_error(path, line, text, column)


def _negative_importance(path, line: int, text: str, column=None) -> DataFormatError:
    return DataFormatError(path, line, f"the importance weight {text!r} is negative", column,
                           hint="an example's weight must be >= 0 (0 leaves it out): fix"
                           " the weight or drop the line")


class PythonLine:
    """Parse one line in Python (the lines the kernel leaves: non-ASCII bytes), with the
    same rules and results as the kernel: ``(label, importance, columns, values)`` or None
    for a blank line; a malformed line raises DataFormatError."""

    def __init__(self, path, opts: kernel.Options):
        self.path, self.opts = path, opts

    def _number(self, text: str, lineno: int, what: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _number_error(self.path, lineno, what, text) from None
        if not math.isfinite(value) or "_" in text:
            raise _number_error(self.path, lineno, what, text)
        return value

    def _column(self, namespace: str, name: str, lineno: int) -> int:
        if self.opts.hash_features:
            key = np.frombuffer((namespace + "^" + name).encode("utf-8"), dtype=np.uint8)
            column = int(kernel.murmurhash3_32(key, key.size, self.opts.seed)
                         % self.opts.n_buckets)
            if self.opts.tag_namespaces:  # as the kernel: the first byte of the name
                column += (int(key[0]) if namespace else 32) << 32
            return column
        if not name.isdigit() or not name.isascii():
            raise _name_error(self.path, lineno, name)
        if int(name) > _INT64_MAX:
            raise _big_index_error(self.path, lineno, name)
        return int(name)

    def _head(self, line: str, lineno: int) -> tuple[float, float, int]:
        """``(label, importance, offset of the first '|')``."""
        bar = line.find("|")
        if bar < 0:
            raise DataFormatError(self.path, lineno, "expected '|namespace features' after"
                                  f" the label, got {line.strip()[:40]!r}")
        head = [t for t in line[:bar].split() if not t.startswith("'")]
        if len(head) > 1 and line[:bar] == line[:bar].rstrip() \
                and not line[:bar].split()[-1].startswith("'"):
            head.pop()  # after the label, a tag touching the '|' (VW's form without quote)
        if not head:
            raise DataFormatError(self.path, lineno, "missing label before '|'; every line"
                                  " needs a label such as 1 or -1")
        if len(head) > 3:
            raise DataFormatError(self.path, lineno, f"expected 'label [importance [base]]"
                                  f" ['tag]' before '|', got {line[:bar].strip()[:40]!r}")
        label = self._number(head[0], lineno, "a label")
        importance = self._number(head[1], lineno, "an importance weight") \
            if len(head) > 1 else 1.0
        if importance < 0.0:
            raise _negative_importance(self.path, lineno, head[1])
        if len(head) > 2:
            self._number(head[2], lineno, "a base prediction")
        return label, importance, bar

    def parse(self, line: str, lineno: int):
        if not line.strip():
            return None
        label, importance, bar = self._head(line, lineno)
        cols: list[int] = []
        vals: list[float] = []
        for segment in line[bar + 1 :].split("|"):
            tokens = segment.split()
            scale = 1.0
            namespace = ""
            if segment and not segment[0].isspace() and tokens:
                namespace, _, weight = tokens[0].partition(":")
                if weight:
                    scale = self._number(weight, lineno, f"a weight of namespace {namespace!r}")
                tokens = tokens[1:]
            for tok in tokens:
                name, colon, value = tok.partition(":")
                if not name:
                    raise DataFormatError(self.path, lineno, f"expected 'name[:value]', got"
                                          f" {tok!r}")
                v = self._number(value, lineno, f"a value in {tok!r}") if colon else 1.0
                cols.append(self._column(namespace, name, lineno))
                vals.append(v * scale)
        return label, importance, cols, vals


def _allocate(buf, end: int, opts: kernel.Options) -> kernel.Rows:
    newlines, tokens = kernel.count_lines_and_tokens(buf, 0, end)
    cap_rows = newlines + 1
    return kernel.Rows(
        data=np.empty(tokens, dtype=np.float64), indices=np.empty(tokens, dtype=np.int64),
        indptr=np.empty(cap_rows + 1, dtype=np.int64), labels=np.empty(cap_rows),
        weights=np.empty(cap_rows), line_pos=np.empty(cap_rows, dtype=np.int64),
        slow=np.empty(cap_rows, dtype=np.int64),
        info=np.zeros(kernel.INFO_SIZE, dtype=np.int64))


def parse_block(block: tuple[np.ndarray, int], path, opts: kernel.Options) -> Block:
    """Parse the lines ``buf[:end]`` of ``block = (buf, end)`` (a worker thread's job: the
    first error is returned in the block, its line counted from 1 in the block)."""
    buf, end = block
    rows = _allocate(buf, end, opts)
    with np.errstate(over="ignore"):  # the kernel's wrapping uint64 arithmetic, run as Python
        status = kernel.parse_vw(buf, 0, end, opts, rows)
    info = rows.info
    n_rows, nnz = int(info[kernel.I_ROWS]), int(info[kernel.I_NNZ])
    out = Block()
    out.data, out.indices = rows.data[:nnz], rows.indices[:nnz]
    out.indptr, out.labels = rows.indptr[: n_rows + 1], rows.labels[:n_rows]
    out.weights = rows.weights[:n_rows]
    newline_pos = np.flatnonzero(buf[:end] == 10)
    out.newlines = int(newline_pos.size)
    out.lines = np.searchsorted(newline_pos, rows.line_pos[:n_rows]) + 1
    out.error = _kernel_error(path, buf, info, 1) if status else None
    slow = rows.slow[: info[kernel.I_SLOW]]
    if slow.size:
        _splice_python_lines(out, buf, slow, newline_pos, PythonLine(path, opts))
    if not np.isfinite(out.data).all():
        _end_at_overflow(out, path)
    row, k = _first_sum_overflow(out)
    if row >= 0:
        _end_at(out, row, _sum_overflow_error(path, buf, end, newline_pos, out, row, k))
    return out


def _end_at_overflow(out: Block, path) -> None:
    """End the block before the first row with a value that overflowed when scaled by its
    namespace weight (both finite, their product not): that row's error comes before any
    later one."""
    row = int(np.searchsorted(out.indptr, np.argmin(np.isfinite(out.data)), "right")) - 1
    _end_at(out, row, DataFormatError(
        path, int(out.lines[row]), "a feature value times the weight of its namespace is not"
        " finite (beyond the largest double); the learners need finite values: clean the file"
        " (scale the values or the namespace weight down)"))


def _first_sum_overflow(out: Block) -> tuple[int, int]:
    """``(row, k)``: the first row, and its entry ``k`` (in the line's order), whose value
    makes the values of one column on that line (a feature repeated on the line, or
    features hashed to the same column) add up past the largest double; ``(-1, -1)`` if
    none.

    The reader adds them up (``sum_duplicates``, in an order of its own), so the column's
    positive values and its negative ones are added up apart: when either overflows, some
    order of the additions gives inf.
    """
    counts = np.diff(out.indptr)
    if not out.data.size or 2.0 * max(float(out.data.max()), -float(out.data.min())) \
            * float(counts.max()) <= _DOUBLE_MAX:
        return -1, -1  # no sum of a row's values gets near the largest double
    rows = np.flatnonzero(counts)
    with np.errstate(over="ignore"):
        totals = np.add.reduceat(np.abs(out.data), out.indptr[rows])
    for row in rows[~np.isfinite(totals)].tolist():  # the rows where it may happen
        span = slice(int(out.indptr[row]), int(out.indptr[row + 1]))
        sums: dict[tuple[int, bool], float] = {}
        for k, (column, value) in enumerate(zip(out.indices[span].tolist(),
                                                out.data[span].tolist(), strict=True)):
            key = (column, value > 0.0)
            sums[key] = sums.get(key, 0.0) + value
            if math.isinf(sums[key]):
                return row, k
    return -1, -1


def _sum_overflow_error(path, buf, end: int, newline_pos, out: Block, row: int,
                        k: int) -> DataFormatError:
    """The error of entry ``k`` of ``row`` (see ``_first_sum_overflow``), at its token."""
    lineno = int(out.lines[row])
    start = int(newline_pos[lineno - 2]) + 1 if lineno > 1 else 0
    stop = int(newline_pos[lineno - 1]) if lineno <= newline_pos.size else end
    text = bytes(buf[start:stop]).decode("utf-8")  # the kernel or Python read it as UTF-8
    tokens = _feature_tokens(text)
    namespace, name, at = tokens[k]
    columns = out.indices[int(out.indptr[row]):].tolist()[: k + 1]
    hashed = any(columns[j] == columns[k] and tokens[j][:2] != (namespace, name)
                 for j in range(k))
    sign = "positive" if out.data[int(out.indptr[row]) + k] > 0.0 else "negative"
    where = f" in namespace {namespace!r}" if namespace else ""
    also = " with the other features hashed to its column" if hashed else ""
    return DataFormatError(
        path, lineno, f"the {sign} values of feature {name!r}{where} on this line{also} sum"
        " to more than 1.8e308 in absolute value (the largest double): the reader adds up a"
        " feature's repeated values, and the learners need finite values; fix: give the"
        " feature once per line, or scale its values down", len(text[:at].encode("utf-8")) + 1)


def _feature_tokens(text: str) -> list[tuple[str, str, int]]:
    """``(namespace, name, offset)`` of each feature token of a line, in the order of
    ``PythonLine.parse`` (and of the kernel: its blanks are those of ``str.split`` on ASCII)."""
    out = []
    at = text.find("|") + 1
    for segment in text[at:].split("|"):
        tokens = [(m.group(), at + m.start()) for m in re.finditer(r"\S+", segment)]
        namespace = ""
        if segment and not segment[0].isspace() and tokens:
            namespace = tokens[0][0].partition(":")[0]
            tokens = tokens[1:]
        out += [(namespace, token.partition(":")[0], offset) for token, offset in tokens]
        at += len(segment) + 1
    return out


def _end_at(out: Block, row: int, error: DataFormatError) -> None:
    """End the block before ``row``, whose error comes before any later one."""
    out.error = error
    nnz = int(out.indptr[row])
    out.data, out.indices, out.indptr = out.data[:nnz], out.indices[:nnz], out.indptr[:row + 1]
    out.labels, out.weights, out.lines = out.labels[:row], out.weights[:row], out.lines[:row]


def _splice_python_lines(out: Block, buf, slow, newline_pos, parser: PythonLine) -> None:
    """Parse the rows ``slow`` in Python and put them in place (their kernel rows are
    empty); a Python error ends the block there (it comes before any kernel error)."""
    counts = np.diff(out.indptr)
    keep = np.ones(out.n_rows, dtype=bool)
    at, cols, vals = [], [], []
    for r in slow.tolist():
        lineno = int(out.lines[r])
        start = int(newline_pos[lineno - 2]) + 1 if lineno > 1 else 0
        raw = bytes(buf[start : int(newline_pos[lineno - 1]) + 1])
        try:
            parsed = parser.parse(raw.decode("utf-8")[:-1], lineno)
        except UnicodeDecodeError as exc:
            parsed = DataFormatError(parser.path, lineno, f"not UTF-8 text ({exc.reason})")
        except DataFormatError as exc:
            parsed = exc
        if isinstance(parsed, DataFormatError):
            out.error = parsed
            keep[r:] = False
            break
        if parsed is None:  # blank (Unicode blanks only)
            keep[r] = False
            continue
        out.labels[r], out.weights[r] = parsed[0], parsed[1]
        counts[r] = len(parsed[2])
        at.append(np.full(len(parsed[2]), out.indptr[r]))
        cols.extend(parsed[2])
        vals.extend(parsed[3])
    if at:
        where = np.concatenate(at)
        out.data = np.insert(out.data, where, np.array(vals, dtype=np.float64))
        out.indices = np.insert(out.indices, where, np.array(cols, dtype=np.int64))
    nnz = int(counts[keep].sum())
    out.indptr = np.concatenate([[0], np.cumsum(counts[keep])]).astype(np.int64)
    out.data, out.indices = out.data[:nnz], out.indices[:nnz]
    out.labels, out.weights, out.lines = out.labels[keep], out.weights[keep], out.lines[keep]


def parsed_blocks(path, opts: kernel.Options, n_threads: int,
                  block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[Block, int]]:
    """``(block, its first line in the file)`` of each block, in order, parsed ahead by
    ``n_threads`` threads; the caller raises ``block.error`` once it has used the rows
    before it (``error.at_line(first_line - 1 + error.line)`` numbers it in the file)."""
    first_line = 1
    for block in map_in_order(read_blocks(path, block_bytes),
                              lambda b: parse_block(b, path, opts), n_threads,
                              depth=n_threads + 1):
        yield block, first_line
        first_line += block.newlines


def options(n_features, hash_features: bool, seed: int,
            tag_namespaces: bool = False) -> kernel.Options:
    """The kernel's options; ``tag_namespaces``: the full 32-bit hashes, each tagged with
    its namespace (``n_features`` is then ignored)."""
    return kernel.Options(hash_features=bool(hash_features),
                          n_buckets=2**32 if tag_namespaces else
                          int(n_features) if hash_features else 1,
                          seed=int(seed), use_strtod=strtod_usable(),
                          tag_namespaces=bool(tag_namespaces))
