"""svmlight reader/writer: bit-identical to scikit-learn's reader, streaming, atomic writes."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from helpers import load_error
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file
from strategies import decimal_numbers

from halfspaces.datasets import DataFormatError, dump_svmlight, iter_svmlight, load_svmlight
from halfspaces.datasets._io import atomic_write

SHARED = Path(os.environ.get("HALFSPACES_DATA", "/work/shared/data"))
BUNDLED = Path(__file__).resolve().parents[2] / "src" / "halfspaces" / "datasets" / "data"
_NAMES = ["heart_scale", "diabetes_scale", "a9a", "a9a.t", "w8a", "reuters.trn", "reuters.tst",
          "rcv1_small.svm", "rcv1_small_test.svm", "agaricus.txt.train", "agaricus.txt.test"]


def _real_files() -> list[Path]:
    """Every svmlight file we have: the shared data set, or the bundled copies."""
    found = {}
    for root in (SHARED, BUNDLED):
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                base = p.name
                for ext in (".gz", ".bz2", ".xz"):
                    base = base.removesuffix(ext)
                if p.is_file() and base in _NAMES and base not in found:
                    found[base] = p
    return list(found.values())


def assert_same(X, y, X_ref, y_ref):
    """Same shape, structure and values, bit for bit (sign of zero included)."""
    X_ref = sp.csr_matrix(X_ref)
    assert X.shape == X_ref.shape
    assert X.dtype == X_ref.dtype
    np.testing.assert_array_equal(X.indptr, X_ref.indptr)
    np.testing.assert_array_equal(X.indices, X_ref.indices)
    assert X.data.tobytes() == X_ref.data.tobytes()
    assert y.dtype == y_ref.dtype == np.float64
    assert y.tobytes() == y_ref.tobytes()


def write(tmp_path, text: str, name: str = "f.svm") -> Path:
    path = tmp_path / name
    data = text.encode()
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(path.suffix, open)
    with opener(path, "wb") as f:
        f.write(data)
    return path


# -- the real files ------------------------------------------------------------------------

def test_real_files_match_sklearn_bit_for_bit():
    files = _real_files()
    if numba.config.DISABLE_JIT:  # the kernel runs as plain Python: the small files only
        files = [p for p in files if p.stat().st_size < 100_000]
    for path in files:
        for dtype in (np.float64, np.float32):
            X, y = load_svmlight(path, dtype=dtype)
            assert_same(X, y, *load_svmlight_file(str(path), dtype=dtype))
    if SHARED.is_dir() and not numba.config.DISABLE_JIT:
        assert len(files) >= 9


def test_w8a_empty_rows_are_kept():
    path = SHARED / "w8a" / "w8a"
    if not path.exists() or numba.config.DISABLE_JIT:  # then only the small file below
        path = None
    if path is not None:
        X, y = load_svmlight(path)
        assert X.shape == (49749, 300)
        assert int(np.sum(np.diff(X.indptr) == 0)) == 4203
    X, y = load_svmlight_text("+1\n-1 3:1\n-1\n")
    assert X.shape == (3, 3) and list(np.diff(X.indptr)) == [0, 1, 0]


def load_svmlight_text(text, **kw):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        return load_svmlight(write(Path(d), text), **kw)


# -- generated files against scikit-learn ---------------------------------------------------

_FORMATS = [
    repr,
    lambda v: f"{v:.17g}",
    lambda v: f"{v:.6e}",
    lambda v: f"{v:.14E}",
    lambda v: f"{v:.3f}",
    lambda v: f"{v:+.10g}",
    lambda v: repr(v).replace("0.", ".", 1) if repr(v).startswith("0.") else repr(v),
]

floats = st.floats(allow_nan=False, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, 1.0, -1.0, 0.1, 1e-5, 1e22, 1e23, 9.86899159742946e-02, 5e-324,
     1.7976931348623157e308]
)


@st.composite
def svmlight_texts(draw):
    """A random well-formed svmlight text with every number form Python's float accepts."""
    n_rows = draw(st.integers(0, 8))
    lines = []
    zero = draw(st.booleans())
    indices = st.integers(0 if zero else 1, 40) | st.integers(1, 10**6)
    for _ in range(n_rows):
        label = draw(st.sampled_from(["+1", "-1", "1", "0", "2.5", "-0", "1e0", ".5"]))
        idx = sorted(draw(st.sets(indices, max_size=6)))
        toks = [label]
        for i in idx:
            fmt = draw(st.sampled_from(_FORMATS))
            written = draw(st.sampled_from([str(i), "+" + str(i), "00" + str(i)]))
            toks.append(f"{written}:{fmt(draw(floats))}")
        sep = draw(st.sampled_from([" ", "\t", "  ", " \t "]))
        line = sep.join(toks)
        if draw(st.booleans()):
            line += draw(st.sampled_from([" # comment 1:2", "#x", "  ", "\r"]))
        lines.append(line)
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# only a comment", "   "])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def _line_of_row(text: str, row: int) -> int:
    """The line (from 1) of example ``row`` (from 0) of an svmlight text: the examples are
    the lines with something before their comment."""
    rows = [k for k, line in enumerate(text.split("\n"), 1) if line.split("#")[0].strip()]
    return rows[row]


@settings(max_examples=150, deadline=None)
@given(text=svmlight_texts(), zero_based=st.sampled_from(["auto", True, False]))
def test_generated_files_match_sklearn(tmp_path_factory, text, zero_based):
    path = write(tmp_path_factory.mktemp("h"), text)
    try:
        ref = load_svmlight_file(str(path), zero_based=zero_based)
    except ValueError:
        with pytest.raises(DataFormatError):
            load_svmlight(path, zero_based=zero_based)
        return
    if ref[0].shape[0] == 0:  # scikit-learn reads (0, 1); we say that there is nothing
        with pytest.raises(DataFormatError, match="no examples in the file"):
            load_svmlight(path, zero_based=zero_based)
        return
    bad = np.flatnonzero(~np.isfinite(ref[0].data))
    if bad.size:  # scikit-learn keeps an infinity; we refuse it on its line
        line = _line_of_row(text, int(np.searchsorted(ref[0].indptr, bad[0], "right")) - 1)
        with pytest.raises(DataFormatError, match=rf"f\.svm:{line}:\d+: the feature value in"
                           r" '\+?\d+:[^']*' is not finite.*learners need finite values"):
            load_svmlight(path, zero_based=zero_based)
        return
    X, y = load_svmlight(path, zero_based=zero_based)
    assert_same(X, y, *ref)
    X32, y32 = load_svmlight(path, zero_based=zero_based, dtype=np.float32)
    assert_same(X32, y32, *load_svmlight_file(str(path), zero_based=zero_based,
                                              dtype=np.float32))


def test_long_mantissas_and_exponents_are_correctly_rounded(tmp_path):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-300, 300, 300),
                             rng.random(300), [2.2250738585072014e-308, 4.9e-324]])
    tokens = []
    for v in values.tolist():
        tokens += [repr(v), f"{v:.25e}", f"{v:.20g}", f"{v:.40f}"[:45]]
    text = "\n".join(f"1 1:{t}" for t in tokens) + "\n"
    path = write(tmp_path, text)
    X, y = load_svmlight(path)
    assert_same(X, y, *load_svmlight_file(str(path)))
    np.testing.assert_array_equal(X.data, [float(t) for t in tokens])


def test_query_id_matches_sklearn(tmp_path):
    path = write(tmp_path, "3 qid:1 1:0.5 2:1\n2 qid:1 3:1\n1 qid:-7 1:2\n")
    X, y, q = load_svmlight(path, query_id=True)
    X_ref, y_ref, q_ref = load_svmlight_file(str(path), query_id=True)
    assert_same(X, y, X_ref, y_ref)
    np.testing.assert_array_equal(q, q_ref)
    assert_same(*load_svmlight(path), X_ref, y_ref)


def test_qid_on_some_lines_only_is_an_error_with_query_id(tmp_path):
    path = write(tmp_path, "3 qid:1 1:0.5\n2 1:1\n")
    with pytest.raises(DataFormatError, match=r"f\.svm:2: .*no 'qid:'") as err:
        load_svmlight(path, query_id=True)
    assert err.value.line == 2
    X, _ = load_svmlight(path)  # without query_id the qids are ignored, as in sklearn
    assert X.shape == (2, 1)


@pytest.mark.parametrize("ext", [".gz", ".bz2", ".xz"])
def test_compressed_files(tmp_path, ext):
    text = "+1 1:0.25 4:1e-3\n-1\n-1 2:7\n"
    plain = write(tmp_path, text)
    packed = write(tmp_path, text, "f.svm" + ext)
    assert_same(*load_svmlight(packed), *load_svmlight_file(str(plain)))


def test_file_objects(tmp_path):
    plain = write(tmp_path, "+1 1:0.5\n-1 2:x\n")
    with open(plain, "rb") as f:
        with pytest.raises(DataFormatError, match=r"f\.svm:2:4: .*got '2:x'"):
            load_svmlight(f)
    packed = write(tmp_path, "+1 1:0.5\n-1 2:3\n", "g.svm.gz")
    with gzip.open(packed, "rb") as f:
        X, y = load_svmlight(f)
    with gzip.open(packed, "rb") as f:
        X2, y2 = _stack(iter_svmlight(f, n_features=2, chunk_rows=1))
    assert_same(X, y, *load_svmlight(packed))
    assert_same(X2, y2, X, y)
    with open(plain, "rb") as f, pytest.raises(ValueError, match="'n_features' is required"):
        iter_svmlight(f)


def test_n_features(tmp_path):
    path = write(tmp_path, "1 1:1 3:1\n")
    X, _ = load_svmlight(path, n_features=10)
    assert X.shape == (1, 10)
    with pytest.raises(DataFormatError, match=r"f\.svm:1:7: the index in '3:1' is beyond the"
                                              " 2 features"):
        load_svmlight(path, n_features=2)
    with pytest.raises(ValueError, match="'zero_based' must be True, False or 'auto'"):
        load_svmlight(path, zero_based="yes")
    with pytest.raises(ValueError, match="'dtype' must be float64 or float32"):
        load_svmlight(path, dtype=np.int32)


# -- malformed input ------------------------------------------------------------------------

MALFORMED = [
    ("1 1:1\n-1 abc\n", 2, r"bad\.svm:2:4: expected 'index:value', got 'abc'"),
    ("1 1:x\n", 1, r"bad\.svm:1:3: .*number as value, got '1:x'"),
    ("1 x:1\n", 1, r"non-negative integer index, got 'x:1'"),
    ("1 -3:1\n", 1, r"non-negative integer index, got '-3:1'"),
    ("1 1:1\n\n# c\n1 2:1 2:3\n", 4, r"bad\.svm:4:7: .*strictly increasing.*got '2:3' after"
     r" index 2"),
    ("1 5:1 2:1\n", 1, r"strictly increasing .*got '2:1' after index 5"),
    ("1:2 3:4\n", 1, r"bad\.svm:1:1: expected a label .*got '1:2'"),
    ("1 1:nan\n", 1, r"the value is NaN in '1:nan'"),
    ("nan 1:1\n", 1, r"the label is NaN"),
    ("1 qid:x 1:1\n", 1, r"expected 'qid:<integer>', got 'qid:x'"),
    ("1 1:1_0\n", 1, r"number as value, got '1:1_0'"),
    ("1 1:1e\n", 1, r"number as value, got '1:1e'"),
    ("1 1:1:2\n", 1, r"number as value, got '1:1:2'"),
    ("1 1:\n", 1, r"number as value, got '1:'"),
    ("1 :1\n", 1, r"non-negative integer index, got ':1'"),
]


@pytest.mark.parametrize("text, line, pattern", MALFORMED)
def test_malformed_lines_name_file_line_and_token(tmp_path, text, line, pattern):
    path = tmp_path / "bad.svm"
    err = load_error(load_svmlight, path, text.encode(), pattern)
    assert isinstance(err, ValueError)
    assert err.line == line and err.path == str(path)
    with pytest.raises(DataFormatError, match=pattern):
        for _ in iter_svmlight(path, n_features=10, block_size=4):
            pass


# scikit-learn takes NaN, '1_0' (Python's float does) and ignores a bad qid unless asked for
# qids; we refuse all three (documented in the module).
@pytest.mark.parametrize("text, line, pattern", [m for m in MALFORMED if "nan" not in m[0]
                                                 and "_" not in m[0] and "qid" not in m[0]])
def test_sklearn_also_rejects_what_we_reject(tmp_path, text, line, pattern):
    with pytest.raises(ValueError):
        load_svmlight_file(str(write(tmp_path, text)))


def test_index_zero_with_one_based(tmp_path):
    path = write(tmp_path, "1 1:1\n1 0:1\n", "z.svm")
    with pytest.raises(DataFormatError, match=r"z\.svm:2:3: index 0 in '0:1' in a file read"
                                              r" with 1-based indices; pass zero_based=True")\
            as err:
        load_svmlight(path, zero_based=False)
    assert err.value.line == 2 and err.value.reason == "zero_index"
    with pytest.raises(ValueError):
        load_svmlight_file(str(path), zero_based=False)
    assert_same(*load_svmlight(path), *load_svmlight_file(str(path)))


# -- streaming ------------------------------------------------------------------------------

def _stack(chunks):
    chunks = list(chunks)
    return sp.vstack([c[0] for c in chunks], format="csr"), np.concatenate([c[1] for c in chunks])


@pytest.mark.parametrize("ext", ["", ".gz", ".xz"])
@pytest.mark.parametrize("chunk_rows", [1, 7, 100000])
@pytest.mark.parametrize("block_size", [5, 64, 1 << 20])
def test_chunks_concatenate_to_the_full_load(tmp_path, ext, chunk_rows, block_size):
    rng = np.random.default_rng(1)
    X = sp.random(60, 30, density=0.2, random_state=2, format="csr")
    X.data = rng.standard_normal(X.nnz)
    y = rng.choice([-1, 1], 60)
    path = tmp_path / ("d.svm" + ext)
    dump_svmlight(X, y, path, comment="generated")
    full = load_svmlight(path)
    chunks = list(iter_svmlight(path, chunk_rows=chunk_rows, block_size=block_size))
    assert all(c[0].shape[0] == min(chunk_rows, 60) for c in chunks[:-1])
    assert_same(*_stack(chunks), *full)
    given_n = list(iter_svmlight(path, chunk_rows=chunk_rows, n_features=30,
                                 block_size=block_size))
    assert_same(*_stack(given_n), *full)


def test_stream_zero_based_auto_contradicted_later(tmp_path):
    path = write(tmp_path, "1 1:1\n" * 50 + "1 0:1\n")
    X, _ = _stack(iter_svmlight(path, block_size=32))  # n_features=None: a first pass decides
    assert_same(X, _, *load_svmlight_file(str(path)))
    with pytest.raises(DataFormatError, match=r":51:3: index 0 in '0:1', but the stream was"
                                              r" read as 1-based.*pass zero_based=True"):
        list(iter_svmlight(path, n_features=5, block_size=32))
    X, _ = _stack(iter_svmlight(path, n_features=5, block_size=32, zero_based=True))
    assert X.shape == (51, 5) and X[0, 1] == 1


def test_stream_query_id(tmp_path):
    path = write(tmp_path, "".join(f"{i % 3} qid:{i // 4} {i + 1}:1\n" for i in range(20)))
    chunks = list(iter_svmlight(path, chunk_rows=6, block_size=16, query_id=True))
    X_ref, y_ref, q_ref = load_svmlight_file(str(path), query_id=True)
    np.testing.assert_array_equal(np.concatenate([c[2] for c in chunks]), q_ref)
    assert_same(*_stack(chunks), X_ref, y_ref)


def test_stream_bad_arguments(tmp_path):
    path = write(tmp_path, "1 1:1\n")
    with pytest.raises(ValueError, match="'chunk_rows' must be an int >= 1; got 0"):
        iter_svmlight(path, chunk_rows=0)
    with pytest.raises(DataFormatError, match=r"f\.svm:1:3: the index in '1:1' is beyond the"
                                              " 0 features"):
        list(iter_svmlight(path, n_features=0))


# -- writing --------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_dump_round_trip_is_exact(tmp_path_factory, data):
    n, d = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    finite = st.floats(allow_nan=False, allow_infinity=False, width=64)  # inf: refused
    dense = np.array(data.draw(st.lists(finite | st.just(0.0),
                                        min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(data.draw(st.lists(st.floats(allow_nan=False, allow_infinity=False),
                                    min_size=n, max_size=n)))
    zero_based = data.draw(st.booleans())
    ext = data.draw(st.sampled_from(["", ".gz", ".bz2"]))
    path = tmp_path_factory.mktemp("d") / ("out.svm" + ext)
    dump_svmlight(dense, y, path, zero_based=zero_based)
    X, y2 = load_svmlight(path, n_features=d, zero_based=zero_based)
    expected = sp.csr_matrix(dense)
    expected.eliminate_zeros()
    assert_same(X, y2, expected, y.astype(np.float64))
    if not ext:  # an independent reader agrees
        X_ref, y_ref = load_svmlight_file(str(path), n_features=d, zero_based=zero_based)
        assert_same(X, y2, X_ref, y_ref)


def test_dump_query_id_and_labels(tmp_path):
    path = tmp_path / "q.svm"
    dump_svmlight(sp.csr_matrix([[1.0, 0.0], [0.0, 0.5]]), [1, -1], path, query_id=[3, 4])
    assert path.read_text() == "1 qid:3 1:1.0\n-1 qid:4 2:0.5\n"
    with pytest.raises(ValueError, match="labels must be numbers"):
        dump_svmlight(np.eye(2), np.array(["a", "b"]), path)
    with pytest.raises(ValueError, match="X contains NaN"):
        dump_svmlight(np.array([[np.nan]]), [1], path)
    assert path.read_text() == "1 qid:3 1:1.0\n-1 qid:4 2:0.5\n"


def test_atomic_write_leaves_the_old_file_on_failure(tmp_path):
    path = tmp_path / "keep.svm"
    path.write_bytes(b"old contents\n")
    with pytest.raises(RuntimeError, match="disk died"):
        with atomic_write(path) as f:
            f.write(b"half of the new fi")
            raise RuntimeError("disk died")
    assert path.read_bytes() == b"old contents\n"
    assert sorted(os.listdir(tmp_path)) == ["keep.svm"]


# -- indices that overflow, do not fit, or cannot be allocated ---------------------------------

@pytest.mark.parametrize("text, pattern", [
    ("1 1:1\n-1 18446744073709551621:2.0\n",  # 2**64 + 5: wrapped around to 4 before
     r"big\.svm:2:4: the index in '18446744073709551621:2\.0' does not fit in a 64-bit"),
    ("1 1:1\n-1 9223372036854775808:1\n", r"big\.svm:2:4: .*does not fit in a 64-bit"),
    ("1 1:1\n-1 9223372036854775807:1\n",  # its n_features, 2**63, would not fit
     r"big\.svm:2:4: .*does not fit in a 64-bit integer index \(the largest is 2\*\*63 - 2\)"),
    ("1 qid:1 1:1\n-1 qid:18446744073709551621 1:1\n",
     r"big\.svm:2:4: the qid in 'qid:18446744073709551621' does not fit in a 64-bit"),
])
def test_indices_and_qids_beyond_64_bits_are_errors(tmp_path, text, pattern):
    path = write(tmp_path, text, "big.svm")
    for query_id in (False, True):
        with pytest.raises(DataFormatError, match=pattern):
            load_svmlight(path, query_id=query_id)
        with pytest.raises(DataFormatError, match=pattern):
            list(iter_svmlight(path, query_id=query_id))
        with pytest.raises(DataFormatError, match=pattern):
            list(iter_svmlight(path, n_features=10, query_id=query_id, block_size=8))
    with pytest.raises(OverflowError):  # scikit-learn refuses them too
        load_svmlight_file(str(path), query_id=True)


def test_the_largest_qids_are_read_exactly(tmp_path):
    path = write(tmp_path, "1 qid:9223372036854775807 1:1\n2 qid:-9223372036854775807 1:2\n")
    _, _, qid = load_svmlight(path, query_id=True)
    assert qid.tolist() == [2**63 - 1, -(2**63 - 1)]
    np.testing.assert_array_equal(qid, load_svmlight_file(str(path), query_id=True)[2])
    # -2**63 marks "no qid" inside the reader: refused (documented in the module).
    path = write(tmp_path, "1 qid:-9223372036854775808 1:1\n", "big.svm")
    with pytest.raises(DataFormatError, match=r"big\.svm:1:3: the qid in .* does not fit"):
        load_svmlight(path, query_id=True)


def test_an_index_whose_weight_vector_cannot_be_allocated(tmp_path):
    n = 999_999_999_999_999  # 8 n bytes = 7.11 PiB
    path = write(tmp_path, f"1 1:1\n-1 2:1 {n}:2\n", "huge.svm")
    size = f"{8 * n / 2**50:.3g} PiB"
    pattern = rf"huge\.svm:2:8: the index in '{n}:2' makes {n} features.*\({size} of"
    with pytest.raises(DataFormatError, match=pattern):
        load_svmlight(path)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_svmlight(path, block_size=4))
    path = write(tmp_path, "1 0:1\n-1 9223372036854775806:1\n", "huge.svm")  # 2**63 - 1
    with pytest.raises(DataFormatError, match=r"huge\.svm:2:4: .*makes 9223372036854775807 "
                                              r"features.*\(64 EiB of float64\) cannot be"):
        load_svmlight(path)


@pytest.mark.parametrize("zero_based, n_features, line, column, token", [
    ("auto", 5, 3, 7, "7:1"),   # beyond either indexing
    (False, 5, 3, 7, "7:1"),
    (True, 5, 2, 8, "5:1"),     # 0-based: 5 is the sixth feature
    ("auto", 4, 2, 8, "5:1"),
])
def test_an_index_beyond_n_features_names_line_and_token(tmp_path, zero_based, n_features,
                                                         line, column, token):
    path = write(tmp_path, "1 1:1\n-1 2:1 5:1\n1 3:1 7:1\n", "n.svm")
    pattern = rf"n\.svm:{line}:{column}: the index in '{token}' is beyond the {n_features}"
    for read in (lambda: load_svmlight(path, n_features, zero_based=zero_based),
                 lambda: list(iter_svmlight(path, 1, n_features, zero_based=zero_based,
                                            block_size=4))):
        with pytest.raises(DataFormatError, match=pattern) as err:
            read()
        assert (err.value.line, err.value.column) == (line, column)
        assert err.value.reason == "n_features"
    with pytest.raises(ValueError):
        load_svmlight_file(str(path), n_features=n_features, zero_based=zero_based)


def test_index_equal_to_n_features_in_a_zero_based_file(tmp_path):
    # ... and "auto" finds the file 0-based only after reading its last line.
    path = write(tmp_path, "1 1:1\n-1 2:1 4:1\n1 0:1\n", "n.svm")
    with pytest.raises(DataFormatError, match=r"n\.svm:2:8: the index in '4:1' is beyond the"
                                              r" 4 features \(0-based indices go up to 3\)"):
        load_svmlight(path, 4)
    with pytest.raises(ValueError):
        load_svmlight_file(str(path), n_features=4)
    assert_same(*load_svmlight(path, 5), *load_svmlight_file(str(path), n_features=5))


# -- empty files, byte-order marks ---------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n  \n"])
def test_a_file_without_examples_is_an_error(tmp_path, text):
    path = write(tmp_path, text, "empty.svm")
    with pytest.raises(DataFormatError, match=r"empty\.svm: no examples in the file") as err:
        load_svmlight(path)
    assert err.value.reason == "no_examples"
    assert load_svmlight_file(str(path))[0].shape[0] == 0  # scikit-learn returns 0 rows


@pytest.mark.parametrize("block_size", [1, 2, 5, 1 << 20])
def test_a_byte_order_mark_is_skipped(tmp_path, block_size):
    text = "+1 1:0.5 3:2\n-1 2:1\n"
    plain = write(tmp_path, text)
    marked = tmp_path / "bom.svm"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    ref = load_svmlight_file(str(plain))
    assert_same(*load_svmlight(marked), *ref)
    assert_same(*_stack(iter_svmlight(marked, block_size=block_size)), *ref)
    assert_same(*_stack(iter_svmlight(marked, n_features=3, block_size=block_size)), *ref)
    marked.write_bytes(b"\xef\xbb\xbf+1 x:1\n")  # columns count the mark's three bytes
    with pytest.raises(DataFormatError, match=r"bom\.svm:1:7: .*got 'x:1'"):
        load_svmlight(marked)


# -- pipes and FIFOs -----------------------------------------------------------------------

def _python(code: str, *args, stdin: bytes | None = None) -> str:
    """Run ``code`` with ``args`` in a fresh interpreter and return its standard output; a
    hang fails the test (TimeoutExpired) instead of blocking it."""
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], input=stdin,
                            capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


_FIFO_WRITER = """
import os, sys, threading
import numpy as np
fifo, data = sys.argv[1], open(sys.argv[2], "rb").read()
def feed():
    with open(fifo, "wb") as f:
        f.write(data)
threading.Thread(target=feed, daemon=True).start()
"""


def test_stdin_pipe_is_read_to_its_end(tmp_path):
    text = "".join(f"{(-1) ** i} {i % 7 + 1}:{i / 3!r} 9:1\n" for i in range(300))
    path = write(tmp_path, text)
    out = _python("import sys\nfrom halfspaces.datasets import load_svmlight\n"
                  "X, y = load_svmlight('/dev/stdin')\n"
                  "sys.stdout.write(repr((X.shape, X.sum(), y.sum())))",
                  stdin=text.encode())
    X_ref, y_ref = load_svmlight_file(str(path))
    assert out == repr((X_ref.shape, X_ref.sum(), y_ref.sum()))


def test_fifo_loads_and_streams_in_one_pass(tmp_path):
    text = "".join(f"{(-1) ** i} {i % 7 + 1}:{i / 3!r}\n" for i in range(300))
    path = write(tmp_path, text)
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)
    X_ref, y_ref = load_svmlight_file(str(path))
    expected = repr((X_ref.shape, X_ref.sum(), y_ref.sum()))
    for read in ["load_svmlight(fifo)",
                 "_stack(iter_svmlight(fifo, 50, n_features=7, block_size=64))"]:
        code = _FIFO_WRITER + (
            "import scipy.sparse as sp\n"
            "from halfspaces.datasets import load_svmlight, iter_svmlight\n"
            "def _stack(chunks):\n"
            "    chunks = list(chunks)\n"
            "    return sp.vstack([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks])\n"
            f"X, y = {read}\n"
            "sys.stdout.write(repr((X.shape, X.sum(), y.sum())))")
        assert _python(code, fifo, path) == expected


def test_fifo_that_needs_a_second_pass_is_an_error(tmp_path):
    path = write(tmp_path, "1 1:1\n-1 2:1\n")
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)
    code = _FIFO_WRITER + (
        "from halfspaces.datasets import iter_svmlight\n"
        "try:\n"
        "    list(iter_svmlight(fifo))\n"
        "except ValueError as exc:\n"
        "    sys.stdout.write(str(exc))\n")
    message = _python(code, fifo, path)
    assert message.startswith(f"iter_svmlight: {fifo} is a pipe (FIFO), which can be read"
                              " only once, but 'n_features' is required"), message


# -- hard numbers, threads and blocks --------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(tokens=st.lists(decimal_numbers(), min_size=1, max_size=30), data=st.data())
def test_hard_numbers_match_sklearn_whatever_the_threads_and_blocks(tmp_path_factory, tokens,
                                                                    data):
    import halfspaces.datasets._svmlight_blocks as svm

    lines = [f"{'-1' if k % 2 else '+1'} 1:{t} 3:{t}" for k, t in enumerate(tokens)]
    labels = data.draw(st.lists(decimal_numbers(), min_size=1, max_size=3))
    lines += [f"{t} 2:1" for t in labels]
    path = write(tmp_path_factory.mktemp("n"), "\n".join(lines) + "\n")
    ref = load_svmlight_file(str(path))
    # A number beyond the largest double is refused on its line (scikit-learn keeps inf):
    # the first one in the file, whatever the blocks and threads.
    rows_data = np.repeat(np.arange(len(lines)), np.diff(ref[0].indptr))
    bad = np.concatenate([rows_data[~np.isfinite(ref[0].data)], np.flatnonzero(
        ~np.isfinite(ref[1]))])
    refused = (rf"f\.svm:{bad.min() + 1}:\d+: the (feature value in '\d:[^']*'|label '[^']*')"
               " is not finite") if bad.size else None
    old = svm._MIN_LOAD_BLOCK
    try:
        svm._MIN_LOAD_BLOCK = data.draw(st.sampled_from([16, 64, 1 << 16]))
        for n_threads in (1, 2, 3):
            if refused:
                with pytest.raises(DataFormatError, match=refused):
                    load_svmlight(path, n_threads=n_threads)
            else:
                assert_same(*load_svmlight(path, n_threads=n_threads), *ref)
    finally:
        svm._MIN_LOAD_BLOCK = old
    if refused:
        with pytest.raises(DataFormatError, match=refused):
            list(iter_svmlight(path, chunk_rows=7, block_size=37))
    else:
        assert_same(*_stack(iter_svmlight(path, chunk_rows=7, block_size=37)), *ref)


def test_the_first_error_in_the_file_whatever_the_threads(tmp_path, monkeypatch):
    import halfspaces.datasets._svmlight_blocks as svm

    good = "".join(f"{(-1) ** i} {i % 5 + 1}:0.{i}\n" for i in range(200))
    path = write(tmp_path, good + "1 1:x\n" + good + "1 abc\n" + good, "two.svm")
    monkeypatch.setattr(svm, "_MIN_LOAD_BLOCK", 64)
    for n_threads in (1, 2, 4):
        with pytest.raises(DataFormatError, match=r"two\.svm:201:3: .*got '1:x'"):
            load_svmlight(path, n_threads=n_threads)
    with pytest.raises(DataFormatError, match=r"two\.svm:201:3: .*got '1:x'"):
        list(iter_svmlight(path, block_size=50))
    with pytest.raises(ValueError, match="'n_threads' must be an int >= 1 or None"):
        load_svmlight(path, n_threads=0)


def test_numbers_left_to_python_beyond_the_first_list(tmp_path, monkeypatch):
    # Numbers of more than 19 significant digits go to strtod, or to Python's float when
    # strtod is unusable (a locale with a decimal comma): more of them than the kernel's
    # first list holds make it parse the block again with room for all.
    import halfspaces.datasets._svmlight_blocks as svm

    tokens = [f"0.{k:03d}12345678901234567890123" for k in range(40)]
    path = write(tmp_path, "".join(f"1 1:{t} 2:{t}\n" for t in tokens))
    monkeypatch.setattr(svm, "strtod_usable", lambda: False)
    monkeypatch.setattr(svm, "_SLOW_ROWS", 8)
    X, y = load_svmlight(path)
    assert_same(X, y, *load_svmlight_file(str(path)))
    np.testing.assert_array_equal(X.data, [float(t) for t in tokens for _ in (1, 2)])


@pytest.mark.parametrize("strtod", [True, False])
def test_an_infinite_number_left_to_python_is_refused_before_a_later_error(tmp_path,
                                                                          monkeypatch, strtod):
    # More than 19 significant digits: strtod finishes the number, or Python's float when
    # strtod is unusable; an infinite result is refused on its line, before the syntax error
    # that ends the kernel's pass, also beyond the kernel's first list of such numbers.
    import halfspaces.datasets._svmlight_blocks as svm

    monkeypatch.setattr(svm, "strtod_usable", lambda: strtod)
    monkeypatch.setattr(svm, "_SLOW_ROWS", 2)
    finite, big = "0." + "1" * 25, "1" * 25 + "e400"
    head = "".join(f"1 1:{finite} 2:{finite}\n" for _ in range(3))
    path = write(tmp_path, head + f"-1 2:1 3:{big}\n1 1:x\n")
    with pytest.raises(DataFormatError, match=rf"f\.svm:4:8: the feature value in '3:{big}'"
                       " is not finite"):
        load_svmlight(path)
    path = write(tmp_path, head + f"-{big} 2:1\n1 1:x\n")
    with pytest.raises(DataFormatError, match=rf"f\.svm:4:1: the label '-{big}' is not"
                       " finite"):
        load_svmlight(path)
