"""iter_blocks: CSR blocks in file order, parsed ahead in threads, in bounded memory."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import assert_same
from sklearn.datasets import load_svmlight_file

from halfspaces.datasets import (
    DataFormatError,
    dump_svmlight,
    iter_blocks,
    load_svmlight,
    load_vw,
)
from halfspaces.datasets._io import map_in_order
from halfspaces.datasets.stream import format_of


def stack(blocks):
    blocks = list(blocks)
    return (sp.vstack([b[0] for b in blocks], format="csr"),
            np.concatenate([b[1] for b in blocks]))


def random_file(tmp_path, name="d.svm", n=200, d=40, zero_based=False, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    X.data = rng.standard_normal(X.nnz)
    y = rng.choice([-1, 1], n)
    path = tmp_path / name
    dump_svmlight(X, y, path, zero_based=zero_based)
    return path


@pytest.mark.parametrize("ext", ["", ".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("block_bytes", [7, 300, 1 << 20])
def test_blocks_stack_to_the_full_load(tmp_path, ext, block_bytes):
    path = random_file(tmp_path, "d.svm" + ext)
    full = load_svmlight(path)
    blocks = list(iter_blocks(path, block_bytes=block_bytes))
    assert_same(*stack(blocks), *full)
    if block_bytes == 300 and not ext:  # each block holds the lines of about 300 bytes
        assert len(blocks) >= os.path.getsize(path) // 600
    assert_same(*stack(iter_blocks(path, block_bytes=block_bytes, n_features=40,
                                   zero_based=False)), *load_svmlight(path, 40))


def test_blocks_do_not_depend_on_the_threads(tmp_path):
    path = random_file(tmp_path, n=300)
    runs = [list(iter_blocks(path, block_bytes=500, n_threads=k)) for k in (1, 2, 5)]
    for run in runs[1:]:
        assert len(run) == len(runs[0])
        for (X, y), (X0, y0) in zip(run, runs[0], strict=True):
            assert_same(X, y, X0, y0)


def test_compressed_formats_and_dtype(tmp_path):
    text = b"+1 1:0.25 4:1e-3\n-1\n-1 2:7\n"
    for ext, opener in (("", open), (".gz", gzip.open), (".bz2", bz2.open),
                        (".xz", lzma.open)):
        path = tmp_path / ("f.svm" + ext)
        with opener(path, "wb") as f:
            f.write(text)
        ref = load_svmlight_file(str(tmp_path / "f.svm"), dtype=np.float32)
        assert_same(*stack(iter_blocks(path, dtype=np.float32)), *ref)


def test_vw_blocks_stack_to_load_vw(tmp_path):
    path = tmp_path / "a.vw"
    lines = [f"{(-1) ** i} {1 + i % 3} |f a:{i} b c:0.5 |g x:{i / 7!r}" for i in range(120)]
    path.write_text("\n".join(lines) + "\n")
    for kwargs in ({}, {"n_features": 64}, {"return_weights": True}):
        ref = load_vw(path, **{"n_features": 2**18, **kwargs})
        blocks = list(iter_blocks(path, block_bytes=200, **kwargs))
        assert len(blocks) > 5
        assert_same(*stack(blocks), *ref[:2])
        if kwargs.get("return_weights"):
            np.testing.assert_array_equal(np.concatenate([b[2] for b in blocks]), ref[2])
    numbered = tmp_path / "n.vw"
    numbered.write_text("1 |f 1:2 5:1\n-1 |f 3:0.5\n")
    assert_same(*stack(iter_blocks(numbered, hash_features=False)),
                *load_vw(numbered, n_features=None, hash_features=False))


def test_errors_name_the_line_in_the_file(tmp_path):
    good = "".join(f"1 {i % 5 + 1}:1\n" for i in range(100))
    path = tmp_path / "bad.svm"
    path.write_text(good + "1 2:x\n" + good + "1 abc\n")
    with pytest.raises(DataFormatError, match=r"bad\.svm:101:3: .*got '2:x'"):
        list(iter_blocks(path, block_bytes=64, n_threads=3))
    vw = tmp_path / "bad.vw"
    vw.write_text("1 |f a\n" * 100 + "x |f a\n")
    with pytest.raises(DataFormatError, match=r"bad\.vw:101:1: expected a label"):
        list(iter_blocks(vw, block_bytes=64))


def test_format_and_arguments(tmp_path):
    assert format_of("a.vw.gz") == "vw" and format_of("a.svm.xz") == "svmlight"
    assert format_of("data.txt") == "svmlight" and format_of("x", "vw") == "vw"
    with pytest.raises(ValueError, match="'format' must be one of 'svmlight', 'vw'"):
        format_of("a.svm", "csv")
    path = random_file(tmp_path)
    with pytest.raises(ValueError, match="'block_bytes' must be an int >= 1; got 0"):
        iter_blocks(path, block_bytes=0)
    with pytest.raises(ValueError, match="'n_threads' must be an int >= 1 or None"):
        iter_blocks(path, n_threads=-1)


def test_a_pipe_is_streamed_once_or_refused(tmp_path):
    path = random_file(tmp_path)
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            f.write(path.read_bytes())

    writer = threading.Thread(target=feed)
    writer.start()
    X, y = stack(iter_blocks(fifo, block_bytes=256, n_features=40, zero_based=False))
    writer.join()
    assert_same(X, y, *load_svmlight(path, 40))
    with pytest.raises(ValueError, match=r"pipe\.svm is a pipe \(FIFO\), which can be read"
                                         r" only once, but 'n_features' is required"):
        iter_blocks(fifo)


def test_the_reader_runs_a_bounded_distance_ahead():
    produced = []

    def items():
        for k in range(100):
            produced.append(k)
            yield k

    consumed = 0
    for k in map_in_order(items(), lambda x: x * 2, n_threads=2, depth=3):
        assert k == 2 * consumed
        consumed += 1
        time.sleep(0.001)
        # in the queue (3), submitted and waiting to be queued (1), being drawn (1)
        assert len(produced) <= consumed + 5


def test_the_next_block_is_parsed_while_the_consumer_holds_one():
    # Overlap: with the first result in the consumer's hands (the learner at work on it),
    # the workers go on to the next items; without it this would wait forever.
    started = {k: threading.Event() for k in range(4)}

    def work(k):
        started[k].set()
        return k

    results = map_in_order(iter(range(4)), work, n_threads=2, depth=3)
    assert next(results) == 0
    assert started[1].wait(timeout=30) and started[2].wait(timeout=30)
    assert list(results) == [1, 2, 3]


def test_closing_early_stops_the_threads(tmp_path):
    path = random_file(tmp_path, n=400)
    before = threading.active_count()
    blocks = iter_blocks(path, block_bytes=100, n_threads=2)
    next(blocks)
    blocks.close()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == before


def test_an_error_in_the_reading_thread_reaches_the_consumer(tmp_path):
    path = tmp_path / "broken.svm.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"1 1:1\n" * 10000)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a truncated gzip stream
    with pytest.raises(DataFormatError, match=r"broken\.svm\.gz:\d+: the gzip data ends"):
        list(iter_blocks(path, block_bytes=1000, n_features=1, zero_based=False))
