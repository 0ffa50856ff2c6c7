"""Vowpal Wabbit text reader: against the svmlight conversion and a hashing reference."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from halfspaces.datasets import DataFormatError, iter_vw, load_svmlight, load_vw

SHARED = Path(os.environ.get("HALFSPACES_DATA", "/work/shared/data")) / "rcv1_small_vw"
BUNDLED = Path(__file__).resolve().parents[2] / "src" / "halfspaces" / "datasets" / "data"


def _pairs():
    """(vw file, svmlight conversion) pairs present on this machine."""
    out = []
    for root in (SHARED, BUNDLED, BUNDLED / "rcv1_small_vw"):
        for vw, svm in (("rcv1_small.dat", "rcv1_small.svm"),
                        ("rcv1_small_test.data", "rcv1_small_test.svm")):
            if (root / vw).exists() and (root / svm).exists():
                out.append((root / vw, root / svm))
    return out


def assert_same(A, B):
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    assert A.shape == B.shape
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    assert A.data.tobytes() == B.data.tobytes()


def test_rcv1_vw_equals_its_svmlight_conversion():
    for vw, svm in _pairs():
        X, y = load_vw(vw, n_features=None, hash_features=False)
        X_ref, y_ref = load_svmlight(svm)
        assert_same(X, X_ref)
        assert y.tobytes() == y_ref.tobytes()


def test_generated_vw_equals_svmlight(tmp_path):
    """A random file written in both formats by this test (the independent writer)."""
    rng = np.random.default_rng(0)
    vw_lines, svm_lines = [], []
    for _ in range(50):
        idx = np.sort(rng.choice(np.arange(1, 200), size=rng.integers(0, 8), replace=False))
        vals = [repr(float(v)) for v in rng.standard_normal(idx.size)]
        label = rng.choice(["1", "-1"])
        feats = [f"{i}:{v}" for i, v in zip(idx, vals, strict=True)]
        vw_lines.append(f"{label} |f " + " ".join(feats))
        svm_lines.append(f"{label} " + " ".join(feats))
    (tmp_path / "a.vw").write_text("\n".join(vw_lines) + "\n")
    (tmp_path / "a.svm").write_text("\n".join(svm_lines) + "\n")
    X, y = load_vw(tmp_path / "a.vw", n_features=None, hash_features=False)
    X_ref, y_ref = load_svmlight(tmp_path / "a.svm")
    assert_same(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)
    chunks = list(iter_vw(tmp_path / "a.vw", chunk_rows=7, n_features=None,
                          hash_features=False))
    assert_same(sp.vstack([c[0] for c in chunks]), X_ref)


def _h(key, n, seed=0):
    return murmurhash3_32(key, seed=seed, positive=True) % n


def test_hashing_namespaces_weights_tags(tmp_path):
    text = ("1 2.5 'doc1 |words the:2 cat |meta:0.5 n:3 flag\n"
            "\n"
            "0 'doc2 | dog:1e-1 the\n"
            "-1 |words the the\n")
    path = tmp_path / "x.vw.gz"
    with gzip.open(path, "wt") as f:
        f.write(text)
    n = 64
    X, y, w = load_vw(path, n_features=n, seed=3, return_weights=True)
    expected = np.zeros((3, n))
    for row, entries in enumerate([
        [("words^the", 2.0), ("words^cat", 1.0), ("meta^n", 1.5), ("meta^flag", 0.5)],
        [("^dog", 0.1), ("^the", 1.0)],
        [("words^the", 1.0), ("words^the", 1.0)],
    ]):
        for key, value in entries:
            expected[row, _h(key, n, 3)] += value
    np.testing.assert_array_equal(X.toarray(), expected)
    np.testing.assert_array_equal(y, [1.0, 0.0, -1.0])
    np.testing.assert_array_equal(w, [2.5, 1.0, 1.0])
    assert X.has_canonical_format
    chunks = list(iter_vw(path, chunk_rows=2, n_features=n, seed=3, return_weights=True))
    assert [c[0].shape[0] for c in chunks] == [2, 1]
    np.testing.assert_array_equal(sp.vstack([c[0] for c in chunks]).toarray(), expected)
    np.testing.assert_array_equal(np.concatenate([c[2] for c in chunks]), w)


@pytest.mark.parametrize("text, line, pattern", [
    ("1 |f a\n-1 f b\n", 2, r"bad\.vw:2: expected '\|namespace features' after the label"),
    ("|f a\n", 1, r"bad\.vw:1: missing label before '\|'"),
    ("x |f a\n", 1, r"expected a label \(a number\), got 'x'"),
    ("1 |f a:b\n", 1, r"expected a value in 'a:b' \(a number\), got 'b'"),
    ("1 |f a:nan\n", 1, r"got 'nan'"),
    ("1 1 1 1 |f a\n", 1, r"expected 'label \[importance \[base\]\] \['tag\]'"),
    ("1 |f :3\n", 1, r"expected 'name\[:value\]', got ':3'"),
])
def test_malformed_lines(tmp_path, text, line, pattern):
    path = tmp_path / "bad.vw"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=pattern) as err:
        load_vw(path)
    assert err.value.line == line


def test_integer_names_required_without_hashing(tmp_path):
    path = tmp_path / "n.vw"
    path.write_text("1 |f 3:1 word:2\n")
    with pytest.raises(DataFormatError, match=r"n\.vw:1: feature name 'word' is not a"
                                              " non-negative integer"):
        load_vw(path, hash_features=False)
    path.write_text("1 |f 0:1 3:2\n")
    with pytest.raises(DataFormatError, match=r"n\.vw:1: feature index 0 in a file read with"
                                              " 1-based indices; pass zero_based=True"):
        load_vw(path, hash_features=False, zero_based=False)
    X, _ = load_vw(path, hash_features=False, n_features=None)
    np.testing.assert_array_equal(X.toarray(), [[1.0, 0, 0, 2.0]])
    with pytest.raises(ValueError, match="'n_features' must be an int >= 1 when hashing"):
        load_vw(path, n_features=None)


# -- indices that overflow or do not fit, empty files, byte-order marks, pipes ---------------

def test_an_index_beyond_64_bits_names_the_line(tmp_path):
    path = tmp_path / "big.vw"
    path.write_text(f"1 |f 1:1\n-1 |f {10**23}:1\n")
    pattern = rf"big\.vw:2: feature index '{10**23}' does not fit in a 64-bit integer"
    with pytest.raises(DataFormatError, match=pattern):
        load_vw(path, hash_features=False, n_features=None)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, hash_features=False, n_features=None))
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, hash_features=False, n_features=10, zero_based=True))


def test_an_index_whose_weight_vector_cannot_be_allocated(tmp_path):
    n = 999_999_999_999_999
    path = tmp_path / "huge.vw"
    path.write_text(f"1 |f 1:1\n-1 |f 2:1 {n}:2\n")
    pattern = rf"huge\.vw:2: feature index {n} makes {n} features.*\({8 * n / 2**50:.3g} PiB"
    with pytest.raises(DataFormatError, match=pattern):
        load_vw(path, hash_features=False, n_features=None)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, hash_features=False, n_features=None))


def test_an_index_beyond_n_features_names_the_line(tmp_path):
    path = tmp_path / "n.vw"
    path.write_text("1 |f 1:1\n-1 |f 2:1 7:1\n1 |f 3:1\n")
    pattern = r"n\.vw:2: feature index 7 is beyond the 5 features \(1-based indices go up to 5\)"
    with pytest.raises(DataFormatError, match=pattern) as err:
        load_vw(path, hash_features=False, n_features=5)
    assert err.value.reason == "n_features"
    for zero_based in ("auto", False):
        with pytest.raises(DataFormatError, match=pattern):
            list(iter_vw(path, hash_features=False, n_features=5, zero_based=zero_based))


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_a_file_without_examples_is_an_error(tmp_path, text):
    path = tmp_path / "empty.vw"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=r"empty\.vw: no examples in the file"):
        load_vw(path)


def test_a_byte_order_mark_is_skipped(tmp_path):
    text = "1 2.0 |f 1:0.5 3:2\n-1 |f 2:1\n"
    plain, marked = tmp_path / "plain.vw", tmp_path / "bom.vw"
    plain.write_text(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    for kwargs in ({"n_features": 64}, {"hash_features": False, "n_features": None}):
        X, y, w = load_vw(marked, return_weights=True, **kwargs)
        X_ref, y_ref, w_ref = load_vw(plain, return_weights=True, **kwargs)
        assert (X != X_ref).nnz == 0
        assert y.tolist() == y_ref.tolist() == [1.0, -1.0] and w.tolist() == w_ref.tolist()


def test_streams_are_read_once(tmp_path):
    text = "".join(f"{(-1) ** i} |f {i % 5 + 1}:{i}\n" for i in range(40))
    path = tmp_path / "a.vw"
    path.write_text(text)
    code = ("import sys\nfrom halfspaces.datasets import load_vw\n"
            "X, y = load_vw('/dev/stdin', hash_features=False, n_features=None)\n"
            "sys.stdout.write(repr((X.shape, X.sum(), y.sum())))")
    out = subprocess.run([sys.executable, "-c", code], input=text.encode(),
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()
    X, y = load_vw(path, hash_features=False, n_features=None)
    assert out.stdout.decode() == repr((X.shape, X.sum(), y.sum()))
    with open(path, "rb") as f:  # the second pass would read nothing
        with pytest.raises(ValueError, match=r"iter_vw: .* can be read only once, but with"
                                             r" hash_features=False a first pass"):
            iter_vw(f, hash_features=False, n_features=None)
    fifo = tmp_path / "pipe.vw"
    os.mkfifo(fifo)
    code = ("import sys, threading\nfrom halfspaces.datasets import iter_vw\n"
            "fifo, data = sys.argv[1], open(sys.argv[2], 'rb').read()\n"
            "def feed():\n"
            "    with open(fifo, 'wb') as f:\n"
            "        f.write(data)\n"
            "threading.Thread(target=feed, daemon=True).start()\n"
            "try:\n"
            "    list(iter_vw(fifo, hash_features=False, n_features=10))\n"  # "auto": 2 passes
            "except ValueError as exc:\n"
            "    sys.stdout.write(str(exc))\n")
    out = subprocess.run([sys.executable, "-c", code, str(fifo), str(path)],
                         capture_output=True, timeout=120)  # a hang fails instead of blocking
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().startswith(f"iter_vw: {fifo} is a pipe (FIFO), which can be"
                                          " read only once")
