"""The online prediction game against River and Vowpal Wabbit: one progressive pass.

    python benchmarks/bench_online.py            # a9a, rcv1_small, 200,000 x 100,000 generated
    python benchmarks/bench_online.py --quick    # small sizes, a few seconds

Every learner plays the same game on the same rows in the same order: predict example t,
then learn it. Reported per learner: rows played, wall time (median of --repeats), rows/s,
progressive mistakes (and accuracy), and the time per row relative to ours (our compiled
Perceptron game on the same data set; a ratio > 1 means slower than ours).

Contenders:

- ours, compiled: ``play(Perceptron(), X, y)`` and ``play(PegasosSVC(lam=...), X, y)``, the
  whole game in one compiled pass (validation and label encoding included in the time);
- ours, per row: the same Perceptron driven round by round through ``predict_one`` /
  ``learn_one`` (the generic protocol every non-halfspaces learner goes through: one
  1 x d CSR row and one scikit-learn validation per call), on the first --generic-rows rows;
- River: ``linear_model.Perceptron`` and ``linear_model.LogisticRegression(loss=Hinge(),
  l2=lam)`` (its hinge-loss SGD), fed ``predict_one`` then ``learn_one`` on dict rows
  ``{column: value}``. The dicts are built from the same CSR matrix *before* timing (not
  counted). On the generated set River plays the first --river-rows rows only (it runs at
  a few ten thousand rows/s); its ratio is per row, so it stays comparable;
- Vowpal Wabbit, file route: the same rows are written once (untimed) to a VW text file
  ``label |f col:value ...``; timed is ``Workspace("-d FILE --loss_function hinge --binary
  --quiet ...")`` plus ``run_parser()`` and ``finish()``: VW parses the text and learns in
  one pass, as its command-line driver does. With ``--binary`` VW's progressive loss is
  the 0/1 loss, so ``get_sum_loss()`` is its count of progressive mistakes;
- Vowpal Wabbit, per example: ``predict(line)`` then ``learn(line)`` from Python on the
  same text lines (held in memory), mistakes counted from ``predict``; on the generated set
  on the first --river-rows rows.

River's hinge SGD at its default steps is near chance on the L2-normalised generated rows
(the intercept, stepped 0.01 per violation, outweighs ``w . x`` with ``||x|| = 1``);
``--river-lr 1`` gives it about 10% mistakes there (but 20% on a9a, against 16% at 0.01).

Mistake rules: ours counts ``y_t s_t <= 0`` (a tie is a mistake, as the theory needs);
River counts ``predict_one != y`` (a zero score predicts the negative class); VW counts
its own 0/1 loss of ``--binary`` (the sign of its score). The algorithms differ (River and
VW use their own step sizes, VW adaptive normalised updates with feature hashing into
2^--vw-bits weights and a constant feature), so the mistake counts are for orientation; the
speed comparison is of the same game on the same rows.

Data: the bundled a9a (``halfspaces.datasets.load_a9a``), rcv1_small from the shared data
folder (``$HALFSPACES_DATA``; skipped with a message when absent) and a sparse set from
``make_separable(sparse=True)``, --n-samples x --n-features with --nnz non-zeros per row
and --noise of the labels flipped.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import SHARED_FILES, as_csr32, load_shared, time_call  # noqa: E402

from halfspaces import PegasosSVC, Perceptron  # noqa: E402
from halfspaces.datasets import load_a9a, make_separable  # noqa: E402
from halfspaces.online import play  # noqa: E402

SHARED_FILES.setdefault("rcv1_small", "rcv1_small_vw/rcv1_small.svm")


class RowByRow:
    """Our Perceptron behind the generic protocol only, so ``play`` goes round by round."""

    def __init__(self, n_features: int):
        self.est = Perceptron()
        self.est._prepare_online(np.array([-1.0, 1.0]), n_features)

    def score_one(self, x):
        return self.est.score_one(x)

    def predict_one(self, x):
        return self.est.predict_one(x)

    def learn_one(self, x, y):
        self.est.learn_one(x, y)


def csr_to_dicts(X) -> list[dict]:
    indptr, indices, data = X.indptr, X.indices.tolist(), X.data.tolist()
    return [dict(zip(indices[s:e], data[s:e], strict=True))
            for s, e in zip(indptr[:-1].tolist(), indptr[1:].tolist(), strict=True)]


def write_vw(X, y, path: str) -> list[bytes]:
    """Write ``label |f col:value ...`` lines (via scikit-learn's svmlight writer); return them."""
    from sklearn.datasets import dump_svmlight_file

    with tempfile.TemporaryFile() as tmp:
        dump_svmlight_file(X, y, tmp, zero_based=True)
        tmp.seek(0)
        lines = [line.rstrip(b"\n").replace(b" ", b" |f ", 1) if b" " in line
                 else line.rstrip(b"\n") + b" |f" for line in tmp]
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    return lines


class Row:
    def __init__(self, learner: str, rows: int, seconds: list[float], mistakes: int | None):
        self.learner, self.rows, self.seconds, self.mistakes = learner, rows, seconds, mistakes

    @property
    def time(self) -> float:
        return float(np.median(self.seconds))


def bench_set(title: str, X, y, args, river_rows: int | None) -> None:
    n, d = X.shape
    print(f"\n{title}: {n:,} x {d:,}, {X.nnz / n:.1f} nnz/row, "
          f"+1: {int((y == 1).sum()):,}, -1: {int((y != 1).sum()):,}")
    rows: list[Row] = []

    def timed(label, make, fn, repeats, n_rows, mistakes_of):
        out = {}

        def run():
            out["m"] = fn(make())

        t = time_call(label, run, repeats)
        rows.append(Row(label, n_rows, t.seconds, mistakes_of(out["m"])))
        return out["m"]

    # -- ours, compiled ----------------------------------------------------------------------
    play(Perceptron(), X[:10], y[:10])  # compile outside the timing (numba cache)
    play(PegasosSVC(lam=args.lam), X[:10], y[:10])
    perc = timed("ours Perceptron, play (compiled)", Perceptron, lambda m: play(m, X, y),
                 args.repeats, n, lambda t: t.n_mistakes)
    peg = timed(f"ours PegasosSVC(lam={args.lam:g}), play (compiled)",
          lambda: PegasosSVC(lam=args.lam), lambda m: play(m, X, y), args.repeats, n,
          lambda t: t.n_mistakes)
    ours_m = rows[0].mistakes

    # -- ours, per row -----------------------------------------------------------------------
    g = min(n, args.generic_rows)
    if g:
        Xg, yg = X[:g], y[:g]
        timed("ours Perceptron, play per row (generic)", lambda: RowByRow(d),
              lambda m: play(m, Xg, yg), 1, g, lambda t: t.n_mistakes)
        same = rows[-1].mistakes == play(Perceptron(), Xg, yg).n_mistakes
        if not same:
            print("  WARNING: the per-row and compiled games disagree on the first rows")

    # -- River -------------------------------------------------------------------------------
    r = n if river_rows is None else min(n, river_rows)
    try:
        from river import linear_model, optim
    except ImportError:
        print("  [skip] River: not installed (pip install -e '.[bench]')")
    else:
        dicts = csr_to_dicts(X[:r])  # untimed
        labels = (y[:r] == 1).tolist()

        def river_game(model):
            wrong = 0
            for x, t in zip(dicts, labels, strict=True):
                wrong += model.predict_one(x) != t
                model.learn_one(x, t)
            return wrong

        timed("River Perceptron", linear_model.Perceptron, river_game, 1, r, int)
        timed(f"River LogisticRegression(Hinge, lr={args.river_lr:g})",
              lambda: linear_model.LogisticRegression(
                  loss=optim.losses.Hinge(), l2=args.lam, optimizer=optim.SGD(args.river_lr)),
              river_game, 1, r, int)

    # -- Vowpal Wabbit -----------------------------------------------------------------------
    try:
        import vowpalwabbit
    except ImportError:
        print("  [skip] Vowpal Wabbit: not installed (pip install -e '.[bench]')")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "data.vw")
            lines = write_vw(X, y, path)  # untimed
            opts = f"--loss_function hinge --binary --quiet -b {args.vw_bits}"

            def vw_file(_):
                ws = vowpalwabbit.Workspace(f"-d {path} {opts}")
                ws.run_parser()
                wrong, seen = ws.get_sum_loss(), ws.get_weighted_examples()
                ws.finish()
                assert seen == n, (seen, n)
                return int(round(wrong))

            timed("VW file route (-d, parse + learn)", lambda: None, vw_file,
                  args.repeats, n, int)
            texts = [line.decode() for line in lines[:r]]
            truth = y[:r].tolist()

            def vw_rows(_):
                ws = vowpalwabbit.Workspace(opts)
                wrong = 0
                for line, t in zip(texts, truth, strict=True):
                    wrong += ws.predict(line) != t
                    ws.learn(line)
                ws.finish()
                return wrong

            timed("VW per example (predict, learn)", lambda: None, vw_rows, 1, r, int)

    base = rows[0].time / rows[0].rows
    print(f"  {'learner':<46s} {'rows':>9s} {'time s':>9s} {'rows/s':>11s}"
          f" {'mistakes':>9s} {'acc %':>6s} {'x ours':>8s}")
    for row in rows:
        acc = 100 * (1 - row.mistakes / row.rows)
        print(f"  {row.learner:<46s} {row.rows:>9,} {row.time:>9.4f} "
              f"{row.rows / row.time:>11,.0f} {row.mistakes:>9,} {acc:>6.2f}"
              f" {row.time / row.rows / base:>8.1f}")
    r = n if river_rows is None else min(n, river_rows)
    if r < n:
        print(f"  ours on the same first {r:,} rows: Perceptron "
              f"{int(perc.cumulative_mistakes[r - 1]):,}, PegasosSVC "
              f"{int(peg.cumulative_mistakes[r - 1]):,} mistakes")
    spread = max((max(r.seconds) - min(r.seconds)) / r.time for r in rows)
    print(f"  (x ours: time per row / ours Perceptron's; ours made {ours_m:,} mistakes; "
          f"largest spread over repeats {spread:.0%})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--n-features", type=int, default=100_000)
    parser.add_argument("--nnz", type=int, default=50, help="non-zeros per generated row")
    parser.add_argument("--noise", type=float, default=0.05, help="labels flipped (generated)")
    parser.add_argument("--lam", type=float, default=1e-4, help="Pegasos / River l2")
    parser.add_argument("--river-rows", type=int, default=20_000,
                        help="River and VW per-example rows on the generated set")
    parser.add_argument("--generic-rows", type=int, default=2_000,
                        help="rows for our per-row path (0: skip)")
    parser.add_argument("--river-lr", type=float, default=0.01,
                        help="step of River's hinge SGD (0.01: River's default)")
    parser.add_argument("--vw-bits", type=int, default=20, help="VW -b (2^b hashed weights)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="repeats of the compiled games and the VW file route")
    args = parser.parse_args(argv)
    if args.quick:
        args.n_samples, args.n_features, args.river_rows = 20_000, 20_000, 5_000
        args.generic_rows, args.repeats = 300, 1

    t0 = time.perf_counter()
    X, y = load_a9a()
    if args.quick:
        X, y = X[:10_000], y[:10_000]
    bench_set("a9a (bundled)" + (", first 10,000 rows" if args.quick else ""),
              as_csr32(X), y, args, None)
    data = load_shared("rcv1_small")
    if data is not None:
        bench_set("rcv1_small (shared data)", *data, args, None)
    X, y = make_separable(args.n_samples, args.n_features, 0.005, sparse=True,
                          nnz_per_row=args.nnz, noise=args.noise, random_state=0)
    bench_set(f"make_separable(sparse, margin 0.005, noise {args.noise:g})", as_csr32(X), y,
              args, args.river_rows)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
