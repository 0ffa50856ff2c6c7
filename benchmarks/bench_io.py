"""From a file to a model: loader throughput, threads, the binary cache, streaming memory.

Run ``python benchmarks/bench_io.py --help``. Sections (``--sections``):

``loader``
    MB/s of ``load_svmlight`` with the reader of the base commit (``--baseline-rev``, run in
    a subprocess from a ``git worktree``, so both read the same page-cached file) against
    this tree's, on a9a, w8a, rcv1_small (from ``$HALFSPACES_DATA`` or ``../shared/data``)
    and a generated file (``--rows``, ``--cols``, ``--nnz``; values with ``--digits``
    significant digits, or ``repr`` with ``--digits 0``); 1 and 2 parsing threads. The
    matrices are checked bit-identical. Median of ``--repeat`` runs, alternating.
``cache``
    One text pass of ``iter_blocks`` against one pass over the binary cache.
``rss``
    Peak RSS (``/usr/bin/time -v``) of a perceptron trained by ``fit_stream`` over a
    generated file of ``--rss-gb`` GB, generated once to ``--tmp`` and deleted at the end.
``vw``
    Vowpal Wabbit (``python -m vowpalwabbit``) on the generated file in VW text: one pass
    from text and one from its cache, against ``fit_stream`` from text and from our cache,
    whole processes, median of ``--repeat``, alternating.

Generated files are written by a compiled writer (not committed; ``--tmp``, default /tmp).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

REAL = ["a9a/a9a", "w8a/w8a", "rcv1_small_vw/rcv1_small.svm"]


@njit(cache=True)
def _write_digits(out, p, v):
    """Write the decimal digits of the non-negative int v at out[p:]; return the new end."""
    if v == 0:
        out[p] = 48
        return p + 1
    n = 0
    tmp = v
    while tmp > 0:
        tmp //= 10
        n += 1
    for k in range(n - 1, -1, -1):
        out[p + k] = 48 + v % 10
        v //= 10
    return p + n


@njit(cache=True)
def _render(indptr, indices, values, labels, digits, vw, out):
    """Text of CSR rows: values are integers k meaning 0.k (``digits`` digits after '0.')."""
    p = 0
    for i in range(labels.shape[0]):
        if labels[i] < 0:
            out[p] = 45
            p += 1
        out[p] = 49
        p += 1
        if vw:
            out[p] = 32
            out[p + 1] = 124
            out[p + 2] = 102
            p += 3
        for q in range(indptr[i], indptr[i + 1]):
            out[p] = 32
            p = _write_digits(out, p + 1, indices[q] + 1)
            out[p] = 58
            out[p + 1] = 48
            out[p + 2] = 46
            p += 3
            v = values[q]
            for k in range(digits - 1, -1, -1):
                out[p + k] = 48 + v % 10
                v //= 10
            p += digits
        out[p] = 10
        p += 1
    return p


def generate(path: Path, n_rows: int, n_cols: int, nnz: int, *, digits: int = 6,
             vw: bool = False, seed: int = 0, chunk: int = 50_000) -> Path:
    """Write an svmlight (or VW, one namespace ``f``) file of random sparse rows.

    Rows have ``nnz`` distinct sorted 1-based indices; values are ``0.<digits digits>``, or
    Python's ``repr`` of a float in (0, 1) when ``digits == 0`` (17 significant digits mostly);
    labels are +1/-1 at random.
    """
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        for lo in range(0, n_rows, chunk):
            m = min(chunk, n_rows - lo)
            cols = np.sort(rng.choice(n_cols, size=(m, nnz)), axis=1)
            keep = np.ones_like(cols, dtype=bool)
            keep[:, 1:] = cols[:, 1:] != cols[:, :-1]
            counts = keep.sum(axis=1)
            indptr = np.zeros(m + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            indices = cols[keep].astype(np.int64)
            labels = rng.choice([-1, 1], size=m).astype(np.int64)
            if digits:
                values = rng.integers(1, 10**digits, size=indices.size, dtype=np.int64)
                out = np.empty(m * 4 + indices.size * (22 + digits) + 8, dtype=np.uint8)
                end = _render(indptr, indices, values, labels, digits, vw, out)
                f.write(out[:end].tobytes())
            else:
                values = rng.random(indices.size).tolist()
                head = "|f " if vw else ""
                lines = []
                for i in range(m):
                    a, b = indptr[i], indptr[i + 1]
                    feats = " ".join(f"{c + 1}:{v!r}" for c, v in
                                     zip(indices[a:b].tolist(), values[a:b], strict=True))
                    lines.append(f"{labels[i]} {head}{feats}\n")
                f.write("".join(lines).encode())
    return path


def median_times(commands: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """(median wall s, median peak RSS MB) of each command, run alternately ``repeat`` times
    under ``/usr/bin/time -v``."""
    walls: list[list[float]] = [[] for _ in commands]
    rss: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for k, cmd in enumerate(commands):
            with tempfile.NamedTemporaryFile("r", suffix=".time") as log:
                t0 = time.perf_counter()
                subprocess.run(["/usr/bin/time", "-v", "-o", log.name, *cmd], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                walls[k].append(time.perf_counter() - t0)
                for line in log.read().splitlines():
                    if "Maximum resident set size" in line:
                        rss[k].append(int(line.split(":")[1]) / 1024)
    return [(statistics.median(w), statistics.median(r)) for w, r in zip(walls, rss,
                                                                          strict=True)]
