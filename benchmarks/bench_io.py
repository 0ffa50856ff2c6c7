"""From a file to a model: loader throughput, threads, the binary cache, streaming memory.

Run ``python benchmarks/bench_io.py --help``. Sections (``--sections``):

``loader``
    MB/s of ``load_svmlight`` of the base revision (``--baseline-rev``, default main; its
    package extracted by ``git archive`` under ``--tmp`` and imported as
    ``halfspaces_base``) against this tree's with 1 and 2 parsing threads, in one process,
    alternating call by call, on a9a, w8a, rcv1_small (from ``$HALFSPACES_DATA`` or
    ``../shared/data``) and a generated file (``--rows``, ``--cols``, ``--nnz``; values with
    ``--digits`` significant digits, or ``repr`` with ``--digits 0``). The loads are checked
    bit-identical. Median of ``--repeat`` calls each.
``parallel``
    Two pieces of one in-memory buffer parsed by worker threads (what the library does)
    against a numba ``prange`` loop over the same kernel.
``cache``
    One text pass of ``iter_blocks`` against one pass over the binary cache (each pass sums
    the values, so that every byte is read).
``processes``
    One perceptron pass over the generated file as whole processes under ``/usr/bin/time -v``
    (wall time, peak RSS), median of ``--repeat``, alternating: the in-memory route
    (``load_svmlight`` + ``fit``), ``fit_file`` from the text (``n_features`` given, or found
    by a survey pass) and from its binary cache (``cache=True``), and Vowpal Wabbit
    (``python -m vowpalwabbit``) on the same rows in VW text, from the text and from its
    cache. Writing each cache is timed once. The memory of the streaming routes does not
    grow with the file: ``--rows`` sets its size (about 1.2 KB a row by default).
``scaling``
    One perceptron epoch from the text (``fit_file``) and from the binary cache
    (``fit_stream``), in one process, at ``--scaling-rows`` rows: the time per non-zero.

Generated files are written by a compiled writer (not committed; ``--tmp``, default /tmp).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_root  # noqa: E402

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


# -- loader throughput ----------------------------------------------------------------------

def baseline_datasets(rev: str, where: Path):
    """``halfspaces.datasets`` of the git revision ``rev``, imported in this process as
    ``halfspaces_base.datasets`` (its source extracted once under ``where``, so numba's
    on-disk cache of its kernels is kept between runs)."""
    import importlib
    import io
    import tarfile

    root = Path(__file__).resolve().parents[1]
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    home = where / f"halfspaces-baseline-{sha[:12]}"
    if not (home / "halfspaces_base").exists():
        tar = subprocess.run(["git", "-C", str(root), "archive", sha, "src/halfspaces"],
                             check=True, capture_output=True).stdout
        tmp = Path(tempfile.mkdtemp(dir=where))
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            archive.extractall(tmp, filter="data")
        home.mkdir(exist_ok=True)
        os.replace(tmp / "src" / "halfspaces", home / "halfspaces_base")
        shutil.rmtree(tmp)
    sys.path.insert(0, str(home))
    return importlib.import_module("halfspaces_base.datasets"), sha


def _same(a, b) -> bool:
    """Whether two loads are the same matrix and labels, bit for bit."""
    (Xa, ya), (Xb, yb) = a, b
    return (Xa.shape == Xb.shape and np.array_equal(Xa.indptr, Xb.indptr)
            and np.array_equal(Xa.indices, Xb.indices) and Xa.data.dtype == Xb.data.dtype
            and Xa.data.tobytes() == Xb.data.tobytes() and ya.tobytes() == yb.tobytes())


def loader(files: list[Path], base, repeat: int) -> list[str]:
    """``load_svmlight`` of the base revision against this tree's with 1 and 2 parsing
    threads, in one process, alternating call by call (each call once untimed first): the
    median of ``repeat`` calls each as wall seconds and MB/s of file, the median CPU seconds
    of the process (all threads; on a shared machine a steadier measure of the work), and
    whether the loads are bit-identical."""
    import gc

    from halfspaces.datasets import load_svmlight

    variants = {"today": base.load_svmlight,
                "new, 1 thread": lambda p: load_svmlight(p, n_threads=1),
                "new, 2 threads": lambda p: load_svmlight(p, n_threads=2)}
    rows = [f"{'file':24s} {'MB':>6s} " + " ".join(f"{k + ' wall, MB/s, cpu':>29s}"
                                                   for k in variants)
            + f" {'1t/today':>8s} {'2t/today':>8s} {'cpu today/1t':>12s} same"]
    for path in files:
        ref = base.load_svmlight(path)
        same = all(_same(ref, f(path)) for f in variants.values())
        del ref
        wall: dict[str, list[float]] = {k: [] for k in variants}
        cpu: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(repeat):
            for name, f in variants.items():
                gc.collect()
                t, c = time.perf_counter(), time.process_time()
                f(path)
                wall[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - c)
        mb = path.stat().st_size / 1e6
        w = {k: statistics.median(v) for k, v in wall.items()}
        c = {k: statistics.median(v) for k, v in cpu.items()}
        cells = " ".join(f"{w[k]:8.3f}s {mb / w[k]:6.0f}MB/s {c[k]:7.3f}s" for k in variants)
        one, two = (w["today"] / w[k] for k in ("new, 1 thread", "new, 2 threads"))
        rows.append(f"{path.name[:24]:24s} {mb:6.1f} {cells} {one:7.2f}x {two:7.2f}x"
                    f" {c['today'] / c['new, 1 thread']:11.2f}x {same}")
    rows.append(f"(speed-up = today's median / new median; median of {repeat} calls each,"
                " alternating in one process; cpu = process CPU time, all threads)")
    return rows


# -- two ways to parse in parallel: worker threads (the library) and numba's prange ------------

def _pieces(buf: np.ndarray, end: int, k: int) -> np.ndarray:
    """k + 1 offsets cutting buf[:end] after newlines into about equal pieces."""
    cuts = [0]
    for j in range(1, k):
        p = int(np.flatnonzero(buf[j * end // k : end] == 10)[0]) + j * end // k + 1
        cuts.append(max(p, cuts[-1]))
    return np.array(cuts + [end], dtype=np.int64)


def _prange_parser():
    from numba import prange

    from halfspaces.datasets._svmlight_lines import Rows, parse_svmlight

    @njit(parallel=True)
    def parse(buf, cuts, opts, data, indices, indptr, labels, qids, slow, info, offs):
        for k in prange(cuts.size - 1):
            a, r = offs[k, 0], offs[k, 1]
            rows = Rows(data[a : offs[k + 1, 0]], indices[a : offs[k + 1, 0]],
                        indptr[r + k : offs[k + 1, 1] + k + 1], labels[r : offs[k + 1, 1]],
                        qids[r : offs[k + 1, 1]], slow[k], info[k])
            parse_svmlight(buf, cuts[k], cuts[k + 1], opts, rows)
    return parse


def parallel_styles(path: Path, repeat: int) -> list[str]:
    """Parse one in-memory buffer in 2 pieces: a ThreadPoolExecutor over the nogil kernel
    against a prange loop over the same kernel (counting and allocation included)."""
    from concurrent.futures import ThreadPoolExecutor

    from halfspaces.datasets import _svmlight_blocks as blocks_mod
    from halfspaces.datasets import _svmlight_lines as lines_mod

    opts = lines_mod.Options(allow_zero=True, limit=2**62, use_strtod=True)
    raw = np.fromfile(path, dtype=np.uint8)
    buf = np.zeros(raw.size + 8, dtype=np.uint8)
    buf[: raw.size] = raw
    end = raw.size
    cuts = _pieces(buf, end, 2)
    parse = _prange_parser()

    def threads():
        with ThreadPoolExecutor(2) as pool:
            blocks = list(pool.map(lambda k: blocks_mod._parse_block(
                (buf[cuts[k] : cuts[k + 1] + 8], int(cuts[k + 1] - cuts[k])), opts),
                range(2)))
        return sum(b.indices.size for b in blocks)

    def prange_run():
        counts = np.array([lines_mod.count_lines_and_colons(buf, cuts[k], cuts[k + 1])
                           for k in range(2)])
        offs = np.zeros((3, 2), dtype=np.int64)
        offs[1:, 0] = np.cumsum(counts[:, 1])
        offs[1:, 1] = np.cumsum(counts[:, 0] + 1)
        nnz, rows = offs[-1]
        data, indices = np.empty(nnz), np.empty(nnz, dtype=np.int64)
        indptr = np.empty(rows + 2, dtype=np.int64)
        labels, qids = np.empty(rows), np.empty(rows, dtype=np.int64)
        slow, info = np.empty((2, 64, 3), dtype=np.int64), np.zeros((2, 14), dtype=np.int64)
        parse(buf, cuts, opts, data, indices, indptr, labels, qids, slow, info, offs)
        return int(info[:, 5].sum())

    assert threads() == prange_run()
    out: dict[str, list[float]] = {"threads": [], "prange": []}
    for _ in range(repeat):
        for name, f in (("threads", threads), ("prange", prange_run)):
            t = time.perf_counter()
            f()
            out[name].append(time.perf_counter() - t)
    mb = end / 1e6
    return [f"{path.name}: parse 2 pieces in memory, median of {repeat}: ThreadPoolExecutor"
            f" {statistics.median(out['threads']):.3f}s"
            f" ({mb / statistics.median(out['threads']):.0f} MB/s), prange"
            f" {statistics.median(out['prange']):.3f}s"
            f" ({mb / statistics.median(out['prange']):.0f} MB/s)"]


# -- a cached pass against a text pass --------------------------------------------------------

_PASS_SNIPPET = """
import sys, time, tempfile
from halfspaces.datasets import iter_blocks
from halfspaces.datasets.cache import open_cached
path, n_features, repeat, cache_dir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def touch(blocks):
    nnz = 0
    for X, y in blocks:
        X.data.sum()  # reads every value
        nnz += X.nnz
    return nnz
def text():
    return touch(iter_blocks(path, n_features=n_features, zero_based=False))
t = time.perf_counter(); cached = open_cached(path, cache_dir, n_features=n_features,
                                              zero_based=False); build = time.perf_counter() - t
def cache():
    return touch(cached)
assert text() == cache()
out = {"build": build, "text": [], "cache": []}
for _ in range(repeat):
    for name, f in (("text", text), ("cache", cache)):
        t = time.perf_counter(); f(); out[name].append(time.perf_counter() - t)
print(out)
"""


def cache_pass(path: Path, n_features: int, repeat: int) -> list[str]:
    import ast

    with tempfile.TemporaryDirectory() as d:
        out = ast.literal_eval(subprocess.run(
            [sys.executable, "-c", _PASS_SNIPPET, str(path), str(n_features), str(repeat), d],
            check=True, capture_output=True, text=True).stdout)
    text, cache = statistics.median(out["text"]), statistics.median(out["cache"])
    return [f"{path.name}: building the cache {out['build']:.3f}s; one pass (median of"
            f" {repeat}) from text {text:.3f}s, from the cache {cache:.3f}s"
            f" ({text / cache:.1f}x faster)"]


# -- whole processes: the in-memory route, our streaming trainer and Vowpal Wabbit ----------

def _python(code: str) -> list[str]:
    return [sys.executable, "-W", "ignore", "-c", code]


def _in_memory_command(path: Path) -> list[str]:
    return _python("from halfspaces import Perceptron\n"
                   "from halfspaces.datasets import load_svmlight\n"
                   f"X, y = load_svmlight({str(path)!r})\n"
                   "Perceptron(max_iter=1, fit_intercept=False, shuffle=False).fit(X, y)\n")


def _fit_command(path: Path, n_features: int | None, cache_dir: str | None) -> list[str]:
    cache = f", cache=True, cache_dir={cache_dir!r}" if cache_dir else ""
    given = f", n_features={n_features}, zero_based=False" if n_features else ""
    return _python("from halfspaces import Perceptron\n"
                   "from halfspaces.datasets import fit_file\n"
                   "fit_file(Perceptron(max_iter=1, fit_intercept=False, shuffle=False),"
                   f" {str(path)!r}"
                   f"{given}{cache})\n")


def _cli_command(path: Path, model: Path, n_features: int | None = None,
                 cache_dir: str | None = None) -> list[str]:
    """``halfspaces train`` streaming one pass (file order; it reports the pass's progressive
    accuracy). Without ``n_features`` a survey pass first finds the columns and classes;
    with it (and the indexing) the file is read once; with ``cache_dir``, ``--cache-dir``:
    the pass reads the binary cache there (written by the first such run)."""
    given = ["--n-features", str(n_features), "--one-based"] if n_features else []
    cache = ["--cache-dir", cache_dir] if cache_dir else []
    return [sys.executable, "-W", "ignore", "-m", "halfspaces", "train", str(path), "--algo",
            "perceptron", "--max-iter", "1", "--no-shuffle", "--no-fit-intercept", "--quiet",
            *given, *cache, "-o", str(model)]


def _vw_reads(command: list[str], rows: int) -> str:
    """Run Vowpal Wabbit's ``command`` once without ``--quiet`` and check from its summary
    that it learnt from all ``rows`` examples (and from its cache when the command names
    one): VW given ``--cache_file`` without ``-d`` reads nothing and exits in 0.07 s, and
    with ``-d FILE -c --cache_file C`` reads two caches (``FILE.cache`` and C), twice the
    rows; earlier results files timed the first of these as "VW, its cache"."""
    shown = subprocess.run([c for c in command if c != "--quiet"], capture_output=True,
                           text=True, check=True)
    text = shown.stdout + shown.stderr
    seen = re.search(r"number of examples = (\d+)", text)
    if seen is None or int(seen.group(1)) != rows:
        raise SystemExit(f"bench_io: Vowpal Wabbit did not learn from {rows} examples"
                         f" ({' '.join(command)}):\n{text}")
    if "--cache_file" in command and "favor of cache input" not in text:
        raise SystemExit(f"bench_io: Vowpal Wabbit did not read its cache:\n{text}")
    return f"{rows} examples" + (", from its cache" if "--cache_file" in command else "")


def processes(svm: Path, vw: Path, n_features: int, repeat: int) -> list[str]:
    """One perceptron pass (no intercept, as VW's --noconstant) from the svmlight file by
    each route, and one pass of Vowpal Wabbit from the same rows in VW text, as whole
    processes under /usr/bin/time -v: wall time and peak RSS, median of ``repeat``,
    alternating. The caches are written first (timed once: building them)."""
    with tempfile.TemporaryDirectory() as d:
        vw_base = [sys.executable, "-m", "vowpalwabbit", "--loss_function", "hinge",
                   "--noconstant", "-b", "18", "--quiet", "-d", str(vw)]
        # --cache_file writes the cache on the first run, and later runs read it instead of
        # the text ("ignoring text input in favor of cache input").
        vw_cache = vw_base + ["--cache_file", str(Path(d) / "vw.cache")]
        # Timed once: each cache written; then our CLI's run on that cache, untimed (if its
        # options named another cache, this run would write it, outside the medians).
        build = median_times([vw_cache, _fit_command(svm, None, d),
                              _cli_command(svm, Path(d) / "model.json", cache_dir=d)], 1)
        rows = sum(1 for _ in open(svm, "rb"))
        checked = [_vw_reads(vw_base, rows), _vw_reads(vw_cache, rows)]
        commands = {
            "imports only (the floor)": _python("from halfspaces import Perceptron\n"
                                                "from halfspaces.datasets import fit_file\n"
                                                "Perceptron()._validate_params()\n"),
            "in memory: load_svmlight + fit": _in_memory_command(svm),
            "fit_file, text (n_features given)": _fit_command(svm, n_features, None),
            "fit_file, text (n_features found)": _fit_command(svm, None, None),
            "fit_file, cache=True (cache built)": _fit_command(svm, None, d),
            "CLI train, text (streamed)": _cli_command(svm, Path(d) / "model.json"),
            "CLI train, text, --n-features given": _cli_command(svm, Path(d) / "model.json",
                                                                n_features),
            "CLI train --cache (cache built)": _cli_command(svm, Path(d) / "model.json",
                                                           cache_dir=d),
            "VW, text": vw_base,
            "VW, its cache (built)": vw_cache,
        }
        results = median_times(list(commands.values()), repeat)
    mb = svm.stat().st_size / 1e6
    rows = [f"{svm.name}: {mb:.0f} MB of svmlight text; {vw.name}: "
            f"{vw.stat().st_size / 1e6:.0f} MB of VW text. Whole processes, median of"
            f" {repeat}, alternating. VW checked once: {checked[0]} from its text,"
            f" {checked[1]}.",
            f"{'route':38s} {'wall':>8s} {'peak RSS':>10s}"]
    for (name, _), (wall, rss) in zip(commands.items(), results, strict=True):
        rows.append(f"{name:38s} {wall:7.2f}s {rss:8.0f}MB")
    rows.append(f"{'VW, text, writing its cache (once)':38s} {build[0][0]:7.2f}s"
                f" {build[0][1]:8.0f}MB")
    rows.append(f"{'fit_file, cache=True, writing it (once)':38s} {build[1][0]:7.2f}s"
                f" {build[1][1]:8.0f}MB")
    by = {name: wall for name, (wall, _) in zip(commands, results, strict=True)}
    memory = "in memory: load_svmlight + fit"
    rows.append("ratios: fit_file text (n_features given) / VW text "
                f"{by['fit_file, text (n_features given)'] / by['VW, text']:.2f}x;"
                " fit_file text (n_features found) / VW text "
                f"{by['fit_file, text (n_features found)'] / by['VW, text']:.2f}x;"
                " CLI train text / VW text "
                f"{by['CLI train, text (streamed)'] / by['VW, text']:.2f}x;"
                " CLI train text, --n-features given / VW text "
                f"{by['CLI train, text, --n-features given'] / by['VW, text']:.2f}x;"
                " CLI train --cache / VW cache "
                f"{by['CLI train --cache (cache built)'] / by['VW, its cache (built)']:.2f}x;"
                " fit_file cache / VW cache "
                f"{by['fit_file, cache=True (cache built)'] / by['VW, its cache (built)']:.2f}x;"
                " fit_file text (found) / in memory "
                f"{by['fit_file, text (n_features found)'] / by[memory]:.2f}x")
    return rows


# -- cost linear in nnz: epoch times at several sizes -----------------------------------------

def scaling(tmp: Path, sizes: list[int], cols: int, nnz: int, digits: int,
            repeat: int) -> list[str]:
    """One perceptron epoch (no intercept) by ``fit_file`` from the text and by
    ``fit_stream`` over the binary cache, in this process, median of ``repeat``, at each
    number of rows (files generated and deleted here)."""
    import warnings

    from halfspaces import Perceptron
    from halfspaces.datasets import fit_file, fit_stream, open_cached

    rows = [f"{'rows':>9s} {'nnz':>11s} {'MB':>7s} {'build cache':>11s} {'epoch, text':>11s}"
            f" {'ns/nnz':>7s} {'epoch, cache':>12s} {'ns/nnz':>7s}"]
    for n in sizes:
        path = tmp / f"halfspaces-bench-scaling-{n}x{cols}-{nnz}-{digits}.svm"
        generate(path, n, cols, nnz, digits=digits)
        try:
            with tempfile.TemporaryDirectory(dir=tmp) as d, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                cached = open_cached(path, d, n_features=cols, zero_based=False)
                build = time.perf_counter() - t

                def text(p=path):
                    fit_file(Perceptron(max_iter=1, fit_intercept=False, shuffle=False), p,
                             n_features=cols, zero_based=False, classes=[-1.0, 1.0])

                def cache(c=cached):
                    fit_stream(Perceptron(max_iter=1, fit_intercept=False, shuffle=False), c,
                               classes=[-1.0, 1.0])

                times: dict[str, list[float]] = {"text": [], "cache": []}
                if n == sizes[0]:  # warm-up: compiled kernels loaded, threads started
                    text(), cache()
                for _ in range(repeat):
                    for name, f in (("text", text), ("cache", cache)):
                        t = time.perf_counter()
                        f()
                        times[name].append(time.perf_counter() - t)
                med = {k: statistics.median(v) for k, v in times.items()}
                per = {k: v / cached.nnz * 1e9 for k, v in med.items()}
                rows.append(f"{n:9d} {cached.nnz:11d} {path.stat().st_size / 1e6:7.0f}"
                            f" {build:10.2f}s {med['text']:10.2f}s {per['text']:7.1f}"
                            f" {med['cache']:11.2f}s {per['cache']:7.1f}")
        finally:
            path.unlink(missing_ok=True)
    rows.append(f"(in one process; median of {repeat}, text and cache alternating)")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sections = ["loader", "parallel", "cache", "processes", "scaling"]
    parser.add_argument("--sections", nargs="+", default=sections, choices=sections)
    parser.add_argument("--baseline-rev", default="main",
                        help="git revision whose load_svmlight is today's")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--cols", type=int, default=100_000)
    parser.add_argument("--nnz", type=int, default=80)
    parser.add_argument("--digits", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scaling-rows", type=int, nargs="+",
                        default=[100_000, 300_000, 1_000_000])
    parser.add_argument("--tmp", default="/tmp")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args(argv)
    tmp = Path(args.tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    generated = tmp / f"halfspaces-bench-{args.rows}x{args.cols}-{args.nnz}-{args.digits}.svm"
    made = []
    if set(args.sections) - {"scaling"}:  # scaling generates its own files
        if not generated.exists():
            generate(generated, args.rows, args.cols, args.nnz, digits=args.digits)
            made.append(generated)
        print(f"generated: {generated.name}, {args.rows} rows x {args.cols} columns,"
              f" {args.nnz} draws of a column per row, values with {args.digits} digits",
              flush=True)
    try:
        if "loader" in args.sections:
            root = data_root()
            files = [root / name for name in REAL if (root / name).exists()] + [generated]
            base, sha = baseline_datasets(args.baseline_rev, tmp)
            print(f"\n## loader: today = load_svmlight of {args.baseline_rev} ({sha[:12]})")
            print("\n".join(loader(files, base, args.repeat)), flush=True)
        if "parallel" in args.sections:
            print("\n## parallel")
            print("\n".join(parallel_styles(generated, args.repeat)), flush=True)
        if "cache" in args.sections:
            print("\n## cache")
            print("\n".join(cache_pass(generated, args.cols, args.repeat)), flush=True)
        if "processes" in args.sections:
            vw = generated.with_suffix(".vw")
            if not vw.exists():
                generate(vw, args.rows, args.cols, args.nnz, digits=args.digits, vw=True)
                made.append(vw)
            print("\n## processes: one perceptron pass")
            print("\n".join(processes(generated, vw, args.cols, args.repeat)), flush=True)
        if "scaling" in args.sections:
            print("\n## scaling: one perceptron epoch")
            print("\n".join(scaling(tmp, args.scaling_rows, args.cols, args.nnz, args.digits,
                                     args.repeat)), flush=True)
    finally:
        for path in made if not args.keep else []:
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
