"""The CSV reader against numpy.loadtxt and Python's csv module on the same files."""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma

import numpy as np
import pytest

from halfspaces.datasets import DataFormatError, load_csv


def _write(path, X, y, *, header=None, label_at=0, crlf=False):
    """A CSV written by hand: repr of each float, the label inserted at ``label_at``."""
    end = "\r\n" if crlf else "\n"
    lines = [",".join(header)] if header else []
    for x, label in zip(X, y, strict=True):
        fields = [repr(float(v)) for v in x]
        fields.insert(label_at if label_at >= 0 else len(fields) + 1 + label_at, str(label))
        lines.append(",".join(fields))
    path.write_text(end.join(lines) + end, newline="")
    return path


def _data(n=25, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4, size=(n, d))
    return X, np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize("label_at, column", [(0, 0), (0, "0"), (2, 2), (-1, -1), (-1, 3)])
def test_matches_loadtxt(tmp_path, label_at, column):
    X, y = _data()
    path = _write(tmp_path / "d.csv", X, y, label_at=label_at)
    table = np.loadtxt(path, delimiter=",")
    j = label_at % table.shape[1]
    got_X, got_y = load_csv(path, column)
    np.testing.assert_array_equal(got_X, np.delete(table, j, axis=1))
    np.testing.assert_array_equal(got_y, table[:, j])
    assert got_X.dtype == np.float64 and got_y.dtype == np.float64


@pytest.mark.parametrize("column", ["label", -1, 3])
def test_header_row_is_detected_and_names_a_column(tmp_path, column):
    X, y = _data(seed=1)
    path = _write(tmp_path / "h.csv", X, y, header=["a", "b", "c", "label"], label_at=-1)
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    got_X, got_y = load_csv(path, column)
    np.testing.assert_array_equal(got_X, table[:, :3])
    np.testing.assert_array_equal(got_y, table[:, 3])


def test_string_labels_header_and_whitespace_match_csv_module(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("x1, x2 ,kind\r\n0.5, 1,cat\r\n\r\n-1,2e-1, dog \r\n3,4,\"big cat\"\r\n",
                    newline="")
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header, body = rows[0], rows[1:]
    X, y = load_csv(path, "kind")
    np.testing.assert_array_equal(X, [[float(a), float(b)] for a, b, _ in body])
    assert y.tolist() == [r[2].strip() for r in body] == ["cat", "dog", "big cat"]
    assert header[2] == "kind"
    # A header is seen even when the label column is given by index.
    np.testing.assert_array_equal(load_csv(path, 2)[0], X)


def test_quoted_field_over_two_lines_keeps_line_numbers(tmp_path):
    path = tmp_path / "q.csv"
    good = tmp_path / "good.csv"
    good.write_text('label,x\n"a\nb",1\nc,2\n')
    with open(good, newline="") as f:
        rows = list(csv.reader(f))[1:]
    X, y = load_csv(good, "label")
    assert y.tolist() == [r[0] for r in rows] and X.ravel().tolist() == [1.0, 2.0]
    path.write_text('label,x\n"a\nb",1\nc,2\nd,oops\n')
    with pytest.raises(DataFormatError, match=r"q.csv:5: expected a number in column 1,"
                                              r" got 'oops'") as info:
        load_csv(path, "label")
    assert (info.value.line, info.value.path) == (5, str(path))


@pytest.mark.parametrize("opener, suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"),
                                            (lzma.open, ".xz")])
def test_compressed_equals_plain(tmp_path, opener, suffix):
    X, y = _data(seed=2)
    plain = _write(tmp_path / "d.csv", X, y)
    packed = tmp_path / ("d.csv" + suffix)
    with opener(packed, "wb") as f:
        f.write(plain.read_bytes())
    for got, want in zip(load_csv(packed), load_csv(plain), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("content, column, match, line", [
    ("1,2,3\n1,2\n", 0, r"bad.csv:2: expected 3 fields, got 2", 2),
    ("1,2,3\n\n4,5,6,7\n", 0, r"bad.csv:3: expected 3 fields, got 4", 3),
    # scikit-learn's bundled CSV: a first line of counts and class names, not a header
    ("3,2,no,yes\n1.5,2,0\n3,4,1\n5,6,0\n", -1, r"bad.csv:2: expected 4 fields, as the"
     r" header row on line 1, got 3, as every data row; line 1 is not a header of these"
     r" columns: remove it \(e\.g\. `tail -n \+2 .*bad.csv > NEW.csv`\)", 2),
    ("a,b,c,d\n1,2,3\n4,5,6,7\n", 0, r"bad.csv:2: expected 4 fields, got 3$", 2),
    ("1,2,3\n1,x,3\n", 0, r"bad.csv:2: expected a number in column 1, got 'x'", 2),
    ("1,2,3\n4,5,\n", 0, r"bad.csv:2: expected a number in column 2, got ''", 2),
    ("a,b\n1,2\n", "nope", r"bad.csv:1: no column named 'nope'; columns: a, b", 1),
    ("1,2\n", 5, r"bad.csv:1: label_column 5 is out of range for 2 columns", 1),
    ("\n\n", 0, r"bad.csv:1: the file has no data rows", 1),
    ("a,b\n", "b", r"bad.csv:1: the file has a header row but no data rows", 1),
    (b"1,2\n3,\xff\n", 0, r"bad.csv:2: bytes that are not utf-8 text", 2),
])
def test_malformed_rows_name_file_and_line(tmp_path, content, column, match, line):
    path = tmp_path / "bad.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(DataFormatError, match=match) as info:
        load_csv(path, column)
    assert info.value.line == line and info.value.path == str(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("column", [1.5, None, True])
def test_label_column_of_wrong_type(tmp_path, column):
    path = _write(tmp_path / "d.csv", *_data(n=3))
    with pytest.raises(ValueError, match=r"load_csv: 'label_column' must be an int"):
        load_csv(path, column)


@pytest.mark.parametrize("label_at", [0, -1])
def test_a_byte_order_mark_is_not_part_of_the_first_field(tmp_path, label_at):
    X, y = np.array([[0.5, 2.0], [-1.0, 3.0], [4.0, 0.0]]), np.array([1.0, -1.0, 1.0])
    path = _write(tmp_path / "bom.csv", X, y.astype(int), label_at=label_at)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    X2, y2 = load_csv(path, label_at)
    assert y2.dtype == np.float64 and y2.tolist() == y.tolist()  # not strings, no row lost
    np.testing.assert_array_equal(X2, X)
