"""``halfspaces demo``: every algorithm of the library on real, bundled data, theorems checked.

Printed as it runs and saved to ``OUT_DIR/demo-report.txt``:

1. **the table**: one :class:`~halfspaces.demo.cases.Case` per row -- an estimator, a data
   set and a mode: the online learners through the online game
   (:func:`halfspaces.online.play`) over the a9a training set (UCI Adult, 32,561 rounds),
   the batch ones through ``fit`` -- run by one runner
   (:func:`~halfspaces.demo.cases.run_case`) that trains, times, scores on the test split,
   checks the mistake bound where a theorem gives one and the objective's optimality gap
   where one applies (SVC's duality gap, Pegasos against the exact SVM optimum at the same
   lambda, the logistic objective), then saves and reloads the model. The separable and text
   parts use the bundled mushrooms (UCI) and SMS spam collections;
2. every trained model saved to ``OUT_DIR/models/`` (no pickle), reloaded with
   :func:`halfspaces.load`, and checked to give identical predictions;
3. Novikoff's bound on the mushrooms, which a halfspace through the origin separates
   (:func:`halfspaces.theory.bounds_report`): the perceptron's mistakes in the file's order,
   cycled until it separates, in a greedy adversarial order, and the online-to-batch bound
   on the test split;
4. the bound is tight: an adversary forces exactly ``(R/gamma)^2`` mistakes;
5. figures (PNG, with matplotlib), drawn by :mod:`halfspaces.plotting`'s gallery functions:
   margins, small vs large lambda, the max-margin separator and its support vectors, a
   perceptron update, mistakes against Novikoff's bound on the mushrooms, Pegasos's objective
   against the exact optimum on a9a.

``run`` returns 0 when every step ran and every printed bound and check held. ``quick=True``
uses subsamples (a few seconds in all).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable

import numpy as np

from .cases import (
    LAM,
    LAM_TEXT,
    SEED,
    Row,
    Split,
    all_mushrooms,
    load_data,
    make_cases,
    one_line,
    run_case,
)

__all__ = ["run"]


class _Report:
    """Prints each line at once and keeps it for the report file."""

    def __init__(self, stream):
        self.stream = stream
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        self.lines.append(line)
        print(line, file=self.stream, flush=True)


# -- 1. the table ----------------------------------------------------------------------------


def _fmt(value: float | None, spec: str, width: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}{spec}}"


def _table_line(r: Row) -> str:
    where = f"   {r.algorithm:<31}{r.data:<14}{r.how:<7}"
    if r.error:
        return where + f"FAILED: {r.error}"
    mark = "" if r.bound is None else (" ok" if r.bound_holds else " VIOLATED")
    if not r.lower_ok:
        mark += " BELOW THE PROVEN OPTIMUM"
    bound = "-" if r.bound is None else f"{r.bound:,.1f}"
    mistakes = "-" if r.mistakes is None else f"{r.mistakes:,}"
    return (where + f"{r.seconds:>7.2f}s{100 * r.accuracy:>9.2f}%{mistakes:>10}{bound:>10}  "
            f"{_fmt(r.objective, '.6g', 11)}  {r.note}{mark}")


def _print_table(say: _Report, rows: list[Row]) -> bool:
    header = (f"   {'algorithm':<31}{'data':<14}{'how':<7}{'train':>8}{'test acc':>10}"
              f"{'mistakes':>10}{'bound':>10}  {'objective':>11}  notes (gap etc.)")
    say(header)
    say("   " + "-" * (len(header) - 3 + 10))
    for r in rows:
        say(_table_line(r))
    return all(not r.error and r.bound_holds and r.lower_ok for r in rows)


def _table_section(say: _Report, data: dict[str, Split], context: dict, quick: bool,
                   out_dir: str) -> tuple[list[Row], bool]:
    a9a, m = data["a9a"], data["mushrooms"]
    say(f"1. Every algorithm on real data. Main set: a9a (UCI Adult), {a9a.X.shape[0]:,} training"
        f" rows of {a9a.X.shape[1]} binary features, test accuracy on {a9a.Xt.shape[0]:,} rows"
        " of a9a.t.")
    say("   'online': the learner plays the online game (predict x_t, see y_t, update; a"
        " mistake is y_t * score_t <= 0)")
    say("   in one pass, then is scored on the test set; 'fit': batch training. mushrooms:"
        f" {m.X.shape[0]:,} training / {m.Xt.shape[0]:,} test rows (separable);")
    say("   sms: SMS spam collection as raw text (70/30 split); 2-D synth: make_separable"
        " (200 rows, margin 0.08), tested on 200 more.")
    majority = 100 * max(np.mean(a9a.yt == 1), np.mean(a9a.yt == -1))
    say(f"   Always predicting the majority class of a9a.t: {majority:.2f}% test accuracy.")
    say()
    folder = os.path.join(out_dir, "models")
    os.makedirs(folder, exist_ok=True)
    rows = [run_case(case, data[case.data], context, folder) for case in make_cases(quick)]
    ok = _print_table(say, rows)
    say()
    say("   train: seconds to play or fit (numba compiles each pass on first use and caches it).")
    say("   bound: a theorem's mistake bound where one applies -- Weighted Majority"
        " (ln N + m* ln 2)/ln(4/3), Halving log2 N")
    say("   (some direction of the class separates the data), Novikoff (R/gamma)^2 (gamma:"
        " max margin); a9a is not separable: no bound.")
    say("   objective: SVC, the C form 1/2||theta||^2 + C sum hinge with C = 1/(lam n) and its"
        " duality gap (primal minus dual, >= 0);")
    say(f"   Pegasos, the lam form J = 1/n sum hinge + lam/2 ||theta||^2 at lam = {LAM:g},"
        " relative to the SVC optimum J* = lam * objective_")
    say("   (checked: never below the dual lower bound); logistic, its own J (lam form,"
        " logistic loss).")
    return rows, ok


# -- 2. persistence --------------------------------------------------------------------------


def _persistence_section(say: _Report, rows: list[Row], out_dir: str) -> bool:
    saved = [r.saved for r in rows if r.saved is not None]
    say(f"2. Every trained model saved with Estimator.save to {os.path.join(out_dir, 'models')}/"
        " (arrays + JSON, no pickle), loaded back with")
    say("   halfspaces.load, and its predictions on the test rows compared with the"
        " original's:")
    for s in saved:
        name = os.path.basename(s.path)
        if s.error:
            say(f"   {name:<48} FAILED: {s.error}")
        else:
            say(f"   {name:<48}{s.size:>10,} bytes  "
                + (f"identical predictions on {s.n_rows:,} rows" if s.identical
                   else "PREDICTIONS DIFFER"))
    same = sum(s.identical for s in saved)
    say(f"   {same} of {len(saved)} models reload to identical predictions.")
    return same == len(saved)


# -- 3. Novikoff on the mushrooms ------------------------------------------------------------


def _mushroom_report(data: dict[str, Split], context: dict) -> bool:
    """Novikoff's bound for the perceptron through the origin on every mushroom: R, the max
    margin gamma and (R/gamma)^2, into ``context``."""
    from ..theory import bounds_report

    X, y = all_mushrooms(data)
    start = time.perf_counter()
    report = bounds_report(X, y, fit_intercept=False)
    if not report.separable:
        raise RuntimeError("no halfspace through the origin separates the mushrooms"
                           f" (certificate on {report.certificate_rows.size} rows)")
    context["mushrooms"], context["mushrooms_seconds"] = report, time.perf_counter() - start
    return True


class _Checks:
    """Lines ``text  M mistakes <= bound holds``; ``ok`` while every bound holds."""

    def __init__(self, say: _Report):
        self.say, self.ok = say, True

    def __call__(self, text: str, mistakes: int, limit: float) -> None:
        holds = mistakes <= limit
        self.ok &= holds
        self.say(f"   {text:<58}{mistakes:>6,} mistakes <= {limit:,.1f}"
                 f" {'holds' if holds else 'VIOLATED'}")


def _novikoff_header(say: _Report, data: dict[str, Split], context: dict) -> None:
    report, (n_train, n_test) = context["mushrooms"], (data["mushrooms"].X.shape[0],
                                                       data["mushrooms"].Xt.shape[0])
    say(f"3. Novikoff's bound on real separable data: mushrooms (UCI), {n_train + n_test:,} rows"
        f" (train {n_train:,} + test {n_test:,}), {report.n_features} one-hot features,")
    say(f"   22 per row, so R = max ||x|| = sqrt(22) = {report.radius:.4f}. Label +1 ="
        " poisonous. A halfspace through the origin separates all of it.")
    say(f"   gamma = {report.max_margin:.6f}: the maximum margin (theory.bounds_report, a"
        f" hard-margin QP through the origin, {context['mushrooms_seconds']:.1f}s),")
    say("   the best gamma Novikoff's bound can use.")
    say("   Novikoff: every run below makes at most (R/gamma)^2 ="
        f" {report.novikoff_bound:,.1f} mistakes.")
    say()


def _novikoff_section(say: _Report, data: dict[str, Split], context: dict, quick: bool
                      ) -> bool:
    from ..adversaries import GreedyOrderAdversary
    from ..linear.perceptron import Perceptron
    from ..online import play
    from ..theory import bounds_report, online_to_batch_bound

    _novikoff_header(say, data, context)
    report, check = context["mushrooms"], _Checks(say)
    X, y = all_mushrooms(data)
    t = context["mushrooms_pass"] = play(Perceptron(fit_intercept=False), X, y)
    check("one online pass, file order (train then test)", t.n_mistakes, report.novikoff_bound)
    clf = Perceptron(fit_intercept=False, max_iter=1000, random_state=SEED).fit(X, y)
    check(f"batch perceptron cycled until separated ({clf.n_iter_} epochs)", clf.n_mistakes_,
          report.novikoff_bound)
    n_greedy = 300 if quick else 1500
    Xg, yg = X[:n_greedy], y[:n_greedy]
    sub = bounds_report(Xg, yg, fit_intercept=False)  # their own R and max margin
    say(f"   on the first {n_greedy} rows (their own max margin {sub.max_margin:.6f}):")
    check("  file order", play(Perceptron(fit_intercept=False), Xg, yg).n_mistakes,
          sub.novikoff_bound)
    check("  greedy adversary (shows a row the learner gets wrong)", play(
        Perceptron(fit_intercept=False), GreedyOrderAdversary(Xg, yg)).n_mistakes,
        sub.novikoff_bound)
    say("     (greedy is a heuristic, not the worst order; the bound holds for every order)")
    m, learner = data["mushrooms"], Perceptron(fit_intercept=False)
    train = play(learner, m.X, m.y)
    test = play(learner, m.Xt, m.yt)  # the same learner keeps learning
    say("   online-to-batch: the perceptron plays the training split, then keeps playing the"
        " test split;")
    check(f"  test mistakes (after {train.n_mistakes} training mistakes)", test.n_mistakes,
          online_to_batch_bound(report.radius, report.max_margin, train.n_mistakes))
    return check.ok


# -- 4. the bound is tight -------------------------------------------------------------------


def _tightness_section(say: _Report, quick: bool) -> bool:
    from .. import AveragedPerceptron, PegasosSVC, Perceptron
    from ..adversaries import TightNovikoffAdversary
    from ..online import play
    from ..theory import geometric_margin

    k = 25 if quick else 100
    say(f"4. The bound is tight: an adversary shows x_t = e_t in R^{k} and labels it against"
        " the prediction.")
    say(f"   Afterwards u = sum_t y_t e_t / sqrt({k}) separates the sequence with margin"
        f" 1/sqrt({k}), R = 1, so (R/gamma)^2 = {k}.")
    ok = True
    for learner in (Perceptron(fit_intercept=False), AveragedPerceptron(), PegasosSVC(lam=1e-2)):
        name = type(learner).__name__
        adversary = TightNovikoffAdversary(k)
        try:
            t = play(learner, adversary)
        except Exception as exc:  # noqa: BLE001 - report, keep touring
            ok = False
            say(f"   {name:<22}FAILED: {one_line(exc)}")
            continue
        margin = geometric_margin(adversary.separator_, t.X, np.asarray(t.labels, float))
        check = t.against_bound(float(k), "(R/gamma)^2")
        ok &= bool(check) and bool(np.isclose(margin, adversary.margin))
        say(f"   {name:<22}{check}; realized margin of u {margin:.4f}")
    return ok


# -- 5. figures ------------------------------------------------------------------------------


def _figures(data: dict[str, Split], context: dict) -> list[tuple[str, str, Callable]]:
    """``(file name, what it shows, draw)``: each ``draw`` is one gallery function."""
    from .. import SVC, plotting

    X2, y2 = data["synth"].X, data["synth"].y
    noisy = y2.copy()
    flip = np.random.default_rng(SEED).choice(y2.size, size=y2.size // 10, replace=False)
    noisy[flip] = -noisy[flip]
    figures = [
        ("decision_boundary.png", "linear SVC (lam=0.01) on the noisy 2-D data: boundary,"
         " margins score = +-1, points inside circled",
         lambda: plotting.plot_decision_boundary(SVC(lam=1e-2).fit(X2, noisy), X2, noisy,
                                                 title="SVC, lam = 0.01 (2-D synthetic,"
                                                       " 10% labels flipped)")),
        ("regularization.png", "small vs large lambda (1e-3, 1) on the noisy 2-D data: narrow"
         " vs wide margin", lambda: plotting.plot_regularization(X2, noisy, (1e-3, 1.0))),
        ("max_margin.png", "max-margin separator of the separable 2-D data, support vectors"
         " circled", lambda: plotting.plot_max_margin(X2, y2)),
        ("perceptron_update.png", "a real mistake of the perceptron on the 2-D data:"
         " w <- w + y x", lambda: plotting.plot_perceptron_update(
             *plotting.perceptron_update_example(X2, y2, mistake=2))),
    ]
    if "mushrooms_pass" in context:
        t, bound = context["mushrooms_pass"], context["mushrooms"].novikoff_bound
        figures.append(("mistakes_vs_novikoff.png", f"mushrooms, one online pass: mistakes over"
                        f" {t.n_rounds:,} rounds vs (R/gamma)^2 = {bound:.1f}",
                        lambda: plotting.plot_mistakes(
                            t, bound, label=f"mistakes ({t.n_mistakes})",
                            bound_label="Novikoff bound (R/gamma)^2",
                            title="Perceptron on mushrooms: one online pass")))
    if "pegasos_history" in context and "J_svc" in context:
        figures.append(("pegasos_objective.png", f"Pegasos on a9a (lam={LAM_TEXT}): J per epoch"
                        " vs the exact optimum (SVC, dcd); right: J - J* (log)",
                        lambda: plotting.plot_objective_and_gap(
                            context["pegasos_history"], context["J_svc"], label="PegasosSVC",
                            lam=LAM)))
    return figures


def _figures_section(say: _Report, data: dict[str, Split], context: dict, out_dir: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("5. Figures skipped: matplotlib is not installed (pip install 'halfspaces[plot]').")
        return True
    say(f"5. Figures (PNG) in {out_dir}/. The 2-D ones use make_separable(400, 2, margin=0.08,"
        f" random_state={SEED}), first 200 rows;")
    say("   'noisy' flips 10% of those labels so that the soft margin has points inside it.")
    ok = True
    for name, what, draw in _figures(data, context):
        try:
            made = draw()
            fig = made if hasattr(made, "savefig") else made.figure
            fig.savefig(os.path.join(out_dir, name), dpi=100)
            plt.close(fig)
            say(f"   {name:<26}{what}")
        except Exception as exc:  # noqa: BLE001
            ok = False
            plt.close("all")
            say(f"   {name:<26}FAILED: {one_line(exc)}")
    return ok


# -- entry point -----------------------------------------------------------------------------


def _step(say: _Report, what: str, section: Callable[[], bool]) -> bool:
    """Run one section; an exception is a FAILED line, never the end of the tour."""
    try:
        return bool(section())
    except Exception as exc:  # noqa: BLE001
        say(f"{what} FAILED: {one_line(exc)}")
        return False


def run(out_dir: str | os.PathLike = "demo-output", quick: bool = False) -> int:
    """Run the tour, print it, write the report, the models and the figures into ``out_dir``.

    Parameters
    ----------
    out_dir : path, default="demo-output"
        Folder for ``demo-report.txt``, ``models/`` and the PNG figures (created if missing).
    quick : bool, default=False
        Subsamples: a few seconds instead of about half a minute.

    Returns
    -------
    status : int
        0 when every step ran and every printed bound and check held, 1 otherwise (a bug
        worth reporting).
    """
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    say, start, context = _Report(sys.stdout), time.perf_counter(), {}
    say("halfspaces demo: online learning and margins, with the theorems checked on real data"
        + (" (quick: subsamples)" if quick else ""))
    say()
    data = load_data(quick)
    ok = _step(say, "   bounds_report on the mushrooms", lambda: _mushroom_report(data, context))
    rows, table_ok = _table_section(say, data, context, quick, out_dir)
    say()
    ok &= table_ok
    ok &= _persistence_section(say, rows, out_dir)
    say()
    if "mushrooms" in context:
        ok &= _step(say, "3. Novikoff section", lambda: _novikoff_section(say, data, context,
                                                                            quick))
        say()
    ok &= _tightness_section(say, quick)
    say()
    ok &= _figures_section(say, data, context, out_dir)
    say()
    say(f"done in {time.perf_counter() - start:.1f}s; "
        + ("every step ran and every bound held." if ok
           else "something FAILED or a bound did NOT hold: please report this."))
    path = os.path.join(out_dir, "demo-report.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(say.lines) + "\n")
    print(f"report written to {path}")
    return 0 if ok else 1
