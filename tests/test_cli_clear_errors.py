"""Clear errors in the command line's terms: comment lines before a CSV's rows, a delimiter
that is not the file's, a label column that holds no classes, a damaged compressed file
whose bytes decompress to lines that do not parse, and VW's unquoted tag."""

from __future__ import annotations

import gzip
import re
import struct

import numpy as np
import pytest
from helpers import run_cli

from halfspaces import load
from halfspaces.cli._io import in_cli_terms
from halfspaces.datasets import DataFormatError, load_csv

ROWS = "y,a,b\n1,1,0\n1,2,0.5\n-1,0,1\n-1,0.5,2\n"


def test_comment_lines_before_a_csv_are_skipped(tmp_path, capsys):
    clean, commented = tmp_path / "clean.csv", tmp_path / "commented.csv"
    clean.write_text(ROWS)
    commented.write_text("# exported by a spreadsheet\n  # units: cm\n\n" + ROWS)
    X, y = load_csv(commented)
    X_ref, y_ref = load_csv(clean)
    assert np.array_equal(X, X_ref) and np.array_equal(y, y_ref)
    for path in (clean, commented):
        assert run_cli(capsys, "train", path, "--algo", "perceptron", "--random-state", "0",
                       "-o", path.with_suffix(".npz"), "-q")[0] == 0
    assert np.array_equal(load(tmp_path / "clean.npz").coef_,
                          load(tmp_path / "commented.npz").coef_)
    commented.write_text("# note\n" + ROWS + "1,x,0\n")
    code, _, err = run_cli(capsys, "train", commented, "--algo", "perceptron", "-o",
                           tmp_path / "m.npz")
    assert code == 1 and "commented.csv:7: expected a number in column 1, got 'x'" in err


@pytest.mark.parametrize("delimiter, flag", [("\t", "tab"), (";", "semicolon")])
def test_a_file_with_another_delimiter_is_named(tmp_path, capsys, delimiter, flag):
    path = tmp_path / "d.csv"
    path.write_text(ROWS.replace(",", delimiter))
    with pytest.raises(DataFormatError, match=r"d\.csv:1: the first row is one field,"
                                              r" .*: its fields are separated by"
                                              r" .*; pass delimiter="
                                              + re.escape(repr(delimiter))):
        load_csv(path)
    code, _, err = run_cli(capsys, "train", path, "--algo", "perceptron", "-o",
                           tmp_path / "m.npz")
    assert code == 1 and err.rstrip().endswith(f"pass --delimiter {flag}")
    assert run_cli(capsys, "train", path, "--algo", "perceptron", "--delimiter", flag, "-o",
                   tmp_path / "m.npz", "-q")[0] == 0


def test_a_label_column_of_numbers_that_are_not_classes(tmp_path, capsys):
    path = tmp_path / "l.csv"
    path.write_text("a,y,b\n0.5,1,0\n0.7,-1,1\n0.25,1,3\n0.5,-1,2\n")
    code, _, err = run_cli(capsys, "train", path, "--algo", "svm", "-o", tmp_path / "m.npz")
    assert code == 1
    assert "l.csv: the label column, column 0 ('a'), holds numbers that are not classes" \
        " (0.25, 0.5, 0.7: 3 distinct values, not all whole); pass --label-column" in err
    assert "Unknown label type" not in err
    assert run_cli(capsys, "train", path, "--algo", "svm", "--label-column", "y", "-o",
                   tmp_path / "m.npz", "-q")[0] == 0


def _damaged_gzip(path, text: bytes) -> None:
    """``text`` gzip-compressed with a wrong CRC-32 in its trailer: it decompresses to the
    end, and only the final check says that the bytes are not the ones compressed."""
    data = bytearray(gzip.compress(text))
    crc = struct.unpack("<I", data[-8:-4])[0]
    data[-8:-4] = struct.pack("<I", crc ^ 0xFFFF)
    path.write_bytes(bytes(data))


def test_damage_that_decompresses_is_named_not_the_syntax(tmp_path):
    path = tmp_path / "d.svm.gz"
    _damaged_gzip(path, b"1 1:0.5\n-1 2:0.3x\n")
    parse_error = DataFormatError(path, 2, "expected a number, got '0.3x'")
    said = in_cli_terms(parse_error)
    assert said.reason == "compression" and said.line == 2
    assert str(said).startswith(f"{path}:2: the gzip data is damaged (CRC check failed")
    assert "line 2, the first that does not parse (expected a number, got '0.3x'), is" \
        " likely where the damage is; copy or download it again" in str(said)
    intact = tmp_path / "i.svm.gz"
    intact.write_bytes(gzip.compress(b"1 1:0.5\n-1 2:0.3x\n"))
    assert in_cli_terms(DataFormatError(intact, 2, "expected a number")).reason is None


@pytest.mark.jit_only
def test_damaged_gzip_read_in_blocks(tmp_path, capsys):
    """A file of several blocks: the streamed pass parses the bad line before the reader
    reaches the end of the compressed data."""
    rng = np.random.default_rng(0)
    rows = "".join(f"{s} 1:{a:.4f} 2:{b:.4f}\n" for s, a, b in
                   zip(rng.choice([-1, 1], 200_000), rng.random(200_000),
                       rng.random(200_000), strict=True))
    path = tmp_path / "big.svm.gz"
    _damaged_gzip(path, b"1 1:0.5\n-1 2:0.3x\n" + rows.encode())
    code, _, err = run_cli(capsys, "train", path, "--algo", "perceptron", "--no-shuffle",
                           "-o", tmp_path / "m.npz")
    assert code == 1
    assert "big.svm.gz:2: the gzip data is damaged (CRC check failed" in err


def test_vw_tag_touching_the_bar(tmp_path, capsys):
    path = tmp_path / "t.vw"
    path.write_text("1 1.0 zebra|f a b\n-1 2.0 yak|f c\n1 0.5 emu|f a\n-1 1 gnu|f c d\n")
    code, out, err = run_cli(capsys, "train", path, "--algo", "perceptron", "-o",
                             tmp_path / "m.npz", "--json")
    assert code == 0, err
    assert '"sample_weight": "importance"' in out
