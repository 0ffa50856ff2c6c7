"""CSV files of numeric features with the label in one column.

The module is named ``csv_format`` rather than ``csv`` so that it can never stand in for the
standard library's :mod:`csv` (which does the parsing here).
"""

from __future__ import annotations

import csv
import io
import numbers
import os

import numpy as np
from numpy.typing import NDArray

from .._validation import param_error
from ._io import DataFormatError, read_text

__all__ = ["load_csv"]


def load_csv(
    path: str | os.PathLike, label_column: int | str = 0, *, encoding: str = "utf-8",
    delimiter: str = ","
) -> tuple[NDArray[np.float64], NDArray]:
    """Read a CSV of numeric features with the label in ``label_column``.

    The first row is a header when one of its feature fields (every field but the label's)
    is not a number, or when ``label_column`` is a column name. Blank lines are skipped.
    A feature that is ``nan`` or infinite is an error naming its line and column.
    Labels that are all numbers become floats, otherwise strings (stripped of white space).
    ``.gz``, ``.bz2`` and ``.xz`` files are decompressed by extension.

    Parameters
    ----------
    path : str or path-like
    label_column : int or str, default=0
        0-based index of the label column (negative counts from the end: ``-1`` is the
        last), or the column's name in the header row. A string of digits is an index.
    encoding : str, default="utf-8"
    delimiter : str, default=","
        The one character between fields, e.g. ``"\\t"`` for tab-separated numbers.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns - 1), float64
        The other columns, in file order.
    y : ndarray of shape (n_samples,)
        float64 when every label is a number, else str.

    Raises
    ------
    DataFormatError
        ``FILE:LINE: problem``: a row with another number of fields than the first, a
        feature that is not a finite number, no data rows, or a ``label_column`` that names
        no column.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "points.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("x1,x2,kind\\n0.5,1,cat\\n-1,2e-1,dog\\n")
    >>> X, y = load_csv(path, "kind")
    >>> X.tolist(), y.tolist()
    ([[0.5, 1.0], [-1.0, 0.2]], ['cat', 'dog'])
    >>> load_csv(path, -1)[0].shape
    (2, 2)
    """
    label_column = _check_csv_params(label_column, delimiter)
    lines, rows = _read_rows(path, encoding, delimiter)
    if not rows:
        raise DataFormatError(path, 1, "the file has no data rows")
    n_fields = len(rows[0])
    column, lines, rows = _split_header(path, lines, rows, label_column)
    table = _table(path, lines, rows, n_fields)
    return _features(path, lines, table, column), _labels(path, lines, table, column)


def _check_csv_params(label_column, delimiter):
    """``label_column`` as an int or a column name, once both parameters are checked."""
    if isinstance(label_column, str) and _is_number(label_column, int):
        label_column = int(label_column)
    if isinstance(label_column, (bool, np.bool_)) or not isinstance(
            label_column, (numbers.Integral, str)):
        raise param_error("load_csv", "label_column", "an int (0-based; negative counts from"
                          " the end) or a column name", label_column)
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise param_error("load_csv", "delimiter", "one character, e.g. ',' or '\\t'",
                          delimiter)
    return label_column


def _split_header(path, lines, rows, label_column):
    """``(label column index, lines, rows)`` with the header row removed when there is one
    (a column name was asked for, or a feature field of the first row is not a number)."""
    first = [field.strip() for field in rows[0]]
    n_fields = len(first)
    if isinstance(label_column, str):
        header = first  # a column name means there is a header row
        if label_column not in header:
            raise DataFormatError(path, lines[0], f"no column named {label_column!r};"
                                  f" columns: {', '.join(header)}")
        column = header.index(label_column)
    else:
        if not -n_fields <= label_column < n_fields:
            raise DataFormatError(path, lines[0], f"label_column {label_column} is out of range"
                                  f" for {n_fields} columns (0 to {n_fields - 1}, or"
                                  f" {-n_fields} to -1 from the end)")
        column = int(label_column) % n_fields
        numeric = all(_is_number(f) for j, f in enumerate(first) if j != column)
        header = None if numeric else first
    if header is not None:
        header_line = int(lines[0])
        lines, rows = lines[1:], rows[1:]
        if not rows:
            raise DataFormatError(path, header_line, "the file has a header row but no data"
                                  " rows")
    return column, lines, rows


def _table(path, lines, rows, n_fields: int) -> np.ndarray:
    """The fields as a 2-D array of str; every row must have ``n_fields`` fields."""
    counts = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    wrong = np.flatnonzero(counts != n_fields)
    if wrong.size:
        i = int(wrong[0])
        raise DataFormatError(path, int(lines[i]), f"expected {n_fields} fields, got"
                              f" {counts[i]}")
    return np.array(rows, dtype=str).reshape(len(rows), n_fields)


def _features(path, lines, table: np.ndarray, column: int) -> np.ndarray:
    """The columns other than the label's as finite float64 numbers."""
    features = np.delete(table, column, axis=1)
    try:
        X = features.astype(np.float64)
    except ValueError:
        raise _not_a_number(path, lines, features, column) from None
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = (int(k) for k in bad[0])
        original = j if j < column else j + 1
        raise DataFormatError(path, int(lines[i]), f"expected a finite number in column"
                              f" {original}, got {features[i, j].strip()!r}")
    return X


def _labels(path, lines, table: np.ndarray, column: int) -> np.ndarray:
    """The label column, as float64 numbers when every label is one, else as strings."""
    labels = np.char.strip(table[:, column])
    empty = np.flatnonzero(labels == "")
    if empty.size:  # else every label would become a string, "" one of the classes
        raise DataFormatError(path, int(lines[empty[0]]), f"the label (column {column}) is"
                              " empty", hint="give every row a label, or drop the row")
    try:
        return labels.astype(np.float64)
    except ValueError:
        return labels


def _read_rows(path, encoding: str, delimiter: str
               ) -> tuple[NDArray[np.intp], list[list[str]]]:
    """The non-blank rows of the file and the (1-based) line each one ends on."""
    text = read_text(path, encoding)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = list(reader)
    if reader.line_num == len(rows):  # no quoted field spans lines: row i is on line i + 1
        lines = np.arange(1, len(rows) + 1)
    else:  # rare: parse again, asking the reader where each row ends
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        lines = np.fromiter((reader.line_num for _ in reader), dtype=np.intp, count=len(rows))
    keep = np.fromiter((any(map(str.strip, row)) for row in rows), dtype=bool,
                       count=len(rows))
    kept = np.flatnonzero(keep)
    return lines[kept], [rows[i] for i in kept]


def _not_a_number(path, lines, features: NDArray, column: int) -> DataFormatError:
    """The error for the first feature field that is not a number (only on the error path)."""
    for i, row in enumerate(features):
        for j, field in enumerate(row):
            if not _is_number(field):
                original = j if j < column else j + 1  # the column's index in the file
                return DataFormatError(path, int(lines[i]), f"expected a number in column"
                                       f" {original}, got {field.strip()!r}")
    return DataFormatError(path, None, "a feature field is not a number")


def _is_number(text: str, kind: type = float) -> bool:
    """Whether ``kind(text)`` parses (``float`` or ``int``)."""
    try:
        kind(text)
    except ValueError:
        return False
    return True
