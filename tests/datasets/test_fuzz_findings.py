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


def _crafted_block_file(tmp_path, name: str, change):
    """A cache of a small file whose block file ``name`` is ``change(its bytes)``, recorded
    in header.json with its size and CRC-32 (as a crafted cache would be); the source's
    path."""
    import json
    import zlib

    from halfspaces.datasets.cache import open_cached

    path = tmp_path / "source.svm"
    path.write_text("".join(f"{(-1) ** i} {i % 5 + 1}:{i / 7:.3g} {i % 5 + 3}:-{i % 3}.5\n"
                            for i in range(24)))
    directory = open_cached(path, block_bytes=64).directory
    content = change((directory / name).read_bytes())
    (directory / name).write_bytes(content)
    header = json.loads((directory / "header.json").read_text())
    header["files"][name] = [len(content), zlib.crc32(content)]
    (directory / "header.json").write_text(json.dumps(header))
    return path


@pytest.mark.parametrize("content", [
    # cut inside its header: numpy's parser raised ValueError ("EOF: reading array header")
    b"\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape':"
    + b" " * 18 + b"\n\x00\x00\x00\x00\x02",
    # a header that is not a Python literal: numpy's parser raised tokenize.TokenError
    b"\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'ran_order': False,"
    b" 'sha" + b" " * 52 + b"\n\x00\x00\x00\x00\x02\x00\x00\x00\x04",
], ids=["cut", "not-a-literal"])
def test_a_cache_block_with_a_damaged_npy_header_is_a_cache_error(tmp_path, content):
    """fuzz/cache.py found block files with a valid checksum whose .npy header numpy cannot
    parse: its exceptions came out of open_cached's pass, not a CacheError."""
    from halfspaces.datasets.cache import CacheError, open_cached

    path = _crafted_block_file(tmp_path, "000000.indices.npy", lambda _: content)
    with pytest.raises(CacheError, match=r"000000\.indices\.npy: its \.npy header cannot be"
                                         r" read .*delete the directory"):
        list(open_cached(path, block_bytes=64).blocks())


def test_a_cache_block_whose_row_pointers_do_not_start_at_0_is_a_cache_error(tmp_path):
    """fuzz/cache.py found a block whose indptr started at 1 (a valid checksum): SciPy's
    csr_matrix raised ValueError ("index pointer should start with 0")."""
    import io

    import numpy as np

    from halfspaces.datasets.cache import CacheError, open_cached

    def shifted(raw: bytes) -> bytes:
        out = io.BytesIO()
        np.save(out, np.load(io.BytesIO(raw)) + 1)
        return out.getvalue()

    path = _crafted_block_file(tmp_path, "000000.indptr.npy", shifted)
    with pytest.raises(CacheError, match=r"block 0's row pointers do not run from 0 to its"
                                         r" \d+ entries"):
        list(open_cached(path, block_bytes=64).blocks())
