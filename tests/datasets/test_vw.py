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
from helpers import load_error
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils import murmurhash3_32
from strategies import decimal_numbers

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


def test_a_tag_touching_the_bar_as_vw_reads_it(tmp_path):
    """VW: "a tag ... touch[es] the | (no trailing spaces) or [is marked] with a leading
    single-quote"; the importance weight goes before it."""
    n = 32
    path = tmp_path / "t.vw"
    path.write_text("1 1.0 zebra|f a\n-1 2.5 'yak |f b\n1 okapi|f a\n-1 3|f b\n")
    X, y, w = load_vw(path, n_features=n, return_weights=True)
    np.testing.assert_array_equal(y, [1.0, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(w, [1.0, 2.5, 1.0, 1.0])  # '3' touching the bar: a tag
    expected = np.zeros((4, n))
    for row, key in enumerate(["f^a", "f^b", "f^a", "f^b"]):
        expected[row, _h(key, n)] = 1.0
    np.testing.assert_array_equal(X.toarray(), expected)


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
    assert load_error(load_vw, tmp_path / "bad.vw", text.encode(), pattern).line == line


def test_integer_names_required_without_hashing(tmp_path):
    path = tmp_path / "n.vw"
    path.write_text("1 |f 3:1 word:2\n")
    with pytest.raises(DataFormatError, match=r"n\.vw:1:10: feature name 'word' is not a"
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

def _load_and_stream_raise(path, pattern):
    """Read without hashing and with the columns to find, ``load_vw`` and ``iter_vw`` both
    refuse ``path`` with the error ``pattern``."""
    with pytest.raises(DataFormatError, match=pattern):
        load_vw(path, hash_features=False, n_features=None)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, hash_features=False, n_features=None))


def test_an_index_beyond_64_bits_names_the_line(tmp_path):
    path = tmp_path / "big.vw"
    path.write_text(f"1 |f 1:1\n-1 |f {10**23}:1\n")
    pattern = rf"big\.vw:2:7: feature index '{10**23}' does not fit in a 64-bit integer"
    _load_and_stream_raise(path, pattern)
    with pytest.raises(DataFormatError, match=pattern):
        list(iter_vw(path, hash_features=False, n_features=10, zero_based=True))


def test_an_index_whose_weight_vector_cannot_be_allocated(tmp_path):
    n = 999_999_999_999_999
    path = tmp_path / "huge.vw"
    path.write_text(f"1 |f 1:1\n-1 |f 2:1 {n}:2\n")
    pattern = rf"huge\.vw:2: feature index {n} makes {n} features.*\({8 * n / 2**50:.3g} PiB"
    _load_and_stream_raise(path, pattern)


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


# -- the compiled reader against a reference written from the format -------------------------

def _reference_vw(text: str, n: int, hash_features: bool, seed: int = 0):
    """A plain Python reading of VW text (split, float, scikit-learn's MurmurHash3), as the
    reader was before it was compiled: rows (label, importance, [(column, value)]) or
    ("error", line, problem)."""
    def num(t: str) -> float:
        if "_" in t or not np.isfinite(float(t)):  # NaN and infinities are refused
            raise ValueError(t)
        return float(t)

    rows = []
    for lineno, line in enumerate(text.split("\n")[:-1], start=1):
        if not line.strip():
            continue
        head, bar, rest = line.partition("|")
        words = [t for t in head.split() if t[0] != "'"]
        if len(words) > 1 and head == head.rstrip() and head.split()[-1][0] != "'":
            words.pop()  # after the label, a tag touching the '|' (VW's unquoted tag)
        if not bar or not 1 <= len(words) <= 3:
            return "error", lineno, "head"
        try:
            numbers = [num(t) for t in words]
            if len(numbers) > 1 and numbers[1] < 0:  # a negative importance weight
                return "error", lineno, "importance"
            entries = []
            for segment in rest.split("|"):
                tokens, scale, ns = segment.split(), 1.0, ""
                if segment[:1].strip() and tokens:
                    ns, _, w = tokens.pop(0).partition(":")
                    scale = num(w) if w else 1.0
                for tok in tokens:
                    name, colon, value = tok.partition(":")
                    v = num(value) if colon else 1.0
                    if not name or not hash_features and not (name.isascii()
                                                              and name.isdigit()):
                        raise ValueError
                    col = (murmurhash3_32(ns + "^" + name, seed=seed, positive=True) % n
                           if hash_features else int(name))
                    if col >= 2**63:
                        raise ValueError
                    if not np.isfinite(v * scale):  # overflows when scaled
                        raise ValueError
                    entries.append((col, v * scale))
        except ValueError:
            return "error", lineno, "token"
        rows.append((numbers[0], numbers[1] if len(words) > 1 else 1.0, entries))
    return rows


def _reference_matrix(rows, n_cols):
    """CSR of the rows in file order with repeated columns summed (as FeatureHasher)."""
    indptr = np.cumsum([0] + [len(r[2]) for r in rows])
    cols = [c for r in rows for c, _ in r[2]]
    vals = [v for r in rows for _, v in r[2]]
    X = sp.csr_matrix((np.array(vals, dtype=np.float64), np.array(cols, dtype=np.int64),
                       indptr), shape=(len(rows), n_cols))
    X.sum_duplicates()
    return X


_names = st.text(st.sampled_from("ab9_0Zé漢+-.'"), min_size=1, max_size=4)
_blank = st.sampled_from([" ", "  ", "\t", " \r", "\xa0", " \x1f", "\u3000"])


@st.composite
def _vw_lines(draw):
    """A VW line: mostly well formed, with tags, namespaces, weights, Unicode names and
    blanks, hard numbers; sometimes a malformed piece."""
    number = st.one_of(decimal_numbers(), st.sampled_from(["1", "-1", "0", "2.5", "1e3",
                                                           "inf", "x", "nan", "1_0", "", "+"]))
    head = [draw(number)]
    head += draw(st.lists(number, max_size=2 if draw(st.integers(0, 9)) else 3))
    if draw(st.booleans()):
        head.insert(draw(st.integers(0, len(head))), "'" + draw(_names))
    line = draw(_blank).join(head)
    for k in range(draw(st.integers(0 if draw(st.integers(0, 19)) else -1, 3))):
        if k == 0 and not draw(st.integers(0, 3)):
            line += "|"  # a last head token touching the '|': a tag after the label
            continue
        ns = "" if draw(st.booleans()) else draw(_names)
        if ns and draw(st.booleans()):
            ns += ":" + draw(number)
        feats = [draw(st.one_of(_names, st.integers(0, 2**64).map(str)))
                 + (":" + draw(number) if draw(st.booleans()) else "")
                 for _ in range(draw(st.integers(0, 4)))]
        line += draw(_blank) + "|" + ns + "".join(draw(_blank) + f for f in feats)
    return line


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(_vw_lines(), min_size=1, max_size=12), hash_features=st.booleans(),
       seed=st.integers(0, 2**32 - 1), blank=st.booleans())
def test_compiled_reader_matches_the_reference(tmp_path_factory, lines, hash_features, seed,
                                               blank):
    """Values (bit for bit), hashed columns, labels, weights, and the line of the first
    error, whatever the threads and the blocks."""
    from halfspaces.datasets._io import weights_size_if_too_large
    from halfspaces.datasets._vw_blocks import parse_block
    from halfspaces.datasets.vw import _blocks

    if blank:
        lines.insert(len(lines) // 2, " \xa0 ")
    text = "\n".join(lines) + "\n"
    path = tmp_path_factory.mktemp("vw") / "h.vw"
    path.write_text(text, encoding="utf-8")
    n = 97
    ref = _reference_vw(text, n, hash_features, seed)
    kwargs = {"n_features": n if hash_features else None, "hash_features": hash_features,
              "seed": seed, "zero_based": True, "return_weights": True}
    if ref and ref[0] == "error":
        for block_bytes, n_threads in ((1 << 20, 1), (16, 3)):
            with pytest.raises(DataFormatError) as err:
                for block, first in _blocks(path, n, hash_features, seed, n_threads,
                                            block_bytes):
                    if block.error is not None:
                        raise block.error.at_line(first - 1 + block.error.line)
            assert err.value.line == ref[1], str(err.value)
        return
    assert parse_block  # the worker's entry point, run by the loads below
    if not ref:
        with pytest.raises(DataFormatError, match="no examples"):
            load_vw(path, **kwargs)
        return
    n_cols = n if hash_features else max([c for r in ref for c, _ in r[2]], default=0) + 1
    if n_cols > 2**40 or weights_size_if_too_large(n_cols) is not None:
        return  # no weight vector that long here (the reader says so, tested above)
    X_ref = _reference_matrix(ref, n_cols)
    X, y, w = load_vw(path, **kwargs)
    assert_same(X, X_ref)
    assert y.tobytes() == np.array([r[0] for r in ref]).tobytes()
    assert w.tobytes() == np.array([r[1] for r in ref]).tobytes()
    for X_b, y_b, w_b in [next(iter_vw(path, chunk_rows=len(ref), **kwargs))]:
        assert_same(X_b, X_ref)
        assert y_b.tobytes() == y.tobytes() and w_b.tobytes() == w.tobytes()
