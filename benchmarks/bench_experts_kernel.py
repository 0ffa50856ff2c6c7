"""Halving, Weighted Majority and KernelPerceptron against vectorised NumPy peers.

    python benchmarks/bench_experts_kernel.py            # the full sizes (~1 GB RAM)
    python benchmarks/bench_experts_kernel.py --quick    # a small smoke run

No library ships these learners, so the peers are the fastest NumPy forms of the same
algorithms, written here from the update rules and checked to give the same answers:

- Halving over a precomputed (n, N) prediction matrix: the version space before round t is
  ``logical_and.accumulate(P == y)`` (fully vectorised, O(nN) memory);
- Weighted Majority: the weights before round t are ``beta^(m_{t-1,i} - min_j m_{t-1,j})``
  from ``cumsum(P != y)`` (fully vectorised, O(nN) float memory);
- KernelPerceptron (rbf): the dual loop with the score of each row as one NumPy dot over
  the current support set, over the same Gram matrix (Gram computed inside both timings).

Ratios are ours / peer (below 1: we are faster), medians of --repeats runs in one process,
ours and the peer alternating, after one untimed warm-up call of each (numba compilation,
caches).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ratio_line, time_interleaved  # noqa: E402

from halfspaces.experts import HalvingClassifier, WeightedMajorityClassifier  # noqa: E402
from halfspaces.kernel import KernelPerceptron  # noqa: E402
from halfspaces.kernels import gram  # noqa: E402


def numpy_halving(P, y):
    consistent = np.logical_and.accumulate(P == y[:, None], axis=0)
    before = np.vstack([np.ones((1, P.shape[1]), bool), consistent[:-1]])
    n_pos = np.sum(before & (P > 0), axis=1)
    size = before.sum(axis=1)
    scores = (2.0 * n_pos - size) / size
    return int(np.sum(y * scores <= 0)), consistent[-1]


def numpy_weighted_majority(P, y, beta):
    m = np.cumsum(P != y[:, None], axis=0)
    before = np.vstack([np.zeros((1, P.shape[1]), m.dtype), m[:-1]])
    w = beta ** (before - before.min(axis=1, keepdims=True)).astype(np.float64)
    scores = np.einsum("ti,ti->t", w, P) / w.sum(axis=1)
    return int(np.sum(y * scores <= 0)), m[-1]


def numpy_kernel_perceptron(X, y, gamma, max_iter):
    K = gram(X, X, "rbf", gamma, 3, 1.0)
    n = len(y)
    coef, b, support, per_epoch = np.zeros(n), 0.0, [], []
    for _ in range(max_iter):
        mistakes = 0
        for t in range(n):
            f = coef[support] @ K[support, t] + b if support else b
            if y[t] * f <= 0:
                if coef[t] == 0:
                    support.append(t)
                coef[t] += y[t]
                b += y[t]
                mistakes += 1
        per_epoch.append(mistakes)
        if mistakes == 0:
            break
    return per_epoch


def timed_pair(ours_name, ours_fn, peer_name, peer_fn, repeats):
    """Warm both up (compilation and first-touch costs are not what we measure), then time
    them alternately; return (ours, peer) Timings."""
    ours_fn()
    peer_fn()
    t = time_interleaved({ours_name: (ours_fn, None), peer_name: (peer_fn, None)}, repeats)
    return t[ours_name], t[peer_name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n, N = (20_000, 64) if args.quick else (200_000, 256)
    P = np.where(rng.random((n, N)) < 0.5, -1.0, 1.0)

    y = P[:, 17].copy()
    print(f"Halving, precomputed predictions, n={n}, N={N} (realizable)")
    ours, peer = timed_pair("ours: HalvingClassifier.fit",
                            lambda: HalvingClassifier("precomputed").fit(P, y),
                            "numpy: logical_and.accumulate", lambda: numpy_halving(P, y),
                            args.repeats)
    clf = HalvingClassifier("precomputed").fit(P, y)
    ref_mistakes, ref_V = numpy_halving(P, y)
    assert clf.n_mistakes_ == ref_mistakes and np.array_equal(clf.version_space_, ref_V)
    print(ours.line(), peer.line(), ratio_line("ours / numpy", ours, peer), sep="\n")

    noisy = P[:, 17] * np.where(rng.random(n) < 0.2, -1.0, 1.0)
    print(f"Weighted Majority, beta=0.5, n={n}, N={N}, 20% label noise")
    ours, peer = timed_pair("ours: WeightedMajorityClassifier.fit",
                            lambda: WeightedMajorityClassifier("precomputed").fit(P, noisy),
                            "numpy: cumsum + beta**m",
                            lambda: numpy_weighted_majority(P, noisy, 0.5), args.repeats)
    clf = WeightedMajorityClassifier("precomputed").fit(P, noisy)
    ref_mistakes, ref_m = numpy_weighted_majority(P, noisy, 0.5)
    assert np.array_equal(clf.expert_mistakes_, ref_m) and clf.n_mistakes_ == ref_mistakes
    print(ours.line(), peer.line(), ratio_line("ours / numpy", ours, peer), sep="\n")

    n_k = 1000 if args.quick else 4000
    X = rng.normal(size=(n_k, 10))
    y_k = np.where(np.linalg.norm(X[:, :2], axis=1) > 1.2, 1.0, -1.0)
    gamma, max_iter = 0.5, 5
    print(f"KernelPerceptron, rbf gamma={gamma}, n={n_k}, d=10, max_iter={max_iter}")
    # in order, as the NumPy loop goes (fit shuffles by default)
    ours, peer = timed_pair("ours: KernelPerceptron(shuffle=False).fit",
                            lambda: KernelPerceptron(gamma=gamma, max_iter=max_iter,
                                                     shuffle=False).fit(X, y_k),
                            "numpy: dual loop over the support set",
                            lambda: numpy_kernel_perceptron(X, y_k, gamma, max_iter),
                            args.repeats)
    clf = KernelPerceptron(gamma=gamma, max_iter=max_iter, shuffle=False).fit(X, y_k)
    assert clf.mistakes_per_epoch_ == numpy_kernel_perceptron(X, y_k, gamma, max_iter)
    print(f"  mistakes per epoch {clf.mistakes_per_epoch_}, {clf.support_.size} support vectors")
    print(ours.line(), peer.line(), ratio_line("ours / numpy", ours, peer), sep="\n")


if __name__ == "__main__":
    main()
