"""Soak: 10 million examples streamed through ``partial_fit`` and through ``halfspaces train``.

    python benchmarks/bench_soak.py                    # 10,000,000 rows (about an hour busy)
    python benchmarks/bench_soak.py --rows 200000 --chunk-rows 10000 --report-rows 50000

The stream is generated chunk by chunk (``--chunk-rows`` rows, CSR, ``--nnz`` non-zeros per
row among ``--features`` columns, labelled by one planted separator through the origin with
5% of the labels flipped), so no chunk outlives its call and the process holds one chunk
at a time. Two routes:

- ``partial_fit``: each learner (Perceptron, AveragedPerceptron, PegasosSVC, and
  VotedPerceptron without and with a budget ``max_vectors``) gets every chunk in turn, in
  this process; the CPU time of the ``partial_fit`` calls alone is summed per million rows
  (CPU time, so that the waits of a busy machine are not counted), and the resident memory
  (RSS, ``/proc/self/statm``) and the bytes of the model's arrays are read after every
  chunk (``--learners`` runs some of them only: one per process gives RSS of its own);
- the CLI: the same rows written once as an svmlight file (to --cache-dir, else
  ``$HALFSPACES_BENCH_CACHE``, else ``~/.cache/halfspaces-bench``; never the repository), then
  ``halfspaces train FILE --algo perceptron --no-shuffle --max-iter 1``, which streams the
  file in blocks (a pass that finds the columns and classes, then the training pass; a file
  of more than two classes adds a pass that counts the training accuracy). A sampler reads
  the process's RSS, CPU time and position in the file (``/proc/PID/fdinfo``) every
  --sample-seconds; the CPU time of each million
  rows is that between the samples where the position crosses its first and last row's
  byte offsets (so a rate is exact to about a sample's share of a million's time).

Reported: per learner and route, RSS per million rows, the growth of RSS after the first
million (the criterion: flat within 10%), and rows/s per million rows with the ratio of the
slowest to the median (no drift). Every sample goes to ``results/soak-ROWS-ROUTES.csv``.
Then, with --budget-accuracy, the effect of the budget on the bundled a9a (train on the
32,561 rows, test on the 16,281 held out, 10 shuffled epochs) for several budgets.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_sparse_planted  # noqa: E402

HERE = Path(__file__).resolve().parent
MILLION = 1_000_000
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process, in MB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE / 1e6
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def chunks(rows: int, chunk_rows: int, features: int, nnz: int):
    """The stream: CSR chunks labelled by one planted u (y in {-1, +1}, 5% flipped)."""
    u = np.random.default_rng(12345).standard_normal(features)
    for i, lo in enumerate(range(0, rows, chunk_rows)):
        X, _ = make_sparse_planted(min(chunk_rows, rows - lo), features, nnz,
                                   random_state=1000 + i)
        X.data = np.round(X.data, 4)  # short, exact lines in the CLI's file
        y = np.where(X @ u >= 0.0, 1.0, -1.0)
        flip = np.random.default_rng(2000 + i).random(y.size) < 0.05
        y[flip] = -y[flip]
        yield X, y


LEARNERS = ("perceptron", "averaged", "pegasos", "voted", "voted-budget")


def learners(budget: int, names=LEARNERS):
    """``{shown name: estimator}`` of the learners named (keys of LEARNERS)."""
    from halfspaces import AveragedPerceptron, PegasosSVC, Perceptron, VotedPerceptron

    made = {
        "perceptron": ("Perceptron", Perceptron()),
        "averaged": ("AveragedPerceptron", AveragedPerceptron()),
        "pegasos": ("PegasosSVC(lam=1e-4)", PegasosSVC(lam=1e-4, random_state=0)),
        "voted": ("VotedPerceptron", VotedPerceptron()),
        "voted-budget": (f"VotedPerceptron(max_vectors={budget})",
                         VotedPerceptron(max_vectors=budget)),
    }
    return dict(made[name] for name in names)


def per_step(points: list[tuple[int, float, float]], step: int) -> list[tuple[int, float, float]]:
    """``(rows, seconds, rss)`` samples to ``(rows, seconds since the previous line, rss)``,
    one line per ``step`` rows (and one for a last partial step)."""
    out, last_rows, last_t = [], 0, 0.0
    for rows, t, rss in points:
        if rows // step > last_rows // step or rows == points[-1][0]:
            out.append((rows, t - last_t, rss))
            last_rows, last_t = rows, t
    return out


def report(name: str, table: list[tuple[int, float, float]], later_rss: list[float]) -> dict:
    """Print one route's table and verdicts (``later_rss``: every RSS sample taken after the
    table's first line); return its summary."""
    print(f"\n{name}")
    print(f"  {'rows':>11s} {'rows/s':>10s} {'RSS MB':>9s}")
    rates = []
    prev = 0
    for rows, seconds, rss in table:
        rate = (rows - prev) / seconds if seconds > 0 else float("nan")
        rates.append(rate)
        prev = rows
        print(f"  {rows:>11,d} {rate:>10,.0f} {rss:>9.1f}")
    first = table[0][2]
    peak = max([first, *later_rss])
    growth = (peak - first) / first
    median = statistics.median(rates)
    slowest = min(rates[:-1] or rates)  # a last partial step may be short
    print(f"  RSS after the first {table[0][0]:,d} rows: {first:.1f} MB; peak after it"
          f" {peak:.1f} MB: {100 * growth:+.1f}% ({'flat' if growth <= 0.10 else 'GROWS'}"
          " within 10%)")
    half = len(rates) // 2
    drift = statistics.median(rates[half:]) / statistics.median(rates[:half] or rates)
    print(f"  rows/s: median {median:,.0f}, slowest step {slowest:,.0f}"
          f" ({slowest / median:.2f} of the median; first {rates[0]:,.0f}, last"
          f" {rates[-1]:,.0f}); median of the second half / the first: {drift:.2f}")
    return {"name": name, "rss_first": first, "rss_peak": peak, "growth": growth,
            "median_rate": median, "slowest_ratio": slowest / median, "drift": drift}


def soak_partial_fit(args, samples: list[dict]) -> list[dict]:
    from halfspaces import Perceptron

    # compile the kernels (numba's cache) before any timing
    for est in (*learners(args.budget, args.learners).values(), Perceptron()):
        X, y = next(chunks(200, 200, args.features, args.nnz))
        est.partial_fit(X, y, classes=[-1.0, 1.0]).decision_function(X[:2])
    summaries = []
    for name, est in learners(args.budget, args.learners).items():
        points, spent, rows, model_mb = [], 0.0, 0, []
        start = time.perf_counter()
        for X, y in chunks(args.rows, args.chunk_rows, args.features, args.nnz):
            t0 = time.process_time()  # CPU time: a busy machine's waits are not counted
            est.partial_fit(X, y, classes=[-1.0, 1.0])
            spent += time.process_time() - t0
            rows += y.size
            del X, y
            rss = rss_mb()
            points.append((rows, spent, rss))
            model_mb.append(sum(v.nbytes for v in vars(est).values()
                                if isinstance(v, np.ndarray)) / 1e6)
            samples.append({"route": f"partial_fit {name}", "seconds": time.perf_counter() -
                            start, "rows": rows, "rss_mb": rss, "model_mb": model_mb[-1]})
        route = f"partial_fit {name} (rows per CPU second)"
        table = per_step(points, args.report_rows)
        summary = report(route, table, [rss for r, _, rss in points if r >= table[0][0]])
        ends = {t[0] for t in table}
        print("  the model's arrays, MB, at each line: " + ", ".join(
            f"{m:.1f}" for (r, _, _), m in zip(points, model_mb, strict=True) if r in ends))
        stored = getattr(est, "vote_counts_", None)
        if stored is not None:
            print(f"  vectors voting: {stored.size:,d}; mistake rows stored:"
                  f" {est.mistake_data_.size:,d} non-zeros")
        summaries.append(summary)
        del est
    return summaries


def write_file(path: Path, args) -> list[int]:
    """Write the stream as svmlight text once (scikit-learn's compiled writer); the byte
    offset of the end of every --report-rows rows (a multiple of --chunk-rows)."""
    from sklearn.datasets import dump_svmlight_file

    offsets_path = path.with_suffix(".offsets")
    if path.exists() and offsets_path.exists():
        print(f"(reusing {path})")
        return [int(v) for v in offsets_path.read_text().split()]
    start, offsets, rows = time.perf_counter(), [], 0
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        for X, y in chunks(args.rows, args.chunk_rows, args.features, args.nnz):
            dump_svmlight_file(X, y, f, zero_based=False)
            rows += y.size
            if rows % args.report_rows == 0:
                offsets.append(f.tell())
    os.replace(tmp, path)
    offsets_path.write_text(" ".join(map(str, offsets)))
    print(f"(wrote {path}: {offsets[-1] / 1e9:.2f} GB in {time.perf_counter() - start:.0f} s)")
    return offsets


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its threads so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0


def _position(pid: int, target: str) -> int | None:
    """Where process ``pid`` is reading ``target``, from /proc (None: not open now)."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                        return int(f.readline().split()[1])
            except OSError:
                continue
    except OSError:
        return None
    return None


def soak_cli(args, samples: list[dict]) -> list[dict]:
    folder = Path(args.cache_dir or os.environ.get("HALFSPACES_BENCH_CACHE")
                  or Path.home() / ".cache" / "halfspaces-bench")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"soak-{args.rows}x{args.features}x{args.nnz}-{args.report_rows}.svm"
    offsets = write_file(path, args)
    model = folder / "soak.model"
    command = [sys.executable, "-m", "halfspaces", "train", str(path), "--algo", "perceptron",
               "--no-shuffle", "--max-iter", "1", "-o", str(model)]
    print(f"\n$ halfspaces {' '.join(command[3:])}")
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    target, passes, last_pos = str(path.resolve()), [[]], 0
    stop = threading.Event()

    def sample():
        nonlocal last_pos
        while not stop.is_set():
            t, pos, rss = time.perf_counter() - start, _position(proc.pid, target), \
                rss_mb(proc.pid)
            if pos is not None:
                if pos < last_pos:  # the file was opened again: the next pass
                    passes.append([])
                last_pos = pos
                passes[-1].append((pos, cpu_seconds(proc.pid), rss, t))
            samples.append({"route": "cli", "seconds": t, "rows": -1 if pos is None else pos,
                            "rss_mb": rss})
            stop.wait(args.sample_seconds)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = proc.communicate()[0].decode(errors="replace")
    stop.set()
    sampler.join()
    print(f"  exit status {proc.returncode} after {time.perf_counter() - start:.0f} s;"
          f" its last lines: {out.strip().splitlines()[-2:]}")
    summaries = []
    names = ["survey pass", "training pass", "accuracy pass"]
    for k, trace in enumerate(passes):
        if not trace:
            continue
        table, prev_t, m = [], trace[0][1], 0
        for pos, t, rss, _ in trace:  # the first sample at or past a step's offset
            crossed = m
            while m < len(offsets) and pos >= offsets[m]:
                m += 1
            if m > crossed:
                table.append((m * args.report_rows, t - prev_t, rss))
                prev_t = t
        name = f"cli {names[k] if k < len(names) else f'pass {k + 1}'} (rows per CPU second)"
        for s in samples:
            if s["route"] == "cli" and trace[0][3] <= s["seconds"] <= trace[-1][3]:
                s["route"] = name
        if len(table) >= 2:
            summaries.append(report(name, table, [rss for pos, _, rss, _ in trace
                                                  if pos >= offsets[0]]))
    return summaries


def budget_accuracy(budgets: list[int | None]) -> None:
    from halfspaces import VotedPerceptron
    from halfspaces.datasets import load_a9a

    X, y = load_a9a("train")
    X_test, y_test = load_a9a("test")
    print("\nVotedPerceptron budget on a9a (10 shuffled epochs, random_state=0): test accuracy,"
          " vectors kept, fit and predict time")
    for budget in budgets:
        clf = VotedPerceptron(max_iter=10, random_state=0, max_vectors=budget)
        t0 = time.perf_counter()
        clf.fit(X, y)
        t1 = time.perf_counter()
        accuracy = clf.score(X_test, y_test)
        t2 = time.perf_counter()
        print(f"  max_vectors={str(budget):>6s}  accuracy {accuracy:.4f}  vectors"
              f" {clf.vote_counts_.size:>7,d}  fit {t1 - t0:6.2f} s  predict"
              f" {t2 - t1:6.2f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10 * MILLION)
    parser.add_argument("--chunk-rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=10_000)
    parser.add_argument("--nnz", type=int, default=10, help="non-zeros per row (about)")
    parser.add_argument("--budget", type=int, default=1000,
                        help="max_vectors of the budgeted VotedPerceptron")
    parser.add_argument("--report-rows", type=int, default=MILLION,
                        help="rows per line of the tables (throughput and RSS)")
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=LEARNERS,
                        help="the learners of the partial_fit route")
    parser.add_argument("--sample-seconds", type=float, default=0.5)
    parser.add_argument("--cache-dir")
    parser.add_argument("--no-partial-fit", action="store_true")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--no-budget-accuracy", action="store_true")
    args = parser.parse_args(argv)
    print(f"soak: {args.rows:,d} rows in chunks of {args.chunk_rows:,d}, {args.features:,d}"
          f" columns, about {args.nnz} non-zeros per row, 5% label noise")
    warnings_off()
    samples: list[dict] = []
    if not args.no_partial_fit:
        soak_partial_fit(args, samples)
    if not args.no_cli:
        soak_cli(args, samples)
    if not args.no_budget_accuracy:
        budget_accuracy([None, 10_000, 1_000, 100, 10, 1])
    fitted = "partial_fit" + ("" if tuple(args.learners) == LEARNERS
                              else "-" + "-".join(args.learners))
    routes = [r for r, off in ((fitted, args.no_partial_fit), ("cli", args.no_cli)) if not off]
    if samples:
        out = HERE / "results" / f"soak-{args.rows}-{'-'.join(routes)}.csv"
        out.parent.mkdir(exist_ok=True)
        with open(out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["route", "seconds", "rows", "rss_mb",
                                               "model_mb"])
            writer.writeheader()
            writer.writerows(samples)
        print(f"\n(samples: {out.relative_to(HERE.parent)}; rows of the CLI routes are byte"
              " positions in the file)")
    return 0


def warnings_off() -> None:
    """The one-pass fits warn that they did not converge: on purpose here."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message=".*majority class.*")


if __name__ == "__main__":
    sys.exit(main())
