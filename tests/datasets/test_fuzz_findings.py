"""Every input on which the fuzzers of ``fuzz/`` found a fault, kept as a regression test
(the input is also in ``fuzz/corpus/<reader>/regression-*``, so the fuzzers replay it)."""

from __future__ import annotations

import pytest

from halfspaces.datasets import DataFormatError, iter_vw, load_vw


def test_vw_load_and_stream_report_the_first_error_in_the_file(tmp_path):
    """fuzz/vw.py found the file ``-2 |2 0\\n b`` (integer names, 1-based, n_features=1000):
    load_vw reported the syntax error of line 2 (it checked the indices after reading every
    line) while iter_vw reported the index 0 of line 1, the first error in the file."""
    path = tmp_path / "input.vw"
    path.write_bytes(b"-2 |2 0\n b")
    options = {"hash_features": False, "zero_based": False, "n_features": 1000}
    pattern = r"input\.vw:1: feature index 0 in a file read with 1-based indices"
    with pytest.raises(DataFormatError, match=pattern):
        load_vw(path, **options)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, **options))


def test_svmlight_load_and_stream_report_the_first_error_in_the_file(tmp_path):
    """fuzz/svmlight.py found (in CI's minute) a file whose line 1 has no qid, line 2 one,
    and line 3 a malformed 'qid' token, read with query_id=True: load_svmlight reported the
    syntax error of line 3 (it checked the qid rule after reading every block) while
    iter_svmlight, whose first block ended before line 3, reported line 2, the first error in
    the file."""
    from halfspaces.datasets import iter_svmlight, load_svmlight

    path = tmp_path / "input.svm"
    path.write_bytes(b"1e-3\n1 qid:2 3:.25 #3\x00\x00 q\n1 qid\xff")
    options = {"zero_based": True, "n_features": 4, "query_id": True}
    pattern = r"input\.svm:2: this line has a 'qid:' but the first line does not"
    with pytest.raises(DataFormatError, match=pattern):
        load_svmlight(path, **options)
    for chunk_rows in (1, 10):
        with pytest.raises(DataFormatError, match=pattern):
            list(iter_svmlight(path, chunk_rows=chunk_rows, **options))


def test_svmlight_streams_first_pass_keeps_the_qid_rule(tmp_path):
    """fuzz/svmlight.py then found the same file read with n_features=None: iter_svmlight's
    first pass (which finds the columns) checked every line but not the qid rule, so it
    reported line 3's syntax error where load_svmlight reported line 2."""
    from halfspaces.datasets import iter_svmlight, load_svmlight

    path = tmp_path / "input.svm"
    path.write_bytes(b"1e-3\n1 qid:2 6:.25 #3\x00\x00 1\n2 qid\xff")
    options = {"zero_based": "auto", "n_features": None, "query_id": True}
    pattern = r"input\.svm:2: this line has a 'qid:' but the first line does not"
    with pytest.raises(DataFormatError, match=pattern):
        load_svmlight(path, **options)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_svmlight(path, chunk_rows=2, **options))


def test_csv_column_named_by_digits_is_read_by_name(tmp_path):
    """fuzz/text.py found the CSV ``1;a;@b`` / ``1;5;2`` (delimiter ';'): its header names
    the label's column ``1``, and reading a file as laid out by that header took the name
    ``1`` for the index 1, so the label came from column ``a``."""
    from halfspaces.datasets.csv_format import read_csv, read_csv_like

    path = tmp_path / "input.csv"
    path.write_bytes(b"1;a;@b\n1;5;2\n")
    table = read_csv(path, delimiter=";")
    again = read_csv_like(path, table.layout, delimiter=";")
    assert again.y.tolist() == table.y.tolist() == [1.0]
    assert again.X.tolist() == table.X.tolist() == [[5.0, 2.0]]
