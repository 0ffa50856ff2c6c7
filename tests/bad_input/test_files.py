"""Bad data files, read through the Python API and through the command line.

One table, :data:`FILE_CASES`: a row is ``(id, make, options, error, what, where, api_fix,
cli_fix)``. ``make(tmp_path)`` writes the file (or the folder, the link, the missing path)
and returns its path; ``options`` are :func:`halfspaces.datasets.load`'s keywords. Read with
``load(path, **options)``, the error must be of type ``error`` and match ``what``, ``where``
(the file, with ``:LINE`` where a line is to blame) and ``api_fix`` (advice in Python's
terms: keywords). Read by ``halfspaces train`` (run in-process through ``main``, with the
row's options as flags), the command must exit with status 1 and print exactly one line on
standard error, ``halfspaces: error: ...``, matching ``what``, ``where`` and ``cli_fix``
(advice in the command line's terms: flags). A few rows also run the real command in a
subprocess (:func:`test_end_to_end_in_a_subprocess`).

:data:`VALID` lists the forms that must be read, not refused (comments, ``qid``, CRLF line
ends, a byte-order mark, a 10 MB line, ...): each is compared with scikit-learn's
``load_svmlight_file`` on the same bytes (or, for the other formats, with the same data
written plainly).
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import re
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from halfspaces import cli
from halfspaces.datasets import DataFormatError, load

GOOD = b"1 1:0.5 2:1\n-1 1:-1 3:2\n1 2:0.25\n-1 1:-2 3:0.5\n"


def _file(name: str, content: bytes):
    def make(tmp_path):
        path = tmp_path / name
        path.write_bytes(content)
        return path
    return make


def _cut(name: str, compress) -> callable:
    """A compressed file cut in the middle of its stream (many lines, so the cut is after
    the first)."""
    whole = compress(b"".join(b"%d 1:%d 2:0.5\n" % (1 - 2 * (i % 2), i) for i in range(4000)))
    return _file(name, whole[: len(whole) // 2])


def _damaged_gzip(tmp_path):
    whole = bytearray(gzip.compress(GOOD * 200))
    whole[12:40] = b"\xff" * 28  # inside the deflate stream
    path = tmp_path / "damaged.svm.gz"
    path.write_bytes(bytes(whole))
    return path


def _folder(tmp_path):
    path = tmp_path / "data.svm"
    path.mkdir()
    return path


def _missing(tmp_path):
    return tmp_path / "nowhere" / "train.svm"


def _loop(tmp_path):
    path = tmp_path / "loop.svm"
    os.symlink(path, path)
    return path


def _unreadable(tmp_path, monkeypatch):
    """A file inside a folder that may not be searched (mode 000). Run as root, the kernel
    would allow it, so the refusal it gives other users (EACCES) is stood in for."""
    folder = tmp_path / "locked"
    folder.mkdir()
    path = folder / "train.svm"
    path.write_bytes(GOOD)
    folder.chmod(0)
    if os.geteuid() == 0:
        real_stat = os.stat

        def stat(p, *args, **kwargs):
            if str(os.fspath(p)).startswith(str(folder) + os.sep):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(p))
            return real_stat(p, *args, **kwargs)
        monkeypatch.setattr(os, "stat", stat)
    return path


@dataclass(frozen=True)
class Case:
    id: str
    make: callable
    options: dict
    error: type
    what: str
    where: str  # {name} is the file's name; a line number follows it where one is to blame
    api_fix: str
    cli_fix: str


SVM_TOKEN = r"expected 'index:value'"
FILE_CASES = [
    # svmlight
    Case("svm_bad_value", _file("a.svm", b"1 1:0.5\n-1 1:abc\n"), {}, DataFormatError,
         r"'1:abc'", r"{name}:2:4", SVM_TOKEN + r" with a number as value",
         SVM_TOKEN + r" with a number as value"),
    Case("svm_token_without_colon", _file("a.svm", b"1 1:0.5\n-1 abc\n"), {},
         DataFormatError, r"'abc'", r"{name}:2:4", SVM_TOKEN, SVM_TOKEN),
    Case("svm_double_colon", _file("a.svm", b"1 1:0.5\n-1 2::3\n"), {}, DataFormatError,
         r"'2::3'", r"{name}:2:4", SVM_TOKEN, SVM_TOKEN),
    Case("svm_index_0_when_one_based", _file("a.svm", b"1 1:0.5\n-1 0:2\n"),
         {"zero_based": False}, DataFormatError, r"index 0 in '0:2'", r"{name}:2:4",
         r"zero_based=True", r"--zero-based"),
    Case("svm_negative_index", _file("a.svm", b"1 1:0.5\n-1 -3:2\n"), {}, DataFormatError,
         r"'-3:2'", r"{name}:2:4", r"non-negative integer index", r"non-negative integer"),
    Case("svm_unsorted_indices", _file("a.svm", b"1 1:0.5\n-1 3:1 2:2\n"), {},
         DataFormatError, r"'2:2' after index 3", r"{name}:2:8", r"strictly increasing",
         r"strictly increasing"),
    Case("svm_duplicate_index", _file("a.svm", b"1 1:0.5\n-1 2:1 2:2\n"), {},
         DataFormatError, r"'2:2' after index 2", r"{name}:2:8", r"no repeats", r"no repeats"),
    Case("svm_missing_label", _file("a.svm", b"1 1:0.5\n2:1 3:2\n"), {}, DataFormatError,
         r"expected a label", r"{name}:2:1", r"a number such as \+1, -1", r"such as \+1"),
    Case("svm_label_not_a_number", _file("a.svm", b"1 1:0.5\nyes 2:1\n"), {},
         DataFormatError, r"got 'yes'", r"{name}:2:1", r"a number such as",
         r"a number such as"),
    # one index far beyond the rest: a question on the command line (the API reads it)
    Case("svm_lone_huge_index", _file("a.svm", b"1 2147483647:1\n-1 2:1\n"), {}, None,
         r"2147483647", r"{name}", None, r"--n-features 2147483647 to train on it anyway"
         r"|hash the features of an index space this large"),
    Case("svm_label_nan", _file("a.svm", b"1 1:0.5\nnan 2:1\n"), {}, DataFormatError,
         r"label is NaN", r"{name}:2:1", r"must be a number", r"must be a number"),
    Case("svm_value_nan", _file("a.svm", b"1 1:0.5\n-1 2:nan\n"), {}, DataFormatError,
         r"value is NaN in '2:nan'", r"{name}:2:4", r"impute a number", r"impute a number"),
    Case("svm_value_inf", _file("a.svm", b"1 1:0.5\n-1 2:inf\n"), {}, DataFormatError,
         r"feature value in '2:inf' is not finite", r"{name}:2:4",
         r"learners need finite values: clean the file", r"clean the file"),
    Case("svm_value_overflows", _file("a.svm", b"1 1:0.5\n-1 2:1 3:-1e999\n"), {},
         DataFormatError, r"'3:-1e999' is not finite \(.*beyond the largest double",
         r"{name}:2:8", r"replace it by a finite number", r"replace it by a finite number"),
    Case("svm_label_inf", _file("a.svm", b"1 1:0.5\n-inf 2:1\n"), {}, DataFormatError,
         r"label '-inf' is not finite", r"{name}:2:1", r"finite label such as \+1 or -1",
         r"finite label such as \+1 or -1"),
    Case("svm_inf_after_a_syntax_error", _file("a.svm", b"1 1:0.5\n-1 2:x\n1 1:inf\n"), {},
         DataFormatError, r"got '2:x'", r"{name}:2:4", SVM_TOKEN, SVM_TOKEN),
    Case("svm_index_beyond_64_bits", _file("a.svm", b"1 1:1\n-1 99999999999999999999999:1\n"),
         {}, DataFormatError, r"does not fit in a 64-bit", r"{name}:2:4", r"typo", r"typo"),
    Case("svm_index_beyond_n_features", _file("a.svm", b"1 1:1\n-1 7:1\n"),
         {"n_features": 3}, DataFormatError, r"beyond the 3 features", r"{name}:2:4",
         r"larger n_features", r"larger --n-features"),
    Case("svm_index_too_large_to_allocate", _file("a.svm", b"1 1:1\n-1 4611686018427387904:1\n"),
         {}, DataFormatError, r"cannot be allocated", r"{name}:2:4", r"check that index",
         r"check that index"),
    Case("svm_bad_qid", _file("a.svm", b"1 qid:1 1:0.5\n-1 qid:x 2:1\n"), {},
         DataFormatError, r"'qid:x'", r"{name}:2:4", r"'qid:<integer>'", r"'qid:<integer>'"),
    Case("svm_qid_after_a_feature", _file("a.svm", b"1 qid:1 1:0.5\n-1 2:1 qid:3\n"), {},
         DataFormatError, r"'qid:3'", r"{name}:2:8", SVM_TOKEN, SVM_TOKEN),
    Case("svm_non_utf8_value", _file("a.svm", b"1 1:0.5\n-1 2:\xff\n"), {},
         DataFormatError, r"'2:", r"{name}:2:4", SVM_TOKEN, SVM_TOKEN),
    Case("svm_empty_file", _file("a.svm", b""), {}, DataFormatError, r"no examples",
         r"{name}", r"empty, or has only blank", r"empty, or has only blank"),
    Case("svm_only_comments", _file("a.svm", b"# a comment\n\n  \n"), {}, DataFormatError,
         r"no examples", r"{name}", r"only blank and comment lines",
         r"only blank and comment lines"),
    Case("svm_negative_n_features", _file("a.svm", GOOD), {"n_features": -2}, ValueError,
         r"'n_features' must be a non-negative int", r"got -2", r"or None",
         r"--n-features"),
    Case("svm_n_features_2_to_40", _file("a.svm", GOOD), {"n_features": 2**40}, None,
         r"", r"", r"", r"--n-features 1099511627776: .* cannot be allocated.* smaller"
         r" --n-features"),
    # compressed files
    Case("gzip_cut_short", _cut("a.svm.gz", gzip.compress), {}, DataFormatError,
         r"gzip data ends before its end-of-stream marker", r"{name}:\d{{2,}}",
         r"copy or download it again", r"copy or download it again"),
    Case("xz_cut_short", _cut("a.svm.xz", lzma.compress), {}, DataFormatError,
         r"xz data ends before its end-of-stream marker", r"{name}:\d{{2,}}",
         r"copy or download it again", r"copy or download it again"),
    Case("bz2_cut_short", _cut("a.svm.bz2", bz2.compress), {}, DataFormatError,
         r"bzip2 data ends before its end-of-stream marker", r"{name}:\d+",
         r"copy or download it again", r"copy or download it again"),
    Case("gzip_damaged", _damaged_gzip, {}, DataFormatError, r"gzip data is damaged",
         r"{name}:\d+", r"copy or download it again", r"copy or download it again"),
    Case("gzip_name_on_plain_text", _file("a.svm.gz", GOOD), {}, DataFormatError,
         r"gzip data is damaged \(Not a gzipped file", r"{name}:1",
         r"rename it without \.gz", r"rename it without \.gz"),
    Case("xz_name_on_plain_text", _file("a.svm.xz", GOOD), {}, DataFormatError,
         r"xz data is damaged", r"{name}:1", r"rename it without \.xz",
         r"rename it without \.xz"),
    Case("bz2_name_on_plain_text", _file("a.svm.bz2", GOOD), {}, DataFormatError,
         r"bzip2 data is damaged", r"{name}:1", r"rename it without \.bz2",
         r"rename it without \.bz2"),
    Case("csv_gzip_cut_short", _cut("a.csv.gz", gzip.compress), {}, DataFormatError,
         r"gzip data ends before", r"{name}:\d+", r"copy or download", r"copy or download"),
    Case("tsv_xz_cut_short", _cut("a.tsv.xz", lzma.compress), {}, DataFormatError,
         r"xz data ends before", r"{name}:\d+", r"copy or download", r"copy or download"),
    Case("vw_gzip_cut_short", _cut("a.vw.gz", gzip.compress), {}, DataFormatError,
         r"gzip data ends before", r"{name}:\d+", r"copy or download", r"copy or download"),
    # paths that are not data files
    Case("folder", _folder, {}, IsADirectoryError, r"Is a directory", r"{name}",
         r"give a data file inside it", r"give a data file inside it"),
    Case("missing_file", _missing, {}, FileNotFoundError, r"No such file or directory",
         r"{name}", r"No such file", r"No such file"),  # what is wrong says what to do
    Case("symlink_loop", _loop, {}, OSError, r"Too many levels of symbolic links",
         r"{name}", r"point it at the data file", r"point it at the data file"),
    Case("unreadable_folder", _unreadable, {}, PermissionError, r"Permission denied",
         r"{name}", r"chmod", r"chmod"),
    # Vowpal Wabbit
    Case("vw_no_bar", _file("a.vw", b"1 | a b\n-1 a b\n"), {}, DataFormatError,
         r"expected '\|namespace features'", r"{name}:2", r"after the label",
         r"after the label"),
    Case("vw_missing_label", _file("a.vw", b"1 | a b\n| a b\n"), {}, DataFormatError,
         r"missing label", r"{name}:2", r"needs a label such as 1 or -1",
         r"needs a label such as 1 or -1"),
    Case("vw_label_not_a_number", _file("a.vw", b"1 | a b\nfoo | a b\n"), {},
         DataFormatError, r"got 'foo'", r"{name}:2", r"a label \(a number\)",
         r"a label \(a number\)"),
    Case("vw_value_not_a_number", _file("a.vw", b"1 | a b\n-1 | a:xyz\n"), {},
         DataFormatError, r"got 'xyz'", r"{name}:2", r"\(a number\)", r"\(a number\)"),
    Case("vw_value_nan", _file("a.vw", b"1 | a b\n-1 | a:nan\n"), {}, DataFormatError,
         r"got 'nan'", r"{name}:2", r"\(a number\)", r"\(a number\)"),
    Case("vw_value_inf", _file("a.vw", b"1 | a b\n-1 | a:inf\n"), {}, DataFormatError,
         r"value in 'a:inf' is not finite: got 'inf'", r"{name}:2:6",
         r"learners need finite values: clean the file", r"clean the file"),
    Case("vw_label_overflows", _file("a.vw", b"1 | a b\n1e400 | a\n"), {}, DataFormatError,
         r"a label is not finite: got '1e400'", r"{name}:2:1", r"replace it by a finite",
         r"replace it by a finite"),
    Case("vw_importance_negative", _file("a.vw", b"1 | a b\n-1 -2 | a\n"), {},
         DataFormatError, r"the importance weight '-2' is negative", r"{name}:2:4",
         r"must be >= 0 \(0 leaves it out\)", r"must be >= 0 \(0 leaves it out\)"),
    Case("vw_importance_negative_non_ascii", _file("a.vw", "1 | a b\n-1 -2 | \u00e9\n".encode()),
         {}, DataFormatError, r"the importance weight '-2' is negative", r"{name}:2",
         r"fix the weight or drop the line", r"fix the weight or drop the line"),
    Case("vw_importance_inf", _file("a.vw", b"1 | a b\n-1 inf | a\n"), {}, DataFormatError,
         r"an importance weight is not finite: got 'inf'", r"{name}:2:4", r"clean the file",
         r"clean the file"),
    Case("vw_value_inf_on_a_non_ascii_line", _file("a.vw", "1 | a\n-1 | \u00e9 a:-inf\n"
                                                    .encode()), {}, DataFormatError,
         r"value in 'a:-inf' is not finite", r"{name}:2", r"clean the file", r"clean the file"),
    Case("vw_scaled_value_overflows", _file("a.vw", b"1 | a\n-1 |n:1e200 a:1e200\n"), {},
         DataFormatError, r"times the weight of its namespace is not finite", r"{name}:2",
         r"scale the values or the namespace weight down",
         r"scale the values or the namespace weight down"),
    Case("vw_repeated_feature_sum_overflows", _file("a.vw", b"1 | a\n-1 |n a:1e308 a:1e308\n"),
         {}, DataFormatError, r"the positive values of feature 'a' in namespace 'n' on this"
         r" line sum to more than 1\.8e308", r"{name}:2:15",
         r"give the feature once per line, or scale its values down",
         r"give the feature once per line, or scale its values down"),
    Case("vw_name_not_an_index", _file("a.vw", b"1 | 1 2\n-1 | a\n"),
         {"hash_features": False}, DataFormatError, r"'a' is not a non-negative integer",
         r"{name}:2", r"hash_features=True", None),
    Case("vw_index_10_to_23", _file("a.vw", b"1 | 1 2\n-1 | 100000000000000000000000\n"),
         {"hash_features": False}, DataFormatError, r"does not fit in a 64-bit integer",
         r"{name}:2", r"typo", None),
    Case("vw_index_0_when_one_based", _file("a.vw", b"1 | 1 2\n-1 | 0\n"),
         {"hash_features": False, "zero_based": False}, DataFormatError, r"index 0",
         r"{name}:2", r"zero_based=True", None),
    Case("vw_empty_file", _file("a.vw", b""), {}, DataFormatError, r"no examples",
         r"{name}", r"empty, or has only blank lines", r"empty, or has only blank lines"),
    Case("vw_non_utf8", _file("a.vw", b"1 | a\n-1 | \xff\n"), {}, DataFormatError,
         r"not UTF-8", r"{name}:2", r"UTF-8", r"UTF-8"),
    # CSV
    Case("csv_row_too_short", _file("a.csv", b"1,0.5,2\n-1,3\n"), {}, DataFormatError,
         r"expected 3 fields, got 2", r"{name}:2", r"expected 3 fields", r"expected 3 fields"),
    Case("csv_text_in_a_feature", _file("a.csv", b"1,0.5,2\n-1,abc,3\n"), {},
         DataFormatError, r"got 'abc'", r"{name}:2", r"a number in column 1",
         r"a number in column 1"),
    Case("csv_nan_feature", _file("a.csv", b"1,0.5,2\n-1,nan,3\n"), {}, DataFormatError,
         r"got 'nan'", r"{name}:2", r"a finite number in column 1",
         r"a finite number in column 1"),
    Case("csv_inf_feature", _file("a.csv", b"1,0.5,2\n-1,3,-inf\n"), {}, DataFormatError,
         r"got '-inf'", r"{name}:2", r"a finite number in column 2",
         r"a finite number in column 2"),
    Case("csv_missing_value", _file("a.csv", b"1,0.5,2\n-1,,3\n"), {}, DataFormatError,
         r"got ''", r"{name}:2", r"a number in column 1", r"a number in column 1"),
    Case("csv_missing_label", _file("a.csv", b"1,0.5,2\n,1,3\n-1,2,2\n"), {},
         DataFormatError, r"label \(column 0\) is empty", r"{name}:2", r"give every row a"
         r" label", r"give every row a label"),
    Case("csv_empty_file", _file("a.csv", b""), {}, DataFormatError, r"no data rows",
         r"{name}:1", r"has no data rows", r"has no data rows"),
    Case("csv_header_only", _file("a.csv", b"y,a,b\n"), {}, DataFormatError,
         r"header row but no data rows", r"{name}:1", r"no data rows", r"no data rows"),
    Case("csv_label_column_out_of_range", _file("a.csv", b"1,0.5,2\n-1,1,3\n"),
         {"label_column": 5}, DataFormatError, r"label.column 5 is out of range",
         r"{name}:1", r"0 to 2, or -3 to -1", r"--label-column 5 is out of range"),
    Case("csv_label_column_name_unknown", _file("a.csv", b"y,a,b\n1,0.5,2\n-1,1,3\n"),
         {"label_column": "z"}, DataFormatError, r"no column named 'z'", r"{name}:1",
         r"columns: y, a, b", r"columns: y, a, b"),
    Case("csv_weight_negative", _file("a.csv", b"1,0.5,2\n-1,1,-3\n"), {"weight_column": 2},
         DataFormatError, r"the weight \(column 2\) is '-3', which is negative", r"{name}:2",
         r"give every row a weight >= 0", r"give every row a weight >= 0"),
    Case("csv_weight_not_a_number", _file("a.csv", b"y,a,w\n1,0.5,2\n-1,1,heavy\n"),
         {"weight_column": "w"}, DataFormatError, r"the weight \(column 2\) is 'heavy', not a"
         r" number", r"{name}:3", r"weight >= 0", r"weight >= 0"),
    Case("csv_weight_nan", _file("a.csv", b"1,0.5,2\n-1,1,nan\n"), {"weight_column": -1},
         DataFormatError, r"the weight \(column 2\) is 'nan', not a finite number",
         r"{name}:2", r"weight >= 0", r"weight >= 0"),
    Case("csv_weight_missing", _file("a.csv", b"1,0.5,\n-1,1,2\n"), {"weight_column": 2},
         DataFormatError, r"the weight \(column 2\) is empty", r"{name}:1", r"weight >= 0",
         r"weight >= 0"),
    Case("csv_weight_column_out_of_range", _file("a.csv", b"1,0.5,2\n-1,1,3\n"),
         {"weight_column": 3}, DataFormatError, r"weight.column 3 is out of range",
         r"{name}:1", r"0 to 2, or -3 to -1", r"--weight-column 3 is out of range"),
    Case("csv_weight_column_is_the_label", _file("a.csv", b"1,0.5,2\n-1,1,3\n"),
         {"weight_column": 0}, DataFormatError, r"name the same column \(0\)", r"{name}:1",
         r"label_column and weight_column", r"--label-column and --weight-column"),
    Case("csv_weight_column_name_unknown", _file("a.csv", b"y,a,b\n1,0.5,2\n-1,1,3\n"),
         {"weight_column": "w"}, DataFormatError, r"no column named 'w'", r"{name}:1",
         r"columns: y, a, b", r"columns: y, a, b"),
    Case("weight_column_not_for_vw", _file("a.vw", b"1 | a\n"), {"weight_column": 1},
         ValueError, r"weight.column'? does not apply to vw", r"vw",
         r"vw takes n_features", r"--weight-column does not apply to vw"),
    Case("csv_tab_separated", _file("a.csv", b"y\ta\tb\n1\t0.5\t2\n-1\t1\t3\n"), {},
         DataFormatError, r"the first row is one field, 'y\\ta\\tb'", r"{name}:1",
         r"delimiter='\\t'", r"--delimiter tab"),
    Case("csv_label_column_not_classes", _file("a.csv", b"a,y\n0.5,1\n0.75,-1\n"), {},
         None, r"holds numbers that are not classes \(0\.5, 0\.75", r"{name}", None,
         r"--label-column"),
    Case("csv_comment_then_bad_number", _file("a.csv", b"# note\n1,0.5\n-1,x\n"), {},
         DataFormatError, r"got 'x'", r"{name}:3", r"column 1", r"column 1"),
    Case("csv_non_utf8", _file("a.csv", b"1,0.5,2\n-1,\xff,3\n"), {}, DataFormatError,
         r"not utf-8 text", r"{name}:2", r"encoding=", r"--encoding"),
    Case("csv_unknown_encoding", _file("a.csv", GOOD), {"encoding": "klingon"}, ValueError,
         r"'encoding' must be the name of a text encoding",
         r"got 'klingon' \(unknown encoding\)", r"such as 'utf-8'", r"option --encoding"),
    # raw text (label<TAB>text)
    Case("tsv_line_without_tab", _file("a.tsv", b"spam\thello\nham hi\n"), {},
         DataFormatError, r"found no tab in 'ham hi'", r"{name}:2", r"'label<TAB>text'",
         r"'label<TAB>text'"),
    Case("tsv_empty_label", _file("a.tsv", b"spam\thello\n\thi\n"), {}, DataFormatError,
         r"empty label", r"{name}:2", r"before the tab", r"before the tab"),
    Case("tsv_non_utf8", _file("a.tsv", b"spam\thello\nham\t\xff\n"), {}, DataFormatError,
         r"not utf-8 text", r"{name}:2", r"encoding=", r"--encoding"),
    Case("tsv_empty_file", _file("a.tsv", b""), {}, DataFormatError, r"no examples",
         r"{name}", r"only blank lines", r"only blank lines"),
    # options a format does not take
    Case("option_not_for_the_format", _file("a.tsv", b"spam\thello\n"),
         {"n_features": 10}, ValueError, r"'n_features' does not apply to tsv",
         r"tsv", r"tsv takes encoding", None),  # train: --n-features hashes raw text
]

_FLAGS = {"zero_based": lambda v: ["--zero-based"] if v else ["--one-based"],
          "n_features": lambda v: ["--n-features", str(v)],
          "label_column": lambda v: ["--label-column", str(v)],
          "weight_column": lambda v: ["--weight-column", str(v)],
          "encoding": lambda v: ["--encoding", v]}


def _path(case, tmp_path, monkeypatch):
    if case.make is _unreadable:
        return _unreadable(tmp_path, monkeypatch)
    return case.make(tmp_path)


def _check(message: str, case, fix: str, path) -> None:
    where = case.where.format(name=re.escape(os.path.basename(path)))
    for part in (case.what, where, fix):
        assert re.search(part, message), f"{part!r} not in {message!r}"


API_CASES = [pytest.param(c, id=c.id) for c in FILE_CASES if c.error is not None]
CLI_CASES = [pytest.param(c, id=c.id) for c in FILE_CASES if c.cli_fix is not None]


@pytest.mark.parametrize("case", API_CASES)
def test_bad_file_through_the_api(case, tmp_path, monkeypatch):
    path = _path(case, tmp_path, monkeypatch)
    with pytest.raises(case.error) as info:
        load(path, **case.options)
    _check(str(info.value), case, case.api_fix, path)


def _train(capsys, path, options, tmp_path) -> tuple[int, str, str]:
    argv = ["train", str(path), "--algo", "perceptron", "-o", str(tmp_path / "m.hs")]
    for key, value in options.items():
        argv += _FLAGS[key](value) if key in _FLAGS else []
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", CLI_CASES)
def test_bad_file_on_the_command_line(case, tmp_path, monkeypatch, capsys):
    path = _path(case, tmp_path, monkeypatch)
    code, _, err = _train(capsys, path, case.options, tmp_path)
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("halfspaces: error: "), err
    assert "unexpected" not in lines[0], err  # not the catch-all
    _check(lines[0], case, case.cli_fix, path)
    assert not (tmp_path / "m.hs").exists()


# -- valid forms: read, not refused -----------------------------------------------------------

CRLF = GOOD.replace(b"\n", b"\r\n")
# About 10 MB on one line; a tenth of it when the kernels are interpreted (NUMBA_DISABLE_JIT),
# still one line longer than the reader's smallest block (64 KiB).
_LONG_LINE_ENTRIES = 110_000 if os.environ.get("NUMBA_DISABLE_JIT") == "1" else 1_100_000
VALID_SVMLIGHT = {
    "comments": b"# header comment\n1 1:0.5 2:1 # trailing comment\n-1 1:-1 3:2\n# end\n",
    "blank_lines_and_tabs": b"\n1\t1:0.5  2:1\n\n-1 1:-1\t3:2 \n",
    "crlf": CRLF,
    "bom": b"\xef\xbb\xbf" + GOOD,
    "bom_and_crlf": b"\xef\xbb\xbf" + CRLF,
    "no_final_newline": GOOD.rstrip(b"\n"),
    "zero_based": b"1 0:0.5 1:1\n-1 0:-1 2:2\n",
    "plus_signs_and_exponents": b"+1 1:+5e-1 2:1E0\n-1 1:-1.0 3:2e+0\n",
    "non_utf8_in_a_comment": b"1 1:0.5 # caf\xe9\n-1 2:1\n",
    "label_only_line": b"1\n-1 2:1\n",
    "ten_megabyte_line": b"1 " + b" ".join(b"%d:1" % i for i in range(1, _LONG_LINE_ENTRIES))
                         + b"\n-1 1:2\n",
}
VALID_QID = b"1 qid:1 1:0.5 2:1\n-1 qid:1 1:-1 3:2\n1 qid:2 2:0.25\n-1 qid:2 1:-2 3:0.5\n"


@pytest.mark.parametrize("content", list(VALID_SVMLIGHT.values()), ids=list(VALID_SVMLIGHT))
def test_valid_svmlight_forms_read_as_scikit_learn_reads_them(content, tmp_path):
    path = tmp_path / "ok.svm"
    path.write_bytes(content)
    X, y = load(path)
    # scikit-learn does not skip a byte-order mark: it reads the same bytes without one
    X_ref, y_ref = load_svmlight_file(io.BytesIO(content.removeprefix(b"\xef\xbb\xbf")),
                                      zero_based="auto")
    assert sp.issparse(X) and X.shape == X_ref.shape
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    np.testing.assert_array_equal(y, y_ref)


@pytest.mark.parametrize("suffix,compress", [(".gz", gzip.compress), (".xz", lzma.compress),
                                             (".bz2", bz2.compress)])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_valid_qid_forms_and_compressed_files(tmp_path, suffix, compress, newline):
    content = VALID_QID.replace(b"\n", newline)
    path = tmp_path / ("ok.svm" + suffix)
    path.write_bytes(compress(content))
    from halfspaces.datasets import load_svmlight

    X, y, qid = load_svmlight(path, query_id=True)
    X_ref, y_ref, qid_ref = load_svmlight_file(io.BytesIO(content), query_id=True)
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(qid, qid_ref)


# The same four examples in each of the other formats, with CRLF ends and a byte-order mark.
PLAIN = {"vw": b"1 | 1:0.5 2:1\n-1 | 1:-1 3:2\n1 | 2:0.25\n-1 | 1:-2 3:0.5\n",
         "csv": b"1,0.5,1,0\n-1,-1,0,2\n1,0,0.25,0\n-1,-2,0,0.5\n"}
VW_OPTIONS = {"hash_features": False, "zero_based": False, "n_features": 3}


@pytest.mark.parametrize("fmt", list(PLAIN))
@pytest.mark.parametrize("variant", ["crlf", "bom", "bom_and_crlf"])
def test_crlf_and_bom_in_vw_and_csv(tmp_path, fmt, variant):
    content = PLAIN[fmt]
    if "crlf" in variant:
        content = content.replace(b"\n", b"\r\n")
    if "bom" in variant:
        content = b"\xef\xbb\xbf" + content
    path = tmp_path / f"ok.{fmt}"
    path.write_bytes(content)
    options = VW_OPTIONS if fmt == "vw" else {}
    X, y = load(path, **options)
    X = X.toarray() if sp.issparse(X) else X
    X_ref, y_ref = load_svmlight_file(io.BytesIO(GOOD), n_features=3)
    np.testing.assert_array_equal(X, X_ref.toarray())
    np.testing.assert_array_equal(y, y_ref)


def test_crlf_and_bom_in_raw_text(tmp_path):
    path = tmp_path / "ok.tsv"
    path.write_bytes(b"\xef\xbb\xbfspam\tWin a prize\r\nham\tSee you at 5\r\n")
    X, y = load(path)
    assert list(X) == ["Win a prize", "See you at 5"] and list(y) == ["spam", "ham"]


# -- the command line end to end: exit status and one line on standard error ------------------

ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}


@pytest.mark.parametrize("case", [c for c in FILE_CASES if c.id in (
    "svm_bad_value", "gzip_cut_short")],
    ids=lambda c: c.id)
def test_end_to_end_in_a_subprocess(case, tmp_path, monkeypatch):
    path = _path(case, tmp_path, monkeypatch)
    argv = [sys.executable, "-m", "halfspaces.cli", "train", str(path), "--algo",
            "perceptron", "-o", str(tmp_path / "m.hs")]
    for key, value in case.options.items():
        argv += _FLAGS[key](value)
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("halfspaces: error: "), done.stderr
    _check(lines[0], case, case.cli_fix, path)


def test_label_outside_the_models_classes(tmp_path, capsys):
    train = tmp_path / "train.svm"
    train.write_bytes(GOOD)
    test = tmp_path / "test.svm"
    test.write_bytes(b"1 1:0.5\n3 1:-1\n")
    assert cli.main(["train", str(train), "--algo", "perceptron", "-o",
                     str(tmp_path / "m.hs")]) == 0
    capsys.readouterr()
    code = cli.main(["evaluate", str(tmp_path / "m.hs"), str(test)])
    err = capsys.readouterr().err
    assert code == 1 and len(err.splitlines()) == 1, err
    assert re.search(r"test\.svm: .*labels \['3'\] are not among the model's classes"
                     r" \['-1', '1'\] \(the first at row 1\); evaluate on data labelled with"
                     r" the model's classes", err), err


@pytest.mark.parametrize("case", [c for c in FILE_CASES if c.id in (
    "symlink_loop", "gzip_cut_short", "missing_file", "folder", "svm_lone_huge_index")],
    ids=lambda c: c.id)
def test_streamed_training_reports_the_file_problem(case, tmp_path, monkeypatch, capsys):
    """train --no-shuffle --cache reads svmlight in blocks: the same one line as read whole
    (a link loop was called "a pipe is read once")."""
    path = _path(case, tmp_path, monkeypatch)
    code = cli.main(["train", str(path), "--algo", "perceptron", "--no-shuffle", "--cache",
                     "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "m.hs")])
    err = capsys.readouterr().err
    assert code == 1 and len(err.splitlines()) == 1, err
    _check(err, case, case.cli_fix, path)


def test_streamed_training_with_an_unallocatable_n_features(tmp_path, capsys):
    path = tmp_path / "a.svm"
    path.write_bytes(GOOD)
    code = cli.main(["train", str(path), "--algo", "perceptron", "--no-shuffle", "--cache",
                     "--cache-dir", str(tmp_path / "cache"), "--n-features", str(2**40),
                     "-o", str(tmp_path / "m.hs")])
    err = capsys.readouterr().err
    assert code == 1 and len(err.splitlines()) == 1, err
    assert re.search(r"X has 1099511627776 columns.* cannot be allocated here.* a smaller"
                     r" --n-features \(or leave it out", err), err


def _noisy_svmlight(path, n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1, -1)
    lines = [f"{label} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(row))
             for row, label in zip(X, y, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _cached_train(path, tmp_path, *extra):
    return ["train", str(path), "--algo", "perceptron", "--no-shuffle", "--cache",
            "--max-iter", "5", "-o", str(tmp_path / "m.hs"), "--quiet", *extra]


def test_a_truncated_cache_file_is_named_with_the_fix(tmp_path, capsys):
    """A cache .npy cut short: one line naming the file and saying to delete the cache (not
    numpy's "buffer is smaller than requested size")."""
    path = _noisy_svmlight(tmp_path / "d.svm")
    assert cli.main(_cached_train(path, tmp_path)) == 0
    block = tmp_path / "d.svm.hscache" / "000000.data.npy"
    block.write_bytes(block.read_bytes()[:-16])
    capsys.readouterr()
    code = cli.main(_cached_train(path, tmp_path))
    err = capsys.readouterr().err
    assert code == 1 and len(err.splitlines()) == 1, err
    assert re.search(r"d\.svm\.hscache/000000\.data\.npy: the file has [\d,]+ bytes, and the"
                     r" cache wrote [\d,]+ \(truncated\): the cache is damaged; delete the"
                     r" directory .*d\.svm\.hscache to rebuild it", err), err


def test_a_data_file_replaced_with_the_same_size_and_time_is_not_trained_from_its_cache(
        tmp_path, capsys):
    """tar x / rsync -t style: a new file, the old size and modification time: train --cache
    learns the new rows (the model of fit on the new file), not the cached old ones."""
    from halfspaces import Perceptron, load
    from halfspaces.datasets import load_svmlight

    path = _noisy_svmlight(tmp_path / "d.svm", seed=1)
    assert cli.main(_cached_train(path, tmp_path)) == 0
    old = os.stat(path)
    reversed_rows = b"\n".join(reversed(path.read_bytes().rstrip(b"\n").split(b"\n"))) + b"\n"
    path.unlink()
    path.write_bytes(reversed_rows)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (old.st_size, old.st_mtime_ns)
    assert cli.main(_cached_train(path, tmp_path)) == 0, capsys.readouterr().err
    import warnings

    X, y = load_svmlight(path)
    with warnings.catch_warnings(action="ignore"):
        expected = Perceptron(max_iter=5, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(load(tmp_path / "m.hs").coef_, expected.coef_)


def test_concurrent_cached_trainings_of_one_file_all_succeed(tmp_path):
    """Four train --cache processes at once on one file, two of them with another
    --n-features (so each makes the other's cache stale: rebuilt again and again): all
    succeed, each with the model of fit."""
    path = _noisy_svmlight(tmp_path / "d.svm", n=400, seed=2)
    runs = []
    for k, width in enumerate((4, 6, 4, 6)):
        argv = ["train", str(path), "--algo", "averaged", "--no-shuffle", "--cache",
                "--max-iter", "30", "--n-features", str(width), "-o",
                str(tmp_path / f"m{k}.hs"), "--quiet"]
        runs.append(subprocess.Popen([sys.executable, "-m", "halfspaces", *argv],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err
    from halfspaces import load

    for k in (2, 3):  # the same options: the same model, whichever cache each one read
        np.testing.assert_array_equal(load(tmp_path / f"m{k}.hs").coef_,
                                      load(tmp_path / f"m{k - 2}.hs").coef_)
