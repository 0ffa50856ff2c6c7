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
