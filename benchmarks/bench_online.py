"""The online prediction game against River and Vowpal Wabbit: one progressive pass.

    python benchmarks/bench_online.py            # a9a, rcv1_small, 200,000 x 100,000 generated
    python benchmarks/bench_online.py --quick    # small sizes, a few seconds

Every learner plays the same game on the same rows in the same order: predict example t,
then learn it. Reported per learner: where it reads the rows from, rows played, wall time
(median of --repeats runs; all the learners of a data set run round-robin, one run each per
repeat, so they see about the same machine load), rows/s, progressive mistakes (and
accuracy), and the time per row relative to our compiled Perceptron game on the rows in
memory. Then the peer comparisons, each of the same work on both sides:

- from the file (VW's natural route): ours ``load_svmlight(FILE.svm)`` or
  ``load_vw(FILE.vw)`` then ``play(Perceptron(), X, y)``, against Vowpal Wabbit reading the
  VW file; both files hold the same rows, values and indices (written once, untimed);
- rows in memory, compiled: ours ``play`` on the CSR matrix against River on dict rows
  (River's native input; its time per row, since it plays fewer rows on the large set);
- one example at a time from Python: our per-row protocol against River and against VW's
  per-example calls (time per row).

Contenders:

- ours, compiled: ``play(Perceptron(), X, y)`` and ``play(PegasosSVC(lam=...), X, y)``, the
  whole game in one compiled pass (validation and label encoding included in the time);
- ours, from a file: ``load_svmlight(FILE.svm, n_features=d)`` (and, separately,
  ``load_vw(FILE.vw, n_features=d, hash_features=False)``) then the compiled Perceptron game;
  the mistakes must equal those of the game on the rows in memory (the files hold them
  exactly);
- ours, per row: the same Perceptron driven round by round through ``predict_one`` /
  ``learn_one`` (the generic protocol every non-halfspaces learner goes through), on the
  first --generic-rows rows;
- River: ``linear_model.Perceptron`` and ``linear_model.LogisticRegression(loss=Hinge(),
  l2=lam)`` (its hinge-loss SGD), fed ``predict_one`` then ``learn_one`` on dict rows
  ``{column: value}``. The dicts are built from the same CSR matrix *before* timing (not
  counted). On the generated set River plays the first --river-rows rows only (it runs at
  a few ten thousand rows/s); its ratio is per row, so it stays comparable;
- Vowpal Wabbit, file route: ``Workspace("-d FILE.vw --loss_function hinge --binary
  --quiet -b BITS")`` plus ``run_parser()`` and ``finish()``, in this process: VW parses the
  text and learns in one pass, as its command-line driver does (bench_file_to_model.py
  times both sides as whole processes). With ``--binary`` VW's progressive loss is the 0/1
  loss, so ``get_sum_loss()`` is its count of progressive mistakes;
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
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    Timing,
    as_csr32,
    load_shared,
    time_interleaved,
    write_text_formats,
)

from halfspaces import PegasosSVC, Perceptron  # noqa: E402
from halfspaces.datasets import load_a9a, load_svmlight, load_vw, make_separable  # noqa: E402
from halfspaces.online import play  # noqa: E402


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


@dataclass
class Game:
    """One contender: ``run()`` plays its game afresh and returns its mistake count."""

    learner: str
    source: str
    rows: int
    run: object
    mistakes: int = 0
    timing: Timing | None = None

    @property
    def time(self) -> float:
        return self.timing.median

    def per_row(self) -> float:
        return self.time / self.rows


def contenders(X, y, args, river_rows: int | None, svm_path: str, vw_path: str) -> list[Game]:
    n, d = X.shape
    g = min(n, args.generic_rows)
    r = n if river_rows is None else min(n, river_rows)
    games = [
        Game("ours Perceptron, play (compiled)", "memory", n,
             lambda: play(Perceptron(), X, y).n_mistakes),
        Game(f"ours PegasosSVC(lam={args.lam:g}), play (compiled)", "memory", n,
             lambda: play(PegasosSVC(lam=args.lam), X, y).n_mistakes),
        Game("ours load_svmlight + play (compiled)", "file .svm", n,
             lambda: play(Perceptron(), *load_svmlight(svm_path, n_features=d)).n_mistakes),
        Game("ours load_vw + play (compiled)", "file .vw", n,
             lambda: play(Perceptron(), *load_vw(vw_path, n_features=d, hash_features=False,
                                                 zero_based=False)).n_mistakes),
    ]
    if g:
        Xg, yg = X[:g], y[:g]
        games.append(Game("ours Perceptron, play per row (generic)", "memory", g,
                          lambda: play(RowByRow(d), Xg, yg).n_mistakes))
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
            return int(wrong)

        games.append(Game("River Perceptron", "memory (dicts)", r,
                          lambda: river_game(linear_model.Perceptron())))
        games.append(Game(f"River LogisticRegression(Hinge, lr={args.river_lr:g})",
                          "memory (dicts)", r,
                          lambda: river_game(linear_model.LogisticRegression(
                              loss=optim.losses.Hinge(), l2=args.lam,
                              optimizer=optim.SGD(args.river_lr)))))
    try:
        import vowpalwabbit
    except ImportError:
        print("  [skip] Vowpal Wabbit: not installed (pip install -e '.[bench]')")
    else:
        opts = f"--loss_function hinge --binary --quiet -b {args.vw_bits}"

        def vw_file():
            ws = vowpalwabbit.Workspace(f"-d {vw_path} {opts}")
            ws.run_parser()
            wrong, seen = ws.get_sum_loss(), ws.get_weighted_examples()
            ws.finish()
            assert seen == n, (seen, n)
            return int(round(wrong))

        with open(vw_path) as f:
            texts = [next(f).rstrip("\n") for _ in range(r)]
        truth = y[:r].tolist()

        def vw_rows():
            ws = vowpalwabbit.Workspace(opts)
            wrong = 0
            for line, t in zip(texts, truth, strict=True):
                wrong += ws.predict(line) != t
                ws.learn(line)
            ws.finish()
            return wrong

        games.append(Game("VW -d FILE (parse + learn)", "file .vw", n, vw_file))
        games.append(Game("VW per example (predict, learn)", "memory (text lines)", r,
                          vw_rows))
    return games


def bench_set(title: str, X, y, args, river_rows: int | None) -> None:
    n, d = X.shape
    print(f"\n{title}: {n:,} x {d:,}, {X.nnz / n:.1f} nnz/row, "
          f"+1: {int((y == 1).sum()):,}, -1: {int((y != 1).sum()):,}")
    with tempfile.TemporaryDirectory() as tmp:
        svm_path, vw_path = os.path.join(tmp, "data.svm"), os.path.join(tmp, "data.vw")
        # Warm-up on 50 rows: numba compiles (or loads from its cache) outside the timings.
        write_text_formats(X[:50], y[:50], svm_path, vw_path)
        for game in contenders(X[:50], y[:50], args, 50, svm_path, vw_path):
            game.run()
        write_text_formats(X, y, svm_path, vw_path)  # untimed
        games = contenders(X, y, args, river_rows, svm_path, vw_path)

        def recorded(game):
            def run():
                game.mistakes = game.run()
            return run

        timings = time_interleaved({game.learner: (recorded(game), None) for game in games},
                                   args.repeats)
    for game in games:
        game.timing = timings[game.learner]
    by_name = {game.learner: game for game in games}
    ours = games[0]
    print(f"  {'learner':<46s} {'reads':<19s} {'rows':>9s} {'time s':>9s} {'rows/s':>11s}"
          f" {'mistakes':>9s} {'acc %':>6s} {'x ours':>7s}")
    for game in games:
        acc = 100 * (1 - game.mistakes / game.rows)
        print(f"  {game.learner:<46s} {game.source:<19s} {game.rows:>9,} {game.time:>9.4f} "
              f"{game.rows / game.time:>11,.0f} {game.mistakes:>9,} {acc:>6.2f}"
              f" {game.per_row() / ours.per_row():>7.1f}")
    same = [by_name[k].mistakes == ours.mistakes for k in
            ("ours load_svmlight + play (compiled)", "ours load_vw + play (compiled)")]
    if not all(same):
        print("  WARNING: the games from the files disagree with the game in memory")
    spread = max(game.timing.spread for game in games)
    print(f"  (median of {args.repeats} runs each; x ours: time per row / that of ours"
          f" Perceptron in memory; largest spread over repeats {spread:.0%})")
    print("  peer comparisons, ours / theirs (median times; per row where the rows differ):")
    pairs = [
        ("from the file: ours .svm route / VW -d", "ours load_svmlight + play (compiled)",
         "VW -d FILE (parse + learn)"),
        ("from the file: ours .vw route / VW -d", "ours load_vw + play (compiled)",
         "VW -d FILE (parse + learn)"),
        ("in memory: ours play / River Perceptron", "ours Perceptron, play (compiled)",
         "River Perceptron"),
        ("per example: ours per row / River Perceptron",
         "ours Perceptron, play per row (generic)", "River Perceptron"),
        ("per example: ours per row / VW per example",
         "ours Perceptron, play per row (generic)", "VW per example (predict, learn)"),
    ]
    for label, a, b in pairs:
        if a in by_name and b in by_name:
            print(f"  {label:<48s} {by_name[a].per_row() / by_name[b].per_row():7.3f}")
    r = n if river_rows is None else min(n, river_rows)
    if r < n:
        print(f"  ours on the same first {r:,} rows: Perceptron "
              f"{play(Perceptron(), X[:r], y[:r]).n_mistakes:,}, PegasosSVC "
              f"{play(PegasosSVC(lam=args.lam), X[:r], y[:r]).n_mistakes:,} mistakes")


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
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of every game")
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
