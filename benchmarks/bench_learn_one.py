"""One example at a time from Python: ``predict_one`` then ``learn_one``, against River.

    python benchmarks/bench_learn_one.py            # 20,000 rounds per set, 7 repeats
    python benchmarks/bench_learn_one.py --quick    # 2,000 rounds, 5 repeats

Each round predicts example t, then learns it, one call each, from a Python loop (the
protocol a stream processor drives). Contenders, on the same rows in the same order:

- River's ``linear_model.Perceptron`` on dict rows ``{column: value}`` (its native input);
- our ``Perceptron`` on NumPy rows (1-D float64 views of the rows of ``X``);
- our ``Perceptron`` on the same dict rows as River's (``{int column: value}``);
- our ``Perceptron`` on dict rows keyed by feature names (``{"f3": value}``: the
  vocabulary).

Data: an ijcnn1-shaped set (22 dense features, ``_ijcnn1_like``) and a9a's rows (123
binary features, 14 non-zeros a row; the dicts hold the non-zeros, the NumPy rows are
dense). Dicts and rows are built before timing. The contenders of a set run round-robin,
one run each per repeat (``time_interleaved``); reported: median rounds/s and the ratio to
River (> 1 is faster). Our learners start from ``learn_one(..., classes=[-1, 1])`` on the
first row, untimed; compilation happens before timing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Timing, load_average, time_interleaved  # noqa: E402
from _ijcnn1_like import ijcnn1_like  # noqa: E402


def rounds(model, rows, y, learn_label):
    def run():
        for x, t in zip(rows, y, strict=True):
            model.predict_one(x)
            model.learn_one(x, learn_label(t))
    return run


def bench_set(name: str, X: np.ndarray, y: np.ndarray, repeats: int) -> list[str]:
    import river.linear_model as rl

    from halfspaces import Perceptron

    dense = list(X)
    dicts = [{j: float(v) for j, v in zip(np.flatnonzero(r).tolist(), r[r != 0].tolist(),
                                          strict=True)} for r in X]
    named = [{f"f{j}": v for j, v in d.items()} for d in dicts]
    y = y.tolist()
    made: dict[str, object] = {}

    def fresh(key, make, first):
        def setup():
            made[key] = m = make()
            if first is not None:
                m.learn_one(first[0], y[0], classes=[-1, 1])
        return setup

    contenders = {
        "River Perceptron, dict rows": (dicts, rl.Perceptron, None, lambda t: t == 1),
        "ours Perceptron, NumPy rows": (dense, Perceptron, dense, lambda t: t),
        "ours Perceptron, dict rows": (dicts, Perceptron, dicts, lambda t: t),
        "ours Perceptron, named dict rows": (named, Perceptron, named, lambda t: t),
    }
    calls = {}
    for key, (rows, make, first, label) in contenders.items():
        setup = fresh(key, make, first)

        def fn(key=key, rows=rows, label=label):
            rounds(made[key], rows, y, label)()
        calls[key] = (fn, setup)
        setup()
        fn()  # warm-up: compile, first-call costs
    timings: dict[str, Timing] = time_interleaved(calls, repeats)
    river = timings["River Perceptron, dict rows"].median
    lines = [f"{name}: {X.shape[0]} rounds x {X.shape[1]} features, median of {repeats}"]
    for key, t in timings.items():
        lines.append(f"  {key:<36s} {X.shape[0] / t.median:10,.0f} rounds/s"
                     f"   x{river / t.median:5.2f} River   (s: {t.line()})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n, repeats = (2000, 5) if args.quick else (args.rounds, args.repeats)
    from halfspaces.datasets import load_a9a

    print(load_average())
    X, y = ijcnn1_like(n)
    for line in bench_set("ijcnn1-shaped", X, y, repeats):
        print(line, flush=True)
    Xa, ya = load_a9a()
    Xa = Xa[:n].toarray().astype(np.float64)
    ya = np.where(np.asarray(ya[:n]) > 0, 1, -1)
    for line in bench_set("a9a", Xa, ya, repeats):
        print(line, flush=True)
    print(load_average())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
