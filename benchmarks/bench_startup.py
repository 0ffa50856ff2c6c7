"""Start-up: ``halfspaces --help`` and ``halfspaces predict`` of 1,000 rows, whole processes.

Issue 9's target: ``predict`` of 1,000 rows with a saved linear model takes at most 3x the
wall time of ``python -c "import numpy, scipy.sparse"``. Each command below runs as a fresh
process, the commands alternating, round after round; the median of each is compared with
the baseline's. The data: the bundled a9a (123 features, 14 values a row), the models
trained on it, the first 1,000 rows of a9a.t written as a plain svmlight file. "usual path"
is the same predict through the estimator (numba and its compiled kernels imported; not
scikit-learn, which the estimators import only where they use it), as before the small-file
path existed. "import Perceptron, fit_file" is the floor of training from a file (no
scikit-learn since the estimators have their own base class).

Also the break-even size of the small reader (:mod:`halfspaces.datasets.small_svmlight`):
the imports that the small-file path saves, over its parse time per byte.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUNDLED = Path(__file__).resolve().parents[1] / "src" / "halfspaces" / "datasets" / "data"


def _files(folder: Path, rows: int) -> dict[str, Path]:
    """Models trained on a9a and the first ``rows`` rows of a9a.t, plain svmlight."""
    import halfspaces
    from halfspaces.datasets import load_svmlight

    test = folder / "a9a_test.svm"
    with gzip.open(BUNDLED / "a9a.t.gz", "rt") as f:
        test.write_text("".join(line for _, line in zip(range(rows), f, strict=False)))
    X, y = load_svmlight(BUNDLED / "a9a.gz", n_features=123, zero_based=False)
    files = {"data": test}
    for name, model in (("perceptron", halfspaces.Perceptron(random_state=0)),
                        ("svc", halfspaces.SVC(solver="dcd", random_state=0))):
        files[name] = folder / f"{name}.npz"
        halfspaces.save(model.fit(X, y), files[name],
                        metadata={"format": "svmlight", "zero_based": False,
                                  "n_features": 123})
    return files


def _commands(files: dict[str, Path], out: Path) -> dict[str, list[str]]:
    py = sys.executable
    usual = ("import sys; from halfspaces.datasets import small_svmlight;"
             " small_svmlight.SMALL_BYTES = 0; from halfspaces.cli import main;"
             " sys.exit(main(sys.argv[1:]))")
    predict = ["predict", "{model}", str(files["data"]), "-o", str(out)]
    return {
        'python -c "import numpy, scipy.sparse"': [py, "-c", "import numpy, scipy.sparse"],
        "halfspaces --help": [py, "-m", "halfspaces", "--help"],
        "import Perceptron, fit_file": [py, "-c", "from halfspaces import Perceptron;"
                                        " from halfspaces.datasets import fit_file"],
        "predict, Perceptron": [py, "-m", "halfspaces",
                                *[a.format(model=files["perceptron"]) for a in predict]],
        "predict, SVC (dcd)": [py, "-m", "halfspaces",
                               *[a.format(model=files["svc"]) for a in predict]],
        "predict, Perceptron, usual path": [py, "-c", usual,
                                            *[a.format(model=files["perceptron"])
                                              for a in predict]],
    }


def _time_processes(commands: dict[str, list[str]], rounds: int) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():  # alternating: the same load on each
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def _break_even(files: dict[str, Path], seconds: dict[str, list[float]], rounds: int) -> str:
    """The file size above which the usual predict (its imports of scikit-learn and numba
    paid, then the compiled reader) would beat the small reader."""
    from halfspaces.datasets.small_svmlight import SMALL_BYTES, read_small_svmlight

    path = files["data"]
    size = path.stat().st_size
    small = statistics.median(_timed(lambda: read_small_svmlight(path, zero_based=False))
                              for _ in range(rounds))
    saved = statistics.median(seconds["predict, Perceptron, usual path"]) \
        - statistics.median(seconds["predict, Perceptron"])
    even = saved / (small / size)
    return (f"small reader: {size / small / 1e6:.1f} MB/s; the small-file path saves"
            f" {saved:.2f} s of imports: break-even at about {even / 1e6:.0f} MB"
            f" (SMALL_BYTES = {SMALL_BYTES / 2**20:.0f} MiB)")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11, help="processes of each command")
    parser.add_argument("--rows", type=int, default=1000, help="rows predicted")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        files = _files(Path(tmp), args.rows)
        commands = _commands(files, Path(tmp) / "labels.txt")
        seconds = _time_processes(commands, args.rounds)
        baseline = statistics.median(next(iter(seconds.values())))
        print(f"whole processes, median of {args.rounds} alternating rounds;"
              f" {args.rows} rows of a9a.t ({files['data'].stat().st_size:,} bytes)")
        for name, values in seconds.items():
            median = statistics.median(values)
            runs = ", ".join(f"{v:.3f}" for v in values)
            print(f"  {name:<42s} {median:7.3f} s  {median / baseline:5.2f}x   ({runs})")
        print(_break_even(files, seconds, max(args.rounds // 2, 3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
