"""datasets.load: one entry point that dispatches on the format, checked against each
format's own reader on files written here by hand."""

import gzip
import io

import numpy as np
import pytest

from halfspaces.datasets import (
    DataFormatError,
    detect_format,
    load,
    load_csv,
    load_svmlight,
    load_text_tsv,
    load_vw,
)

SVMLIGHT = "1 2:0.5 4:1\n-1 1:2\n1 3:-1.5\n"
CSV = "x1,x2,y\n0.5,1,yes\n-1,2e-1,no\n"
VW = "1 | a:1 b:2\n-1 | c:0.5\n"
TSV = "ham\tsee you at noon\nspam\twin cash\n"


@pytest.mark.parametrize("name, text, reader, kwargs", [
    ("d.svm", SVMLIGHT, load_svmlight, {}),
    ("d.csv", CSV, load_csv, {"label_column": "y"}),
    ("d.vw", VW, load_vw, {}),
    ("d.tsv", TSV, load_text_tsv, {}),
])
def test_each_format_reads_as_its_reader_does(tmp_path, name, text, reader, kwargs):
    path = tmp_path / name
    path.write_text(text)
    data = load(path, **kwargs)
    X_ref, y_ref = reader(path, **kwargs)
    X, y = data  # unpacks as (X, y)
    assert data.format == detect_format(name) and data.path == str(path)
    assert data.is_text == (name == "d.tsv") and data.n_samples == len(y_ref)
    np.testing.assert_array_equal(y, y_ref)
    if data.is_text:
        assert X == list(X_ref)
    else:
        X_ref = X_ref.toarray() if hasattr(X_ref, "toarray") else X_ref
        np.testing.assert_array_equal(X.toarray() if hasattr(X, "toarray") else X, X_ref)


def test_compressed_file_and_explicit_format(tmp_path):
    path = tmp_path / "points.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("1,0.5,1\n-1,2,3\n")
    data = load(path, "csv", label_column=0)
    np.testing.assert_array_equal(data.X, [[0.5, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(data.y, [1.0, -1.0])


def test_svmlight_indexing_is_detected_and_recorded(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text(SVMLIGHT)  # no index 0: read 1-based
    assert load(path).zero_based is False
    assert load(path).X.shape == (3, 4)
    data = load(path, zero_based=True, n_features=6)
    assert data.zero_based is True and data.X.shape == (3, 6)
    np.testing.assert_array_equal(data.X.toarray(), load_svmlight(path, 6, zero_based=True)[0]
                                  .toarray())


def test_a_stream_is_read_once_and_named(tmp_path):
    stream = io.BytesIO(b"1,0.5\n-1,x\n")
    stream.name = "<stdin>"
    with pytest.raises(DataFormatError, match=r"^<stdin>:2: expected a number in column 1"):
        load(stream, "csv")


def test_csv_n_features_is_checked(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,0.5,1\n-1,2,3\n")
    assert load(path, n_features=2).X.shape == (2, 2)
    with pytest.raises(DataFormatError, match=r"d.csv: has 2 feature columns, not"
                                              r" n_features=3") as info:
        load(path, n_features=3)
    assert info.value.reason == "n_features"


def test_options_of_another_format_and_missing_files_are_errors(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text(SVMLIGHT)
    with pytest.raises(ValueError, match=r"load: 'label_column' does not apply to svmlight"
                                         r" files; svmlight takes n_features, zero_based, dtype"):
        load(path, label_column=2)
    assert load(path, label_column=None).n_samples == 3  # None: not given
    with pytest.raises(ValueError, match=r"load: 'format' must be one of 'svmlight', 'vw',"
                                         r" 'tsv', 'csv'; got 'json'"):
        load(path, "json")
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        load(tmp_path / "missing.csv")
