"""From a file to a model: loader throughput, threads, the binary cache, streaming memory.

Run ``python benchmarks/bench_io.py --help``. Sections (``--sections``):

``loader``
    MB/s of ``load_svmlight`` with the reader of the base commit (``--baseline-rev``, run in
    a subprocess from a ``git worktree``, so both read the same page-cached file) against
    this tree's, on a9a, w8a, rcv1_small (from ``$HALFSPACES_DATA`` or ``../shared/data``)
    and a generated file (``--rows``, ``--cols``, ``--nnz``; values with ``--digits``
    significant digits, or ``repr`` with ``--digits 0``); 1 and 2 parsing threads. The
    matrices are checked bit-identical. Median of ``--repeat`` runs, alternating.
``parallel``
    Two pieces of one in-memory buffer parsed by worker threads (what the library does)
    against a numba ``prange`` loop over the same kernel.
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

import argparse
import os
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

_LOAD_SNIPPET = """
import hashlib, inspect, sys, time
import numpy as np
from halfspaces.datasets import load_svmlight
path, repeat, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kw = {"n_threads": threads} if threads else {}
X, y = load_svmlight(path, **kw)  # warm-up: compiled kernels from the cache, page cache
h = hashlib.sha256()
for a in (X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64), y):
    h.update(np.ascontiguousarray(a).tobytes())
times = []
for _ in range(repeat):
    t = time.perf_counter(); load_svmlight(path, **kw); times.append(time.perf_counter() - t)
print(h.hexdigest()[:16], *times)
"""


def _baseline_tree(rev: str) -> Path:
    """A detached git worktree of ``rev`` in a temporary directory (removed at exit)."""
    import atexit

    root = Path(__file__).resolve().parents[1]
    where = Path(tempfile.mkdtemp(prefix="halfspaces-baseline-"))
    subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", "-f", str(where),
                    rev], check=True, capture_output=True)
    atexit.register(subprocess.run, ["git", "-C", str(root), "worktree", "remove", "--force",
                                     str(where)], capture_output=True)
    return where


def loader(files: list[Path], baseline: Path | None, repeat: int, inner: int) -> list[str]:
    """Median load time (s) and MB/s of the baseline and of this tree with 1 and 2 threads,
    in alternating processes; whether the matrices are bit-identical."""
    variants = [("today (1 thread)", baseline, 0)] if baseline else []
    variants += [("new, 1 thread", None, 1), ("new, 2 threads", None, 2)]
    rows = [f"{'file':28s} {'MB':>7s} " + " ".join(f"{v[0]:>18s}" for v in variants)
            + "  speed-up(2t)  same"]
    for path in files:
        times: dict[str, list[float]] = {v[0]: [] for v in variants}
        digests = set()
        for _ in range(repeat):
            for name, tree, threads in variants:
                env = dict(os.environ)
                if tree is not None:
                    env["PYTHONPATH"] = str(tree / "src")
                out = subprocess.run([sys.executable, "-c", _LOAD_SNIPPET, str(path),
                                      str(inner), str(threads)], env=env, check=True,
                                     capture_output=True, text=True).stdout.split()
                digests.add(out[0])
                times[name].extend(float(t) for t in out[1:])
        mb = path.stat().st_size / 1e6
        med = {k: statistics.median(v) for k, v in times.items()}
        cells = " ".join(f"{med[k]:7.3f}s {mb / med[k]:6.0f}MB/s" for k in times)
        ratio = med[variants[0][0]] / med["new, 2 threads"] if baseline else float("nan")
        rows.append(f"{path.name:28s} {mb:7.1f} {cells}  {ratio:11.2f}x  {len(digests) == 1}")
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

    from halfspaces.datasets.svmlight import _parse_svmlight

    @njit(parallel=True)
    def parse(buf, cuts, use_strtod, data, indices, indptr, labels, qids, slow, info, offs):
        for k in prange(cuts.size - 1):
            a, r = offs[k, 0], offs[k, 1]
            _parse_svmlight(buf, cuts[k], cuts[k + 1], True, 2**62, use_strtod,
                            data[a : offs[k + 1, 0]], indices[a : offs[k + 1, 0]],
                            indptr[r + k : offs[k + 1, 1] + k + 1], labels[r : offs[k + 1, 1]],
                            qids[r : offs[k + 1, 1]], slow[k], info[k])
    return parse


def parallel_styles(path: Path, repeat: int) -> list[str]:
    """Parse one in-memory buffer in 2 pieces: a ThreadPoolExecutor over the nogil kernel
    against a prange loop over the same kernel (counting and allocation included)."""
    from concurrent.futures import ThreadPoolExecutor

    from halfspaces.datasets import svmlight as svm

    raw = np.fromfile(path, dtype=np.uint8)
    buf = np.zeros(raw.size + 8, dtype=np.uint8)
    buf[: raw.size] = raw
    end = raw.size
    cuts = _pieces(buf, end, 2)
    parse = _prange_parser()

    def threads():
        with ThreadPoolExecutor(2) as pool:
            blocks = list(pool.map(lambda k: svm._parse_block(
                (buf[cuts[k] : cuts[k + 1] + 8], int(cuts[k + 1] - cuts[k])), True, 2**62,
                True), range(2)))
        return sum(b.indices.size for b in blocks)

    def prange_run():
        counts = np.array([svm._count_lines_and_colons(buf, cuts[k], cuts[k + 1])
                           for k in range(2)])
        offs = np.zeros((3, 2), dtype=np.int64)
        offs[1:, 0] = np.cumsum(counts[:, 1])
        offs[1:, 1] = np.cumsum(counts[:, 0] + 1)
        nnz, rows = offs[-1]
        data, indices = np.empty(nnz), np.empty(nnz, dtype=np.int64)
        indptr = np.empty(rows + 2, dtype=np.int64)
        labels, qids = np.empty(rows), np.empty(rows, dtype=np.int64)
        slow, info = np.empty((2, 64, 3), dtype=np.int64), np.zeros((2, 14), dtype=np.int64)
        parse(buf, cuts, True, data, indices, indptr, labels, qids, slow, info, offs)
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
def text():
    return sum(X.nnz for X, y in iter_blocks(path, n_features=n_features, zero_based=False))
t = time.perf_counter(); cached = open_cached(path, cache_dir, n_features=n_features,
                                              zero_based=False); build = time.perf_counter() - t
def cache():
    return sum(X.nnz for X, y in cached)
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


# -- whole processes: our streaming trainer and Vowpal Wabbit -------------------------------

def _fit_command(path: Path, n_features: int | None, cache_dir: str | None) -> list[str]:
    nf = "None" if n_features is None else str(n_features)
    code = ("from halfspaces import Perceptron\n"
            "from halfspaces.datasets.stream import fit_file\n"
            f"fit_file(Perceptron(max_iter=1), {str(path)!r}, n_features={nf},"
            f" zero_based={'False' if n_features else repr('auto')},"
            f" classes=[-1.0, 1.0], cache={cache_dir is not None},"
            f" cache_dir={cache_dir!r})\n")
    return [sys.executable, "-W", "ignore", "-c", code]


def processes(svm: Path, vw: Path, n_features: int, repeat: int) -> list[str]:
    """One pass from text and from the caches, whole processes under /usr/bin/time -v."""
    with tempfile.TemporaryDirectory() as d:
        vw_cache = Path(d) / "vw.cache"
        vw_base = [sys.executable, "-m", "vowpalwabbit", "--loss_function", "hinge",
                   "--noconstant", "-b", "18", "--quiet"]
        subprocess.run(vw_base + ["-d", str(vw), "-c", "--cache_file", str(vw_cache)],
                       check=True, capture_output=True)  # writes VW's cache
        subprocess.run(_fit_command(svm, n_features, d), check=True, capture_output=True)
        commands = {
            "ours, text (n_features given)": _fit_command(svm, n_features, None),
            "ours, text (n_features found)": _fit_command(svm, None, None),
            "VW, text": vw_base + ["-d", str(vw)],
            "ours, cache": _fit_command(svm, n_features, d),
            "VW, cache": vw_base + ["--cache_file", str(vw_cache)],
        }
        results = median_times(list(commands.values()), repeat)
    rows = [f"{'route':34s} {'wall':>8s} {'peak RSS':>10s}"]
    for (name, _), (wall, rss) in zip(commands.items(), results, strict=True):
        rows.append(f"{name:34s} {wall:7.2f}s {rss:8.0f}MB")
    by = dict(zip(commands, results, strict=True))
    rows.append(f"ratio text (n_features given) / VW text: "
                f"{by['ours, text (n_features given)'][0] / by['VW, text'][0]:.2f}x;"
                f" cache / VW cache: {by['ours, cache'][0] / by['VW, cache'][0]:.2f}x")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sections = ["loader", "parallel", "cache", "rss", "vw"]
    parser.add_argument("--sections", nargs="+", default=sections, choices=sections)
    parser.add_argument("--baseline-rev", default=None,
                        help="git revision whose load_svmlight is today's (e.g. main)")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--cols", type=int, default=100_000)
    parser.add_argument("--nnz", type=int, default=80)
    parser.add_argument("--digits", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--inner", type=int, default=1, help="timed loads per process")
    parser.add_argument("--rss-gb", type=float, default=2.0)
    parser.add_argument("--tmp", default="/tmp")
    args = parser.parse_args(argv)
    tmp = Path(args.tmp)
    generated = tmp / f"halfspaces-bench-{args.rows}x{args.cols}-{args.nnz}-{args.digits}.svm"
    made = []
    if not generated.exists():
        generate(generated, args.rows, args.cols, args.nnz, digits=args.digits)
        made.append(generated)
    try:
        if "loader" in args.sections:
            root = data_root()
            files = [root / name for name in REAL if (root / name).exists()] + [generated]
            baseline = _baseline_tree(args.baseline_rev) if args.baseline_rev else None
            print("\n".join(loader(files, baseline, args.repeat, args.inner)))
        if "parallel" in args.sections:
            print("\n".join(parallel_styles(generated, args.repeat)))
        if "cache" in args.sections:
            print("\n".join(cache_pass(generated, args.cols, args.repeat)))
        if "vw" in args.sections:
            vw = generated.with_suffix(".vw")
            if not vw.exists():
                generate(vw, args.rows, args.cols, args.nnz, digits=args.digits, vw=True)
                made.append(vw)
            print("\n".join(processes(generated, vw, args.cols, args.repeat)))
        if "rss" in args.sections:
            free = shutil.disk_usage(tmp).free / 1e9
            if free < 2.5 * args.rss_gb:
                print(f"rss: skipped, {free:.1f} GB free in {tmp}")
            else:
                rows = int(args.rss_gb * 1e9 / (generated.stat().st_size / args.rows))
                big = tmp / f"halfspaces-bench-rss-{rows}.svm"
                generate(big, rows, args.cols, args.nnz, digits=args.digits)
                made.append(big)
                cmds = [_fit_command(big, args.cols, None), _fit_command(big, None, None)]
                out = median_times(cmds, 1)
                print(f"rss: {big.stat().st_size / 1e9:.2f} GB, {rows} rows; one streaming"
                      f" pass with n_features given: {out[0][0]:.1f}s, peak RSS"
                      f" {out[0][1]:.0f} MB; with n_features found by a survey pass:"
                      f" {out[1][0]:.1f}s, peak RSS {out[1][1]:.0f} MB")
    finally:
        for path in made:
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
