"""One-vs-rest in threads: each learner with ``n_jobs=k`` against ``n_jobs=1``.

Run: ``python benchmarks/bench_ovr_threads.py [--rows 50000] [--vocabulary 20000]
[--words 60] [--classes 10] [--jobs 2] [--repeats 3] [--C 0.1] [--kernel-rows 3000]
[--models svc perceptron averaged pegasos logistic logistic-sgd kernel-perceptron
kernel-pegasos]``.

The learners: ``SVC(solver="dcd")`` (one DCD solve per class), the perceptron and the
averaged perceptron (``max_iter=10`` passes, each running the classes' compiled passes in
threads), ``PegasosSVC`` (10 epochs, the same), ``LogisticRegression`` (one L-BFGS-B per
class, ``max_iter=30``: only the compiled evaluations of ``J`` run in parallel, SciPy's
L-BFGS-B update holds the GIL) and its ``solver="sgd"`` (10 epochs); the kernel learners
(RBF kernel, ``gamma="scale"``) ``KernelPerceptron`` (``max_iter=10`` passes) and
``KernelPegasosSVC`` (10 epochs) on the first ``--kernel-rows`` rows (their Gram matrix is
computed once, in one thread, then the classes' passes over it run in threads).

The data is a generated bag of words: each of ``--classes`` topics draws its ``--words``
words per document (Poisson counts, on average) half from its own block of the vocabulary and
half from the whole of it, so the classes overlap. The ``n_jobs=1`` and ``n_jobs=k`` fits
alternate (after an untimed warm-up: numba compile); the script prints the median wall and
process CPU time of each and their ratios, and checks that the two models are equal bit for
bit (every fitted array). The speed-up is bounded by the cores that are free: on a shared
machine the wall-time ratio is what the threads gained there, the CPU ratio the overhead
they cost; the load average is printed before and after each learner.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average  # noqa: E402

from halfspaces import (  # noqa: E402
    SVC,
    AveragedPerceptron,
    KernelPegasosSVC,
    KernelPerceptron,
    LogisticRegression,
    PegasosSVC,
    Perceptron,
)

LEARNERS = {
    "svc": lambda args, jobs: SVC(C=args.C, solver="dcd", random_state=0, n_jobs=jobs),
    "perceptron": lambda args, jobs: Perceptron(max_iter=10, random_state=0, n_jobs=jobs),
    "averaged": lambda args, jobs: AveragedPerceptron(max_iter=10, random_state=0,
                                                      n_jobs=jobs),
    "pegasos": lambda args, jobs: PegasosSVC(max_iter=10, random_state=0, n_jobs=jobs),
    "logistic": lambda args, jobs: LogisticRegression(C=args.C, max_iter=30, n_jobs=jobs),
    "logistic-sgd": lambda args, jobs: LogisticRegression(C=args.C, solver="sgd", max_iter=10,
                                                          random_state=0, n_jobs=jobs),
    "kernel-perceptron": lambda args, jobs: KernelPerceptron(max_iter=10, random_state=0,
                                                             n_jobs=jobs),
    "kernel-pegasos": lambda args, jobs: KernelPegasosSVC(max_iter=10, random_state=0,
                                                          n_jobs=jobs),
}
#: The learners that keep an n x n Gram matrix: fitted on the first --kernel-rows rows.
KERNEL_LEARNERS = ("kernel-perceptron", "kernel-pegasos")


def bag_of_words(n: int, d: int, words: int, n_classes: int, seed: int = 0):
    """``(X, y)``: CSR word counts (float64) and labels 0 .. n_classes - 1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n)
    block = d // n_classes
    lengths = rng.poisson(words, size=n)
    own = rng.random(lengths.sum()) < 0.5
    topic = np.repeat(y, lengths)
    cols = np.where(own, topic * block + rng.integers(block, size=own.size),
                    rng.integers(d, size=own.size))
    rows = np.repeat(np.arange(n), lengths)
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    return X, y


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def same_model(a, b) -> bool:
    """Whether every fitted array of ``a`` and ``b`` is the same, byte for byte."""
    def raw(value) -> bytes:  # sparse support vectors as their dense rows
        return (value.toarray() if sp.issparse(value) else value).tobytes()

    arrays = [name for name, value in vars(a).items()
              if name.endswith("_") and (isinstance(value, np.ndarray) or sp.issparse(value))]
    return all(raw(vars(a)[name]) == raw(vars(b)[name]) for name in arrays)


def compare(name: str, args, X, y) -> bool:
    """Time ``n_jobs=1`` against ``n_jobs=args.jobs`` for one learner; print the lines."""
    if name in KERNEL_LEARNERS:
        X, y = X[: args.kernel_rows], y[: args.kernel_rows]
    models = {jobs: LEARNERS[name](args, jobs) for jobs in (1, args.jobs)}
    for model in models.values():
        model.fit(X[:200], y[:200])  # warm-up: numba compile
    times: dict[int, list[tuple[float, float]]] = {jobs: [] for jobs in models}
    before = load_average()
    for _ in range(args.repeats):
        for jobs, model in models.items():
            times[jobs].append(timed(lambda m=model: m.fit(X, y)))
    print(f"{type(models[1]).__name__} ({name}); before: {before}")
    for jobs, runs in times.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"  n_jobs={jobs}: wall {wall:7.2f} s   CPU {cpu:7.2f} s   (runs, wall:"
              f" {', '.join(f'{w:.2f}' for w, _ in runs)})")
    base, par = times[1], times[args.jobs]
    speed = statistics.median(a[0] / b[0] for a, b in zip(base, par, strict=True))
    cost = statistics.median(b[1] / a[1] for a, b in zip(base, par, strict=True))
    print(f"  speed-up (wall, n_jobs=1 / n_jobs={args.jobs}, paired median): {speed:.2f}x;"
          f" CPU n_jobs={args.jobs} / n_jobs=1: {cost:.2f}")
    same = same_model(models[1], models[args.jobs])
    print(f"  models equal bit for bit: {same}; n_iter_ {models[1].n_iter_}; after:"
          f" {load_average()}")
    return same


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50000)
    parser.add_argument("--vocabulary", type=int, default=20000)
    parser.add_argument("--words", type=int, default=60)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--C", type=float, default=0.1)
    parser.add_argument("--kernel-rows", type=int, default=3000)
    parser.add_argument("--models", nargs="+", choices=list(LEARNERS), default=list(LEARNERS))
    args = parser.parse_args(argv)
    X, y = bag_of_words(args.rows, args.vocabulary, args.words, args.classes)
    print(f"bag of words: {X.shape[0]} x {X.shape[1]}, nnz {X.nnz}, {args.classes} classes;"
          f" n_jobs=1 against n_jobs={args.jobs}; {load_average()}; cpu_count"
          f" {os.cpu_count()}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not separable, max_iter reached: by design here
        same = [compare(name, args, X, y) for name in args.models]
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main())
