"""Properties of every reader, on generated input (issue 14, fuzzing):

- writing then reading is the identity (svmlight through the cache and the block stream,
  VW, CSV, label<TAB>text, model files);
- arbitrary bytes either parse or raise the reader's own error, never another exception;
- the compiled svmlight scanner and the same source interpreted (``NUMBA_DISABLE_JIT=1``,
  in a second interpreter) give the same matrix or the same error on every input.

Quick by default; ``pytest --hypothesis-profile=long`` (tests/conftest.py) runs many more
examples.
The coverage-guided fuzzers of the same readers are in ``fuzz/`` (``make fuzz``).
"""

from __future__ import annotations

import csv
import os
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import config as numba_config
from parser_worker import outcome
from sklearn.base import clone
from strategies import labelled_data

import halfspaces
from halfspaces import (
    AveragedPerceptron,
    LogisticRegression,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
)
from halfspaces.datasets import (
    DataFormatError,
    dump_svmlight,
    iter_blocks,
    iter_svmlight,
    iter_vw,
    load_csv,
    load_svmlight,
    load_text_tsv,
    load_vw,
    open_cached,
)
from halfspaces.datasets import load as load_any
from halfspaces.persistence import ModelFormatError

PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# -- inputs -----------------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
values = finite | st.sampled_from([0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1e23])


@st.composite
def matrices(draw, *, max_rows: int = 6, max_cols: int = 6):
    """A dense float64 matrix with many exact zeros, and finite labels."""
    n, d = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    cells = draw(st.lists(values | st.just(0.0), min_size=n * d, max_size=n * d))
    y = draw(st.lists(st.sampled_from([-1.0, 1.0, 0.0, 2.5]) | finite, min_size=n, max_size=n))
    return np.array(cells, dtype=np.float64).reshape(n, d), np.array(y, dtype=np.float64)


# Text near the svmlight / VW grammar (so that mutations reach deep), and arbitrary bytes.
_NEAR = " \t\n\r:#+-.0123456789eEinfNaqd|'xy\x00\xff"
svmlight_like = st.lists(
    st.sampled_from(["1", "-1", "+1", "0.5", "2:3", "1:1e5", "10:-0", " ", "\t", "\n", "#",
                     "qid:3", "qid:", "0:1", "1:nan", "9223372036854775807:1", "inf",
                     "1:1.5e-320", "4:", ":2", "\r\n", "\xef\xbb\xbf"])
    | st.text(alphabet=_NEAR, max_size=6), max_size=40).map(lambda t: "".join(t).encode("latin-1"))
vw_like = st.lists(
    st.sampled_from(["1", "-1", " ", "|", "|a", "|b:2", " x", " y:3", " 4:1", "'tag", "\n",
                     " 0.5", ":", "::", "|:", "nan", "inf"])
    | st.text(alphabet=_NEAR, max_size=6), max_size=30).map(lambda t: "".join(t).encode("utf-8"))
any_bytes = st.binary(max_size=300)


def write(tmp_path_factory, name: str, data: bytes) -> Path:
    path = tmp_path_factory.mktemp("in") / name
    path.write_bytes(data)
    return path


def stacked(chunks):
    X = sp.vstack([c[0] for c in chunks], format="csr")
    return (X, *(np.concatenate([c[i] for c in chunks]) for i in range(1, len(chunks[0]))))


# -- write, then read: the identity -----------------------------------------------------------

@PROPERTY
@given(data=matrices(), zero_based=st.booleans(), block_bytes=st.sampled_from([1, 40, 1 << 20]))
def test_svmlight_through_the_cache_and_the_block_stream(tmp_path_factory, data, zero_based,
                                                          block_bytes):
    dense, y = data
    path = tmp_path_factory.mktemp("svm") / "data.svm"
    dump_svmlight(dense, y, path, zero_based=zero_based)
    expected = sp.csr_matrix(dense)
    expected.eliminate_zeros()
    n = dense.shape[1]
    blocks = list(iter_blocks(path, n_features=n, zero_based=zero_based,
                              block_bytes=block_bytes))
    assert_same(*stacked(blocks), expected, y)
    cached = open_cached(path, tmp_path_factory.mktemp("cache") / "c", n_features=n,
                         zero_based=zero_based, block_bytes=block_bytes)
    assert_same(*cached.load(), expected, y)


def _vw_text(dense, y, weights) -> str:
    """Rows of ``dense`` as VW lines with integer (0-based) feature names, written here."""
    lines = []
    for row, label, w in zip(dense.tolist(), y.tolist(), weights.tolist(), strict=True):
        feats = " ".join(f"{j}:{v!r}" for j, v in enumerate(row) if v != 0.0)
        lines.append(f"{label!r} {w!r} |f {feats}")
    return "\n".join(lines) + "\n"


@PROPERTY
@given(data=matrices(), weights=st.lists(st.floats(0.01, 100.0), min_size=6, max_size=6),
       chunk_rows=st.integers(1, 4))
def test_vw_with_integer_names(tmp_path_factory, data, weights, chunk_rows):
    dense, y = data
    w = np.array(weights[: len(y)])
    path = write(tmp_path_factory, "data.vw", _vw_text(dense, y, w).encode())
    options = {"n_features": dense.shape[1], "hash_features": False, "zero_based": True,
               "return_weights": True}
    X, y2, w2 = load_vw(path, **options)
    expected = sp.csr_matrix(dense)
    expected.eliminate_zeros()
    assert_same(X, y2, expected, y)
    assert np.array_equal(w2, w)
    assert_same(*stacked(list(iter_vw(path, chunk_rows=chunk_rows, **options)))[:2], X, y2)


@PROPERTY
@given(data=matrices(), label_column=st.integers(0, 6), delimiter=st.sampled_from([",", "\t",
                                                                                    ";"]))
def test_csv(tmp_path_factory, data, label_column, delimiter):
    dense, y = data
    label_column = min(label_column, dense.shape[1])
    rows = np.insert(dense, label_column, y, axis=1)
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f, delimiter=delimiter).writerows([[repr(v) for v in r] for r in rows.tolist()])
    X, y2 = load_csv(path, label_column=label_column, delimiter=delimiter)
    assert X.tobytes() == dense.tobytes() and y2.tobytes() == y.tobytes()


# A label: no tab, no line break, not blank; a text: anything on one line.
_ONE_LINE = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\t\x00")
texts = st.lists(st.tuples(st.text(_ONE_LINE, min_size=1).filter(str.strip),
                           st.text(st.characters(blacklist_categories=("Cs",),
                                                 blacklist_characters="\n\r"))),
                 min_size=1, max_size=8)


@PROPERTY
@given(examples=texts)
def test_label_tab_text(tmp_path_factory, examples):
    body = "".join(f"{label}\t{text}\n" for label, text in examples)
    path = write(tmp_path_factory, "d.tsv", body.encode())
    got_texts, got_labels = load_text_tsv(path, header=False)
    assert got_texts == [t for _, t in examples]
    assert got_labels.tolist() == [label for label, _ in examples]
    # detected: a first line is dropped only when it reads as column names
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got_texts, got_labels = load_text_tsv(path)
    if len(got_texts) < len(examples):
        (label, text), rest = examples[0], examples[1:]
        assert got_texts == [t for _, t in rest]
        assert label not in [other for other, _ in rest] and len(rest) >= 3
        assert re.fullmatch(r"[A-Za-z_][\w.-]*", label) and re.fullmatch(r"[A-Za-z_][\w.-]*",
                                                                          text)
    else:
        assert got_texts == [t for _, t in examples]


_MODELS = [Perceptron(max_iter=5), AveragedPerceptron(max_iter=5), VotedPerceptron(max_iter=5),
           PegasosSVC(lam=0.1, max_iter=5),
           LogisticRegression()]


@PROPERTY
@given(data=labelled_data(max_samples=20, max_features=4), k=st.integers(0, len(_MODELS) - 1))
def test_model_files(tmp_path_factory, data, k):
    X, y = data
    with warnings.catch_warnings():  # noisy data: convergence and majority-class notes
        warnings.simplefilter("ignore")
        model = clone(_MODELS[k]).fit(X, y)
    path = tmp_path_factory.mktemp("m") / "model.npz"
    model.save(path)
    loaded = halfspaces.load(path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    fitted = {k: v for k, v in vars(model).items() if k.endswith("_")}
    assert fitted.keys() <= vars(loaded).keys()
    for key, value in fitted.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(getattr(loaded, key), value), key
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))


# -- any bytes: a result or our error -----------------------------------------------------------

def _parses_or_refuses(read, error=DataFormatError):
    """``read()`` returns, or raises ``error``: any other exception fails the test."""
    try:
        return read()
    except error:
        return None


def _stream_is_load(path, load, stream):
    """``stream()`` (chunks) stacks to ``load()``, or both refuse the file; a file with no
    example streams as no chunk (the loader refuses it)."""
    try:
        whole = load()
    except DataFormatError as exc:
        chunks = _parses_or_refuses(stream)
        assert chunks is None or (chunks == [] and "no examples" in str(exc)), chunks
        return
    assert whole[0].shape[0] == whole[1].size > 0
    assert_same(*stacked(stream()), *whole)


@PROPERTY
@given(data=svmlight_like | any_bytes, zero_based=st.sampled_from(["auto", True, False]),
       n_features=st.sampled_from([None, 3, 100]))
def test_svmlight_readers_on_any_bytes(tmp_path_factory, data, zero_based, n_features):
    path = write(tmp_path_factory, "x.svm", data)
    options = {"zero_based": zero_based, "n_features": n_features}
    _stream_is_load(path, lambda: load_svmlight(path, **options),
                    lambda: list(iter_svmlight(path, chunk_rows=2, **options)))
    _parses_or_refuses(lambda: list(iter_blocks(path, "svmlight", block_bytes=64, **options)))
    _parses_or_refuses(lambda: open_cached(path, tmp_path_factory.mktemp("c") / "c",
                                           **options).load())
    _parses_or_refuses(lambda: load_any(path))


@PROPERTY
@given(data=vw_like | any_bytes, hash_features=st.booleans())
def test_vw_reader_on_any_bytes(tmp_path_factory, data, hash_features):
    path = write(tmp_path_factory, "x.vw", data)
    options = {"hash_features": hash_features, "n_features": 32 if hash_features else None}
    _stream_is_load(path, lambda: load_vw(path, **options),
                    lambda: list(iter_vw(path, chunk_rows=2, **options)))
    _parses_or_refuses(lambda: open_cached(path, tmp_path_factory.mktemp("c") / "c",
                                           format="vw", **options).load())


@PROPERTY
@given(data=st.lists(st.sampled_from(["1", "2.5", "a", ",", ";", "\n", "\r\n", "nan", "inf",
                                      '"', " ", "\t", "\xff", "\x00", "-", "e5"]),
                     max_size=40).map(lambda t: "".join(t).encode("latin-1")) | any_bytes,
       label_column=st.sampled_from([0, -1, 2, "a"]))
def test_csv_and_text_readers_on_any_bytes(tmp_path_factory, data, label_column):
    csv_path = write(tmp_path_factory, "x.csv", data)
    got = _parses_or_refuses(lambda: load_csv(csv_path, label_column=label_column))
    if got is not None:
        assert got[0].shape[0] == got[1].shape[0] > 0
    _parses_or_refuses(lambda: load_text_tsv(write(tmp_path_factory, "x.tsv", data)))


def _model_bytes(tmp_path_factory) -> bytes:
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    path = tmp_path_factory.mktemp("m") / "seed.npz"
    VotedPerceptron().fit(X, [0, 1, 0]).save(path)
    return path.read_bytes()


@PROPERTY
@given(data=st.data())
def test_model_reader_on_any_bytes(tmp_path_factory, data):
    seed = _model_bytes(tmp_path_factory)
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(seed) - 1), st.binary(max_size=4),
                                         st.integers(0, 4)), max_size=4))
    content = data.draw(any_bytes) if data.draw(st.booleans()) else seed
    for at, new, cut in edits:  # replace bytes of a real model file
        content = content[:at] + new + content[at + cut:]
    path = write(tmp_path_factory, "model.npz", content)
    _parses_or_refuses(lambda: halfspaces.load(path), ModelFormatError)


# -- the compiled scanner and the interpreted one agree -----------------------------------------

@pytest.fixture(scope="module")
def other_interpreter():
    """A worker running the svmlight reader with the JIT switched the other way."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="0" if numba_config.DISABLE_JIT else "1")
    worker = subprocess.Popen([sys.executable, str(Path(__file__).parents[1] /
                                                   "parser_worker.py")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def ask(path, options):
        pickle.dump((str(path), options), worker.stdin)
        worker.stdin.flush()
        return pickle.load(worker.stdout)

    yield ask
    worker.stdin.close()
    worker.wait(timeout=60)


@PROPERTY
@given(data=svmlight_like | any_bytes, zero_based=st.sampled_from(["auto", True, False]),
       n_features=st.sampled_from([None, 2, 50]), query_id=st.booleans())
def test_compiled_and_interpreted_svmlight_agree(tmp_path_factory, other_interpreter, data,
                                                 zero_based, n_features, query_id):
    path = write(tmp_path_factory, "x.svm", data)
    options = {"zero_based": zero_based, "n_features": n_features, "query_id": query_id}
    here = outcome(str(path), options)
    assert here[0] in ("ok", "DataFormatError"), here
    assert here == other_interpreter(path, options)
