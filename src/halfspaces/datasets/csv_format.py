"""CSV files of numeric features with the label in one column (and example weights in
another, optionally).

The module is named ``csv_format`` rather than ``csv`` so that it can never stand in for the
standard library's :mod:`csv` (which does the parsing here).
"""

from __future__ import annotations

import csv
import io
import numbers
import os
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._validation import param_error
from ._io import DataFormatError, read_text

__all__ = ["CSVLayout", "CSVTable", "load_csv", "read_csv", "read_csv_like"]


def load_csv(
    path: str | os.PathLike, label_column: int | str = 0, *,
    weight_column: int | str | None = None, encoding: str = "utf-8", delimiter: str = ","
) -> tuple:
    """Read a CSV of numeric features with the label in ``label_column``.

    The first row is a header when one of its feature fields (every field but the label's
    and the weight's) is not a number, or when a column is given by name. Blank lines, and
    lines starting with ``#`` before the first row (comments), are skipped.
    A feature that is ``nan`` or infinite is an error naming its line and column.
    Labels that are all numbers become floats, otherwise strings (stripped of white space).
    ``.gz``, ``.bz2`` and ``.xz`` files are decompressed by extension.

    Parameters
    ----------
    path : str or path-like
    label_column : int or str, default=0
        0-based index of the label column (negative counts from the end: ``-1`` is the
        last), or the column's name in the header row. A string of digits is an index.
    weight_column : int, str or None, default=None
        The column of the examples' weights (as ``label_column``: an index or a name), each
        a finite number ``>= 0`` (0 leaves the example out); it is not a feature. None:
        no weights.
    encoding : str, default="utf-8"
    delimiter : str, default=","
        The one character between fields, e.g. ``"\\t"`` for tab-separated numbers.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        The other columns, in file order.
    y : ndarray of shape (n_samples,)
        float64 when every label is a number, else str.
    sample_weight : ndarray of shape (n_samples,), float64, only with ``weight_column``

    Raises
    ------
    DataFormatError
        ``FILE:LINE: problem``: a row with another number of fields than the first, a
        feature that is not a finite number, no data rows, a ``label_column`` or
        ``weight_column`` that names no column, or a weight that is missing, not a number,
        not finite or negative.

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
    table = read_csv(path, label_column, weight_column=weight_column, encoding=encoding,
                     delimiter=delimiter)
    if weight_column is None:
        return table.X, table.y
    return table.X, table.y, table.sample_weight


class CSVLayout(NamedTuple):
    """Where a CSV file's columns are: its ``header`` (the column names, or None), the
    ``label`` and ``weight`` (or None) columns' 0-based indices, and ``n_fields`` in a row.
    The other columns are the features, in file order."""

    header: tuple[str, ...] | None
    label: int
    weight: int | None
    n_fields: int

    @property
    def features(self) -> list[int]:
        return [j for j in range(self.n_fields) if j not in (self.label, self.weight)]

    def names(self) -> list[str] | None:
        """The features' names, when the header names every column once (else None)."""
        if self.header is None or len(set(self.header)) != len(self.header) \
                or "" in self.header:
            return None
        return [self.header[j] for j in self.features]


class CSVTable(NamedTuple):
    """What :func:`read_csv` read: ``X``, ``y`` (None where the file has no label column),
    ``sample_weight`` (None without a weight column), the file's ``layout`` and the names of
    the columns it ``ignored`` (by name: neither a feature, the label nor the weight)."""

    X: np.ndarray
    y: np.ndarray | None
    sample_weight: np.ndarray | None
    layout: CSVLayout
    ignored: tuple[str, ...] = ()


def read_csv(path, label_column: int | str = 0, *, weight_column: int | str | None = None,
             encoding: str = "utf-8", delimiter: str = ",") -> CSVTable:
    """:func:`load_csv`, returning the file's :class:`CSVLayout` too."""
    label_column = _check_column("label_column", label_column)
    if weight_column is not None:
        weight_column = _check_column("weight_column", weight_column)
    lines, rows = _rows(path, encoding, delimiter)
    n_fields, first = len(rows[0]), [field.strip() for field in rows[0]]
    (column, weight), data_lines, rows = _split_header(path, lines, rows, label_column,
                                                       weight_column)
    header = tuple(first) if int(data_lines[0]) != int(lines[0]) else None
    layout = CSVLayout(header, column, weight, n_fields)
    return _read_table(path, data_lines, rows, layout, layout.features,
                       None if header is None else int(lines[0]))


def read_csv_like(path, layout: CSVLayout, *, labelled: bool = True,
                  label_column: int | str | None = None,
                  weight_column: int | str | None = None, encoding: str = "utf-8",
                  delimiter: str = ",") -> CSVTable:
    """Read a CSV file as one laid out as ``layout`` (a model's training file).

    When ``layout`` names its columns and the file's first row names any of them, the
    columns are taken by name, in any order: a feature missing is an error, the label
    column may be missing only when not ``labelled``, the weight column may be missing,
    and other columns are ignored (their names in ``ignored``). Otherwise the columns are
    taken by position, as ``layout`` has them (the weight column where the rows have as
    many fields as the training file's); a header row that names none of the model's
    columns is an error. ``label_column`` and ``weight_column``, when given, name the
    columns in this file instead."""
    if label_column is not None:
        label_column = _check_column("label_column", label_column)
    if weight_column is not None:
        weight_column = _check_column("weight_column", weight_column)
    lines, rows = _rows(path, encoding, delimiter)
    first = [field.strip() for field in rows[0]]
    names = layout.names()
    wanted = None if names is None else {*names, layout.header[layout.label]}
    if wanted is None or not wanted & set(first):
        return _by_position(path, lines, rows, layout, names, label_column, weight_column)
    if label_column is None:
        label_column = layout.header[layout.label]
    if weight_column is None and layout.weight is not None:
        weight_column = layout.header[layout.weight]
    columns = ", ".join(first)
    missing = [name for name in names if name not in first]
    if missing:
        raise DataFormatError(path, int(lines[0]), f"no column named {missing[0]!r}, a"
                              f" feature of the model (trained on the columns"
                              f" {', '.join(layout.header)}); this file's columns: {columns}",
                              hint="give the file every feature column the model was"
                              " trained on (in any order)", reason="columns")
    label = _column_in(path, lines[0], first, "label_column", label_column)
    if label is None and labelled:
        raise DataFormatError(path, int(lines[0]), f"no label column {label_column!r}; this"
                              f" file's columns: {columns}", hint="name the label's column"
                              " with label_column", reason="label_column")
    weight = _column_in(path, lines[0], first, "weight_column", weight_column)
    kept = [first.index(name) for name in names]
    ignored = tuple(name for j, name in enumerate(first) if j not in (*kept, label, weight))
    layout = CSVLayout(tuple(first), label, weight, len(first))
    if len(rows) == 1:
        raise DataFormatError(path, int(lines[0]), "the file has a header row but no data"
                              " rows")
    table = _read_table(path, lines[1:], rows[1:], layout, kept, int(lines[0]))
    return table._replace(ignored=ignored)


def _by_position(path, lines, rows, layout, names, label_column, weight_column) -> CSVTable:
    """:func:`read_csv_like` by the positions of ``layout``."""
    label = layout.label if label_column is None else label_column
    weight = weight_column
    if weight is None and layout.weight is not None:
        if len(rows[0]) == layout.n_fields:
            weight = layout.weight
        elif layout.weight < label and label_column is None:  # no weights: one field less
            label -= 1
    (column, weight), data_lines, rows_left = _split_header(path, lines, rows, label, weight)
    has_header = int(data_lines[0]) != int(lines[0])
    if has_header and names is not None and not isinstance(label, str) \
            and not isinstance(weight, str):
        first = ", ".join(field.strip() for field in rows[0])
        raise DataFormatError(path, int(lines[0]), f"the header row names none of the"
                              f" model's columns ({', '.join(layout.header)}): {first}",
                              hint="write the columns' names as at training, or remove the"
                              " header row to take the columns by position",
                              reason="columns")
    n_fields = len(rows[0])
    here = CSVLayout(tuple(f.strip() for f in rows[0]) if has_header else None, column,
                     weight, n_fields)
    return _read_table(path, data_lines, rows_left, here, here.features,
                       int(lines[0]) if has_header else None)


def _column_in(path, line, first: list[str], name: str, value) -> int | None:
    """The index of column ``value`` (a name, even one of digits: None where the header
    lacks it; or an index) in a file whose header is ``first``."""
    if value is None:
        return None
    if isinstance(value, str):
        return first.index(value) if value in first else None
    if not -len(first) <= value < len(first):
        raise DataFormatError(path, int(line), f"{name} {value} is out of range for"
                              f" {len(first)} columns")
    return int(value) % len(first)


def _rows(path, encoding: str, delimiter: str):
    """The file's non-blank rows and their lines; an error when there are none."""
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise param_error("load_csv", "delimiter", "one character, e.g. ',' or '\\t'",
                          delimiter)
    lines, rows = _read_rows(path, encoding, delimiter)
    if not rows:
        raise DataFormatError(path, 1, "the file has no data rows")
    if len(rows[0]) == 1:
        for other, name in (("\t", "'\\t' (tab)"), (";", "';'"), (" ", "' '")):
            if other != delimiter and len(rows[0][0].strip().split(other)) > 1:
                raise DataFormatError(
                    path, int(lines[0]), f"the first row is one field,"
                    f" {rows[0][0].strip()[:40]!r}: its fields are separated by {name},"
                    f" not {delimiter!r}",
                    hint=f"pass delimiter={other!r}", reason="delimiter")
    return lines, rows


def _read_table(path, lines, rows, layout: CSVLayout, kept: list[int],
                header: int | None) -> CSVTable:
    """The values of the data ``rows`` laid out as ``layout``: the features ``kept``."""
    table = _table(path, lines, rows, layout.n_fields, header)
    X = _features(path, lines, table, kept)
    y = None if layout.label is None else _labels(path, lines, table, layout.label)
    w = None if layout.weight is None else _weights(path, lines, table, layout.weight)
    return CSVTable(X, y, w, layout)


def _check_column(name: str, value):
    """A column parameter as an int or a column name (a string of digits is an index)."""
    if isinstance(value, str) and _is_number(value, int):
        value = int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, str)):
        raise param_error("load_csv", name, "an int (0-based; negative counts from the end)"
                          " or a column name", value)
    return value


def _split_header(path, lines, rows, label_column, weight_column=None):
    """``((label column, weight column or None), lines, rows)`` with the header row removed
    when there is one (a column name was asked for, or a feature field of the first row is
    not a number)."""
    first = [field.strip() for field in rows[0]]
    n_fields = len(first)
    asked = [("label_column", label_column), ("weight_column", weight_column)]
    by_name = any(isinstance(value, str) for _, value in asked)
    columns = []
    for name, value in asked:
        if value is None:
            columns.append(None)
        elif isinstance(value, str):  # a column name means there is a header row
            if value not in first:
                raise DataFormatError(path, lines[0], f"no column named {value!r};"
                                      f" columns: {', '.join(first)}")
            columns.append(first.index(value))
        elif not -n_fields <= value < n_fields:
            raise DataFormatError(path, lines[0], f"{name} {value} is out of range for"
                                  f" {n_fields} columns (0 to {n_fields - 1}, or"
                                  f" {-n_fields} to -1 from the end)")
        else:
            columns.append(int(value) % n_fields)
    if columns[0] == columns[1]:
        raise DataFormatError(path, lines[0], f"label_column and weight_column name the same"
                              f" column ({columns[0]})", hint="the weights need a column of"
                              " their own")
    numeric = all(_is_number(f) for j, f in enumerate(first) if j not in columns)
    if by_name or not numeric:
        header_line = int(lines[0])
        lines, rows = lines[1:], rows[1:]
        if not rows:
            raise DataFormatError(path, header_line, "the file has a header row but no data"
                                  " rows")
    return tuple(columns), lines, rows


def _table(path, lines, rows, n_fields: int, header: int | None = None) -> np.ndarray:
    """The fields as a 2-D array of str; every row must have ``n_fields`` fields (those of
    the header row when ``header``, its line, is given)."""
    counts = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    wrong = np.flatnonzero(counts != n_fields)
    if wrong.size:
        i = int(wrong[0])
        if header is not None and i == 0 and (counts == counts[0]).all():
            # Every data row agrees and the first line does not: not this table's header
            # (scikit-learn's bundled CSV files start with counts and class names).
            raise DataFormatError(
                path, int(lines[0]), f"expected {n_fields} fields, as the header row on line"
                f" {header}, got {counts[0]}, as every data row", hint=f"line {header} is not"
                f" a header of these columns: remove it (e.g. `tail -n +{header + 1} {path} >"
                " NEW.csv`), or write the columns' names there")
        raise DataFormatError(path, int(lines[i]), f"expected {n_fields} fields, got"
                              f" {counts[i]}")
    return np.array(rows, dtype=str).reshape(len(rows), n_fields)


def _features(path, lines, table: np.ndarray, kept: list[int]) -> np.ndarray:
    """The columns ``kept`` (each feature's column in the file) as finite float64
    numbers."""
    kept = np.asarray(kept, dtype=np.intp)
    features = table[:, kept]
    try:
        X = features.astype(np.float64)
    except ValueError:
        raise _not_a_number(path, lines, features, kept) from None
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise DataFormatError(path, int(lines[i]), f"expected a finite number in column"
                              f" {kept[j]}, got {features[i, j].strip()!r}")
    return X


def _weights(path, lines, table: np.ndarray, column: int) -> np.ndarray:
    """The weight column as float64 numbers, each finite and ``>= 0``."""
    fields = np.char.strip(table[:, column])
    values = np.array([float(f) if _is_number(f) else np.nan for f in fields])
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if bad.size:
        i = int(bad[0])
        field = str(fields[i])
        problem = ("is empty" if not field else
                   f"is {field!r}, not a number" if not _is_number(field) else
                   f"is {field!r}, not a finite number" if not np.isfinite(values[i]) else
                   f"is {field!r}, which is negative")
        raise DataFormatError(path, int(lines[i]), f"the weight (column {column}) {problem}",
                              hint="give every row a weight >= 0 (0 leaves the row out)")
    return values


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
    """The non-blank rows of the file and the (1-based) line each one ends on; lines
    before the first row that start with ``#`` are comments."""
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
    for i, row in enumerate(rows):  # comment lines before the first row: '# ...'
        if keep[i] and not row[0].lstrip().startswith("#"):
            break
        keep[i] = False
    kept = np.flatnonzero(keep)
    return lines[kept], [rows[i] for i in kept]


def _not_a_number(path, lines, features: NDArray, kept: NDArray) -> DataFormatError:
    """The error for the first feature field that is not a number (only on the error path;
    ``kept``: each feature's column in the file)."""
    for i, row in enumerate(features):
        for j, field in enumerate(row):
            if not _is_number(field):
                return DataFormatError(path, int(lines[i]), f"expected a number in column"
                                       f" {kept[j]}, got {field.strip()!r}")
    return DataFormatError(path, None, "a feature field is not a number")


def _is_number(text: str, kind: type = float) -> bool:
    """Whether ``kind(text)`` parses (``float`` or ``int``)."""
    try:
        kind(text)
    except ValueError:
        return False
    return True
