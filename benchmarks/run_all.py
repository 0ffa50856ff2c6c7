"""Run every benchmark in one go and keep its output in benchmarks/results/.

Usage::

    python benchmarks/run_all.py            # full sizes (several minutes)
    python benchmarks/run_all.py --quick    # small sizes, a smoke run

Each script compares halfspaces with its peers (scikit-learn, LIBLINEAR, LIBSVM) in the same
process, so the ratios it prints are meaningful on a shared machine; absolute times are not.
The header of every results file records the machine, Python and library versions.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = {
    # name: (full-size arguments, quick arguments)
    "bench_perceptron": ([], ["--quick"]),
    "bench_svc": ([], ["--quick"]),
    "bench_pegasos": ([], ["--datasets", "a9a", "--repeat", "1"]),
    "bench_pegasos_lam1e-4": (["--lam", "1e-4"], ["--datasets", "a9a", "--lam", "1e-4"]),
    "bench_logistic": ([], ["--datasets", "a9a", "--repeat", "3"]),
    "bench_svmlight": ([], ["--repeat", "2"]),
    "bench_experts_kernel": ([], ["--quick"]),
    "bench_online": ([], ["--quick"]),
    "bench_dask": ([], ["--quick"]),
}


def header() -> str:
    versions = []
    for package in ("halfspaces", "numpy", "scipy", "numba", "scikit-learn", "clarabel"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return (
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()},"
        f" {os.cpu_count()} CPUs, {platform.processor() or 'cpu'}; Python"
        f" {platform.python_version()}\n# " + ", ".join(versions) + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--only", nargs="+", choices=sorted(SCRIPTS), help="run these only")
    args = parser.parse_args(argv)
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    failed = []
    for name in args.only or SCRIPTS:
        full, quick = SCRIPTS[name]
        script = name.split("_lam")[0]  # bench_pegasos_lam1e-4: bench_pegasos, other args
        command = [sys.executable, str(HERE / f"{script}.py"), *(quick if args.quick else full)]
        print(f"== {' '.join(command[1:])}", flush=True)
        run = subprocess.run(command, capture_output=True, text=True)
        text = header() + f"# command: python benchmarks/{script}.py {' '.join(command[2:])}\n\n"
        text += run.stdout + (run.stderr if run.returncode else "")
        print(run.stdout, end="", flush=True)
        if run.returncode:
            print(run.stderr, end="", file=sys.stderr)
            failed.append(name)
        suffix = "-quick" if args.quick else ""
        target = out_dir / f"{name}{suffix}.txt"
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
