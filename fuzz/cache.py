"""Fuzz the binary cache's reader, ``halfspaces.datasets.cache.open_cached``, on damaged caches.

A cache of a small svmlight file is built once; each input damages a copy of it. The first
byte picks the file (``header.json`` or one of the blocks' ``.npy`` files) and the form:

- even: the rest of the bytes replace that file (truncated, foreign or random content);
- odd: the rest replace it, and ``header.json`` records the new file's size and CRC-32, as a
  crafted cache would: the fuzzer then reaches the checks past the checksum (the ``.npy``
  header, the shapes against ``header.json``, the CSR structure of each block).

Properties checked: the only exception ``open_cached`` and a pass over the blocks raise is
``CacheError``; every block a pass yields is a CSR matrix that the learners' own check
(``check_csr``) accepts, of the header's width, with as many labels as rows; with the
checksums unchanged (even form), what is read is the source file, exactly.

Seeds: ``python fuzz/cache.py --make-seeds fuzz/corpus/cache``. Run:
``python fuzz/cache.py fuzz/corpus/cache -max_total_time=60``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import zlib

import numpy as np
from harness import _SCRATCH, instrumented, main

cache, validation, shuffle, stream = instrumented(
    "halfspaces.datasets.cache", "halfspaces._validation", "halfspaces.datasets._shuffle",
    "halfspaces.datasets.stream")

_SOURCE = os.path.join(_SCRATCH, "source.svm")
_PRISTINE = os.path.join(_SCRATCH, "pristine.hscache")
_WORK = os.path.join(_SCRATCH, "source.svm.hscache")
_BLOCK_BYTES = 64  # a few rows a block: several blocks


def _setup() -> list[str]:
    """Write the source file and its pristine cache; the names of the cache's files."""
    rows = [f"{(-1) ** i} {i % 5 + 1}:{i / 7:.3g} {i % 5 + 3}:-{i % 3}.5" for i in range(24)]
    with open(_SOURCE, "w") as f:
        f.write("\n".join(rows) + "\n")
    built = cache.open_cached(_SOURCE, block_bytes=_BLOCK_BYTES)
    built.close()
    shutil.rmtree(_PRISTINE, ignore_errors=True)
    os.rename(_WORK, _PRISTINE)
    return sorted(os.listdir(_PRISTINE))


_NAMES = _setup()
_EXPECTED = None


def _read():
    """``(X, y)`` of the cache of the source, as a pass over its blocks gives them, checked;
    a shuffled pass (pieces read out of order, windows of 8 rows) gives the same rows."""
    cached = cache.open_cached(_SOURCE, block_bytes=_BLOCK_BYTES)
    try:
        blocks = list(cached.blocks())
        for X, y in blocks:
            assert X.shape[1] == cached.n_features and y.shape == (X.shape[0],)
            validation.check_csr("fuzz", X, finite=False)  # raises on a malformed block
        windows = list(shuffle.shuffled_pass(stream._Blocks(cached), cached.n_rows,
                                             np.random.RandomState(0), 8))
        assert all(X.shape[0] <= 8 for X, _, _ in windows)
        assert _rows(windows) == _rows(blocks), "a shuffled pass is not the blocks' rows"
        return blocks
    finally:
        cached.close()


def _rows(blocks) -> list:
    """The rows of ``blocks`` with their labels, as bytes, sorted: the multiset of rows."""
    return sorted(row.tobytes() + label.tobytes() for X, y, *_ in blocks
                  for row, label in zip(X.toarray(), np.asarray(y), strict=True))


def test_one(data: bytes) -> None:
    global _EXPECTED
    if not data:
        return
    name = _NAMES[(data[0] // 2) % len(_NAMES)]
    shutil.rmtree(_WORK, ignore_errors=True)
    shutil.copytree(_PRISTINE, _WORK)
    content = data[1:]
    with open(os.path.join(_WORK, name), "wb") as f:
        f.write(content)
    crafted = data[0] % 2 == 1
    if crafted and name != "header.json":
        header_path = os.path.join(_WORK, "header.json")
        with open(header_path) as f:
            header = json.load(f)
        header["files"][name] = [len(content), zlib.crc32(content)]
        with open(header_path, "w") as f:
            json.dump(header, f)
    try:
        blocks = _read()
    except cache.CacheError:
        return
    if _EXPECTED is None:
        shutil.rmtree(_WORK, ignore_errors=True)
        shutil.copytree(_PRISTINE, _WORK)
        _EXPECTED = _read()
    if not crafted:  # a checksum that still holds: the source's rows, exactly
        X = [b[0].toarray() for b in blocks]
        assert len(X) == len(_EXPECTED) and all(
            np.array_equal(a, b[0].toarray()) and np.array_equal(y, b[1])
            for a, (_, y), b in zip(X, blocks, _EXPECTED, strict=True)), "not the source"


def make_seeds(directory: str) -> None:
    """The cache's own files, each in both forms (unchanged, and with a repeated column index
    or a cut-off end where that applies), as seeds."""
    for k, name in enumerate(_NAMES):
        with open(os.path.join(_PRISTINE, name), "rb") as f:
            raw = f.read()
        for form, content in ((0, raw), (1, raw[:-3])):
            with open(os.path.join(directory, f"{name}-{form}"), "wb") as f:
                f.write(bytes([2 * k + form]) + content)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-seeds"]:
        os.makedirs(sys.argv[2], exist_ok=True)
        make_seeds(sys.argv[2])
    else:
        main(test_one)
