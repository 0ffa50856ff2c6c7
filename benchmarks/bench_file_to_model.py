"""From a file to a model, as whole processes: halfspaces against Vowpal Wabbit.

    python benchmarks/bench_file_to_model.py                   # 400,000 x 100,000, 80 nnz/row
    python benchmarks/bench_file_to_model.py --rows 100000     # a reduced size
    python benchmarks/bench_file_to_model.py --quick           # 10,000 rows, a smoke run

What a user runs to train a linear classifier on a text file, timed from the shell: one
process per route, started under ``/usr/bin/time -v`` for its wall time, CPU time (user +
system; Vowpal Wabbit parses in a second thread) and peak resident memory. Each route runs
once untimed (numba's on-disk cache, VW's binary cache file and the page cache are then
filled, as for a user's second run), then --repeats rounds in which every route runs once,
in turn, so that all of them see about the same machine load; reported are the medians.

Data: ``make_sparse_planted(rows, features, nnz, noise=0.05, random_state=0)`` (the sparse
set of bench_perceptron: L2-normalised non-negative rows, a planted separator through the
origin, 5% of the labels flipped), written once to a cache folder (--cache-dir, else
``$HALFSPACES_BENCH_CACHE``, else ``~/.cache/halfspaces-bench``; never the repository) as
svmlight (``+1 4:0.5 ...``) and as VW text (``1 |f 4:0.5 ...``) with the same indices and the
same value strings (6 significant digits), and the first 1,000 rows as a small svmlight
file for ``predict``.

Routes (MODEL, PRED and VWMODEL are files in a temporary folder):

- ``halfspaces train FILE.svm --algo perceptron --max-iter 1 --no-fit-intercept --quiet
  -o MODEL``: our command line, one perceptron pass without offset (VW's
  ``--noconstant``), reading the whole file with ``load_svmlight``, then the training
  accuracy and the saved model;
- ``halfspaces train FILE.vw ...``: the same from the VW text file (our ``load_vw``, feature
  names hashed into 2^18 columns, as VW's ``-b 18``);
- Python stream: ``iter_svmlight(FILE.svm, chunk_rows=10000, n_features=d)`` feeding
  ``Perceptron(fit_intercept=False).partial_fit`` chunk by chunk, then ``.save`` (the script
  is printed with the results);
- Vowpal Wabbit from its text file: ``python -m vowpalwabbit -d FILE.vw --loss_function
  hinge --noconstant -b 18 --quiet -f VWMODEL`` (the ``vw`` binary instead when one is on
  the PATH); one online pass with VW's defaults (adaptive, normalised, invariant updates);
- Vowpal Wabbit from its binary cache: the same with ``--cache_file FILE.cache``, which VW
  reads instead of the text once it exists (it is made by the untimed first run);
- start-up references: ``halfspaces --help``, ``python -m vowpalwabbit --version`` and
  ``python -c "import numpy, scipy.sparse"``;
- ``halfspaces predict MODEL SMALL.svm -o PRED --quiet``: predicting 1,000 rows with the saved
  model (mostly start-up).

The two learners are not the same algorithm (a perceptron against VW's hinge-loss online
gradient), but both make one online pass over every row, so the times compare the cost of
getting from the file to a model. Ratios are ours / VW (below 1: we are faster).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, make_sparse_planted, write_text_formats  # noqa: E402

STREAM_SCRIPT = """\
import sys
from halfspaces import Perceptron
from halfspaces.datasets import iter_svmlight
path, n_features, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
clf = Perceptron(fit_intercept=False)
for X, y in iter_svmlight(path, chunk_rows=10_000, n_features=n_features):
    clf.partial_fit(X, y, classes=[-1.0, 1.0])
clf.save(out)
"""

TIME_FIELDS = {
    "user": r"User time \(seconds\): ([\d.]+)",
    "system": r"System time \(seconds\): ([\d.]+)",
    "wall": r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)",
    "rss_kb": r"Maximum resident set size \(kbytes\): (\d+)",
}


def cache_dir(given: str | None) -> Path:
    path = Path(given or os.environ.get("HALFSPACES_BENCH_CACHE")
                or Path.home() / ".cache" / "halfspaces-bench")
    path.mkdir(parents=True, exist_ok=True)
    return path


def make_files(folder: Path, rows: int, features: int, nnz: int) -> dict[str, Path]:
    """The svmlight, VW and 1,000-row files of the generated set; written once, then reused."""
    stem = f"planted-{rows}x{features}x{nnz}-noise5pct-seed0"
    files = {"svm": folder / f"{stem}.svm", "vw": folder / f"{stem}.vw",
             "small": folder / f"{stem}-first1000.svm", "cache": folder / f"{stem}.cache"}
    if all(files[k].exists() for k in ("svm", "vw", "small")):
        print(f"(reusing the files in {folder})")
        return files
    start = time.perf_counter()
    X, y = make_sparse_planted(rows, features, nnz, noise=0.05, random_state=0)
    tmp = {k: files[k].with_name(files[k].name + ".part") for k in ("svm", "vw", "small")}
    write_text_formats(X, y, tmp["svm"], tmp["vw"], value_format="%.6g")
    write_text_formats(X[:1000], y[:1000], tmp["small"], None, value_format="%.6g")
    for k, part in tmp.items():
        os.replace(part, files[k])  # complete files only: an interrupted run leaves no half file
    files["cache"].unlink(missing_ok=True)  # VW's cache of an older text file
    print(f"(wrote the files to {folder} in {time.perf_counter() - start:.1f} s)")
    return files


def vw_command() -> list[str]:
    binary = shutil.which("vw")
    return [binary] if binary else [sys.executable, "-m", "vowpalwabbit"]


def halfspaces_command() -> list[str]:
    script = Path(sys.executable).with_name("halfspaces")
    return [str(script)] if script.exists() else [sys.executable, "-m", "halfspaces"]


def routes(files: dict[str, Path], features: int, work: Path) -> dict[str, list[str]]:
    hs, vw = halfspaces_command(), vw_command()
    model, vw_opts = str(work / "model"), ["--loss_function", "hinge", "--noconstant", "-b",
                                           "18", "--quiet", "-f", str(work / "vw.model")]
    train = ["train", "--algo", "perceptron", "--max-iter", "1", "--no-fit-intercept",
             "--quiet"]
    stream = work / "stream_route.py"
    stream.write_text(STREAM_SCRIPT)
    return {
        "halfspaces train FILE.svm": [*hs, *train, str(files["svm"]), "-o", model],
        "halfspaces train FILE.vw": [*hs, *train, str(files["vw"]), "-o",
                                     str(work / "model_vw")],
        "Python iter_svmlight + partial_fit": [sys.executable, str(stream), str(files["svm"]),
                                               str(features), str(work / "model_stream")],
        "VW -d FILE.vw": [*vw, "-d", str(files["vw"]), *vw_opts],
        "VW --cache_file (binary cache)": [*vw, "-d", str(files["vw"]), "--cache_file",
                                           str(files["cache"]), *vw_opts],
        "halfspaces predict MODEL (1,000 rows)": [*hs, "predict", model, str(files["small"]),
                                                  "-o", str(work / "pred.txt"), "--quiet"],
        "halfspaces --help": [*hs, "--help"],
        "VW start-up (--version)": [*vw, "--version"],
        'python -c "import numpy, scipy.sparse"': [sys.executable, "-c",
                                                   "import numpy, scipy.sparse"],
    }


def run_timed(command: list[str]) -> dict[str, float]:
    """Run ``command`` under ``/usr/bin/time -v``; wall and CPU seconds, peak RSS in MB."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        proc = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *command],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        text = report.read()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(command)} exited with {proc.returncode}:\n"
                           f"{proc.stderr[-2000:]}")
    found = {key: re.search(pattern, text).group(1) for key, pattern in TIME_FIELDS.items()}
    wall = 0.0
    for part in found["wall"].split(":"):  # h:mm:ss or m:ss.cc
        wall = wall * 60 + float(part)
    return {"wall": wall, "cpu": float(found["user"]) + float(found["system"]),
            "rss": int(found["rss_kb"]) / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 rows, one round")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--nnz", type=int, default=80, help="non-zeros per row")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds")
    parser.add_argument("--cache-dir", default=None, help="where the data files are kept")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.repeats = 10_000, 1
    if not Path("/usr/bin/time").exists():
        print("[skip] /usr/bin/time (GNU time) is needed: apt-get install time")
        return 0
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        print("[skip] Vowpal Wabbit is not installed: pip install -e '.[bench]'")
        return 0

    print(f"bench_file_to_model: {args.rows:,} rows x {args.features:,} features,"
          f" {args.nnz} non-zeros per row, 5% label noise; median of {args.repeats} rounds;"
          f" {load_average()}")
    files = make_files(cache_dir(args.cache_dir), args.rows, args.features, args.nnz)
    for key in ("svm", "vw", "small"):
        print(f"  {key:5s} {files[key]}  {files[key].stat().st_size / 1e6:8.1f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        commands = routes(files, args.features, Path(tmp))
        for command in commands.values():  # untimed: caches of numba, VW and the page cache
            run_timed(command)
        runs: dict[str, list[dict]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, command in commands.items():
                runs[name].append(run_timed(command))
    med = {name: {key: statistics.median(r[key] for r in rs) for key in ("wall", "cpu", "rss")}
           for name, rs in runs.items()}
    text_vw, cache_vw = med["VW -d FILE.vw"]["wall"], med["VW --cache_file (binary cache)"]["wall"]
    print(f"\n  {'route':<40s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s}"
          f" {'/ VW text':>10s} {'/ VW cache':>11s}   wall of each round")
    for name, m in med.items():
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs[name])
        print(f"  {name:<40s} {m['wall']:8.2f} {m['cpu']:8.2f} {m['rss']:8.0f}"
              f" {m['wall'] / text_vw:10.2f} {m['wall'] / cache_vw:11.2f}   ({walls})")
    print("\n  wall and cpu (user + system) seconds and peak resident memory of the whole"
          " process, from /usr/bin/time -v; ratios: wall / VW's wall")
    print("  commands:")
    for name, command in commands.items():
        print(f"    {name}: {shlex.join(Path(c).name if '/' in c else c for c in command)}")
    print("  the Python stream route runs this script (argv: FILE.svm, n_features, MODEL):")
    print("".join(f"    | {line}\n" for line in STREAM_SCRIPT.splitlines()), end="")
    print(f"  {load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
