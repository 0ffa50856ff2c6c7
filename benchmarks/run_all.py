"""Run every benchmark in one go and keep its output in benchmarks/results/.

Usage::

    python benchmarks/run_all.py                    # full sizes (hours on 2 busy cores)
    python benchmarks/run_all.py --size reduced     # the 1M-row sets at 200,000 rows
    python benchmarks/run_all.py --quick            # small sizes: a smoke test of every script
    python benchmarks/run_all.py --only bench_svc_1m bench_file_to_model

Every figure of the benchmarks page (docs/benchmarks.md) comes from one of the named runs; its
output goes to ``results/NAME.txt`` (full size), ``results/NAME-reduced.txt`` or
``results/NAME-quick.txt`` (not kept in git); the first line of each file gives the time its
run took. Each script compares halfspaces with its peers (scikit-learn, LIBLINEAR, LIBSVM,
River, Vowpal Wabbit) in the same run, alternating the contenders, so the ratios it prints
are meaningful on a shared machine; absolute times are not. The header of every results file
records the machine, the Python and library versions, the halfspaces source measured (its
folder and git commit), the load average before and after the run, and the BLAS threads: the
scripts run with one BLAS/OpenMP thread (``OMP_NUM_THREADS=1`` and friends, unless already
set), as every compiled pass here and LIBLINEAR are single-threaded, and oversubscribed BLAS
threads on a busy machine slowed scikit-learn's L-BFGS tenfold in our runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shlex
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZES = ("full", "reduced", "quick")
_1M = ["--generated", "1000000", "100000", "80"]  # the default of the scripts, for clarity
_200K = ["--generated", "200000", "100000", "80"]
_SVC_1M = ["--datasets", "synthetic", "--nnz-per-row", "80", "--precision", "0", "--no-qp"]
_UNTUNED = ["--contenders", "main", "--datasets", "mushrooms", "rcv1_small", "sms_spam",
            "diabetes", "dense:50000x500:0.2", "sparse:100000x1000000x10:0.1",
            "sparse:20000x2000x400:0.05"]
# name: (script, {size: arguments}); a size left out runs the full arguments.
RUNS: dict[str, tuple[str, dict[str, list[str]]]] = {
    "bench_perceptron": ("bench_perceptron", {
        "full": [], "reduced": ["--sparse-rows", "200000"], "quick": ["--quick"]}),
    "bench_svc": ("bench_svc", {
        "full": [], "quick": ["--quick", "--datasets", "reuters", "synthetic", "--synthetic",
                              "20000x10000", "--repeats", "1", "--qp-rows", "1000"]}),
    "bench_svc_small": ("bench_svc_small", {
        "full": [], "quick": ["--repeats", "1", "--inner", "1"]}),
    "bench_svc_liblinear": ("bench_svc_liblinear", {"full": [], "quick": ["--quick"]}),
    "bench_kernel_svc": ("bench_kernel_svc", {
        "full": ["--rows", "6000", "30000"], "quick": ["--rows", "1000", "--repeats", "1"]}),
    "bench_kernel_svc_100k": ("bench_kernel_svc", {
        "full": ["--rows", "100000", "--repeats", "1"],
        "quick": ["--rows", "2000", "--repeats", "1"]}),
    "bench_kernel_online": ("bench_kernel_svc", {
        "full": ["--online", "--rows", "30000", "--repeats", "1"],
        "quick": ["--online", "--rows", "1000", "--repeats", "1"]}),
    "bench_svc_1m": ("bench_svc", {
        "full": [*_SVC_1M, "--synthetic", "1000000x100000", "--repeats", "3"],
        "reduced": [*_SVC_1M, "--synthetic", "200000x100000", "--repeats", "3"],
        "quick": [*_SVC_1M, "--synthetic", "20000x10000", "--repeats", "1"]}),
    "bench_ovr_threads": ("bench_ovr_threads", {
        "full": [], "quick": ["--rows", "3000", "--vocabulary", "2000", "--repeats", "1"]}),
    "bench_cv": ("bench_cv", {
        "full": [], "quick": ["--sets", "ijcnn1-like", "--rows", "3000", "--repeats", "1"]}),
    "bench_svc_warm_path": ("bench_svc_warm_path", {
        "full": [], "quick": ["--rows", "1000", "--vocabulary", "500"]}),
    "bench_pegasos": ("bench_pegasos", {
        "full": _1M, "reduced": _200K,
        "quick": ["--datasets", "diabetes", "generated", "--generated", "20000", "10000", "20",
                  "--seeds", "1", "--repeat", "1", "--max-epochs", "20"]}),
    "bench_pegasos_lam1e-4": ("bench_pegasos", {
        "full": ["--lam", "1e-4", *_1M], "reduced": ["--lam", "1e-4", *_200K],
        "quick": ["--lam", "1e-4", "--datasets", "generated", "--generated", "5000", "2000",
                  "20", "--seeds", "1", "--repeat", "1", "--max-epochs", "20"]}),
    "bench_pegasos_untuned": ("bench_pegasos", {
        "full": _UNTUNED,
        "quick": ["--contenders", "main", "--datasets", "diabetes", "rcv1_small", "sms_spam",
                  "dense:2000x50:0.2", "sparse:5000x100000x10:0.1", "--seeds", "1",
                  "--repeat", "1", "--max-epochs", "20"]}),
    "bench_logistic": ("bench_logistic", {
        "full": _1M, "reduced": _200K,
        "quick": ["--datasets", "a9a", "generated", "--generated", "20000", "10000", "20",
                  "--repeat", "1"]}),
    "bench_logistic_n_jobs": ("bench_logistic_n_jobs", {
        "full": [], "reduced": ["--generated", "200000", "100000", "80"],
        "quick": ["--generated", "20000", "10000", "20", "--repeats", "1"]}),
    "bench_svmlight": ("bench_svmlight", {"full": [], "quick": ["--repeat", "1"]}),
    "bench_many_classes": ("bench_many_classes", {"full": [], "quick": ["--repeats", "1"]}),
    "bench_calibration": ("bench_calibration", {"full": [], "quick": ["--rows", "1000"]}),
    "bench_experts_kernel": ("bench_experts_kernel", {
        "full": [], "quick": ["--quick", "--repeats", "1"]}),
    "bench_online": ("bench_online", {"full": [], "quick": ["--quick"]}),
    "bench_learn_one": ("bench_learn_one", {"full": [], "quick": ["--quick"]}),
    "bench_dask": ("bench_dask", {"full": [], "quick": ["--quick"]}),
    "bench_dask_round": ("bench_dask_round", {"full": [], "quick": ["--quick"]}),
    "bench_io": ("bench_io", {
        "full": [], "reduced": ["--rows", "100000", "--scaling-rows", "100000", "300000"],
        "quick": ["--rows", "2000", "--cols", "1000", "--nnz", "10", "--repeat", "1",
                  "--scaling-rows", "1000", "3000", "--sections", "loader", "parallel",
                  "cache", "scaling"]}),
    "bench_startup": ("bench_startup", {"full": [], "quick": ["--rounds", "3"]}),
    "bench_portable": ("bench_portable", {"full": [], "quick": ["--quick", "--repeats", "1"]}),
    "bench_file_to_model": ("bench_file_to_model", {
        "full": [], "reduced": ["--rows", "100000"], "quick": ["--quick"]}),
    "bench_soak": ("bench_soak", {
        "full": [], "reduced": ["--rows", "2000000", "--report-rows", "200000"],
        "quick": ["--rows", "200000", "--chunk-rows", "10000", "--report-rows", "50000",
                  "--no-budget-accuracy"]}),
}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def versions() -> str:
    found = []
    for package in ("halfspaces", "numpy", "scipy", "numba", "scikit-learn", "clarabel",
                    "vowpalwabbit", "river"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} (not installed)")
    return ", ".join(found)


def source() -> str:
    """Where the measured ``halfspaces`` is imported from, with its git commit when known."""
    spec = importlib.util.find_spec("halfspaces")
    if spec is None or spec.origin is None:
        return "halfspaces not importable"
    folder = Path(spec.origin).parent
    git = subprocess.run(["git", "-C", str(folder), "describe", "--always", "--dirty"],
                         capture_output=True, text=True)
    commit = git.stdout.strip() if git.returncode == 0 else "not in a git checkout"
    return f"halfspaces from {folder} (commit {commit})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="full",
                        help="full (the README's sizes), reduced (1M-row sets at 200,000"
                             " rows, the file benchmark at 100,000) or quick (a smoke test)")
    parser.add_argument("--quick", action="store_true", help="the same as --size quick")
    parser.add_argument("--only", nargs="+", choices=sorted(RUNS), help="run these only")
    args = parser.parse_args(argv)
    size = "quick" if args.quick else args.size
    env = dict(os.environ)
    for variable in THREAD_VARIABLES:
        env.setdefault(variable, "1")
    threads = ", ".join(f"{v}={env[v]}" for v in THREAD_VARIABLES)
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    failed = []
    for name in args.only or RUNS:
        script, sizes = RUNS[name]
        arguments = sizes.get(size, sizes["full"])
        command = [sys.executable, str(HERE / f"{script}.py"), *arguments]
        shown = f"python benchmarks/{script}.py {shlex.join(arguments)}".rstrip()
        print(f"== {name} ({size}): {shown}", flush=True)
        started, load_before = time.time(), load_average()
        run = subprocess.run(command, capture_output=True, text=True, env=env)
        text = (
            f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}; run {name!r},"
            f" size {size}; {time.time() - started:.0f} s\n"
            f"# {platform.machine()}, {os.cpu_count()} CPUs, {platform.processor() or 'cpu'};"
            f" Python {platform.python_version()}; {threads}\n"
            f"# {versions()}\n# {source()}\n"
            f"# before: {load_before}\n# after:  {load_average()}\n"
            f"# command: {shown}\n\n"
        )
        text += run.stdout + (run.stderr if run.returncode else "")
        print(run.stdout, end="", flush=True)
        if run.returncode:
            print(run.stderr, end="", file=sys.stderr)
            failed.append(name)
        suffix = "" if size == "full" else f"-{size}"
        target = out_dir / f"{name}{suffix}.txt"
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
