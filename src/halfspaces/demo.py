"""``halfspaces demo``: the online game and its theorems on real, bundled data.

Three parts, each printed as it runs and saved to ``OUT_DIR/demo-report.txt``:

1. every online learner of the library plays the online game over the a9a training set
   (UCI Adult, 32,561 rounds), then is scored on the a9a test set;
2. Novikoff's bound on a real separable set: the mushrooms (UCI, 8,124 rows), which a
   halfspace through the origin separates. The perceptron's mistakes, in the file's order,
   in a greedy adversarial order, and cycled until it separates, next to ``(R/gamma)^2``,
   and the online-to-batch bound on the test split;
3. the bound is tight: an adversary forces exactly ``(R/gamma)^2`` mistakes.

Learners that a build of the library lacks are skipped with a note. ``quick=True`` plays
fewer rounds (a few seconds in all).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["run"]


class _Report:
    """Prints each line at once and keeps it for the report file."""

    def __init__(self, stream):
        self.stream = stream
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        self.lines.append(line)
        print(line, file=self.stream, flush=True)


def _public(name: str):
    """A public estimator of halfspaces, or None when this build does not have it yet."""
    import halfspaces

    try:
        return getattr(halfspaces, name)
    except (ImportError, AttributeError):
        return None


def _single_feature_experts(n_features: int):
    """2d experts on 0/1 features: "+1 iff x_j = 1" and "+1 iff x_j = 0"."""
    eye = np.eye(n_features)
    hypotheses = np.vstack([eye, -eye])
    offsets = np.r_[np.full(n_features, -0.5), np.full(n_features, 0.5)]
    return hypotheses, offsets


def _learners(quick: bool) -> list[tuple[str, str, Callable[[], Any], int | None, str]]:
    """(label, class name, factory, rows to play or None for all, note)."""
    kernel_rows = 500 if quick else 2000
    hypotheses, offsets = _single_feature_experts(123)
    return [
        ("Perceptron", "Perceptron", lambda c: c(), None, ""),
        ("AveragedPerceptron", "AveragedPerceptron", lambda c: c(), None, ""),
        # Its vote costs O(mistakes so far) per prediction: the quick tour plays fewer rounds.
        ("VotedPerceptron", "VotedPerceptron", lambda c: c(), 1000 if quick else None,
         "first 1000 rounds only" if quick else ""),
        ("PegasosSVC(lam=1e-4)", "PegasosSVC", lambda c: c(lam=1e-4), None, ""),
        ("KernelPerceptron(rbf)", "KernelPerceptron", lambda c: c(kernel="rbf"), kernel_rows,
         f"first {kernel_rows} rounds only"),
        ("WeightedMajority(beta=.5)", "WeightedMajorityClassifier",
         lambda c: c(hypotheses, beta=0.5, offsets=offsets), None,
         "246 experts: x_j = 1 / x_j = 0"),
    ]


def _a9a_table(say: _Report, quick: bool) -> None:
    from .datasets.bundled import load_a9a
    from .online import play

    X, y = load_a9a("train")
    Xt, yt = load_a9a("test")
    if quick:
        X, y, Xt, yt = X[:5000], y[:5000], Xt[:5000], yt[:5000]
    say(f"1. The online game on a9a (UCI Adult): {X.shape[0]:,} rounds of"
        f" {X.shape[1]} binary features; test accuracy on {Xt.shape[0]:,} rows of a9a.t.")
    say("   Each learner predicts x_t, sees y_t, updates; a mistake is y_t * score_t <= 0.")
    majority = 100 * max(np.mean(yt == 1), np.mean(yt == -1))
    say(f"   Always predicting the majority class: {majority:.2f}% test accuracy.")
    say()
    header = (f"   {'learner':<27}{'rounds':>8}{'mistakes':>10}{'rate':>8}{'test acc':>10}"
              f"{'time':>8}")
    say(header)
    say("   " + "-" * (len(header) - 3))
    for label, name, factory, rows, note in _learners(quick):
        cls = _public(name)
        if cls is None:
            say(f"   {label:<27}skipped: {name} is not in this build of halfspaces yet")
            continue
        Xp, yp = (X, y) if rows is None else (X[:rows], y[:rows])
        try:
            learner = factory(cls)
            start = time.perf_counter()
            transcript = play(learner, Xp, yp)
            accuracy = learner.score(Xt, yt)
            seconds = time.perf_counter() - start
        except Exception as exc:  # a colleague's learner failing must not stop the tour
            say(f"   {label:<27}failed: {type(exc).__name__}: {' '.join(str(exc).split())[:90]}")
            continue
        say(f"   {label:<27}{transcript.n_rounds:>8,}{transcript.n_mistakes:>10,}"
            f"{100 * transcript.mistake_rate:>7.2f}%{100 * accuracy:>9.2f}%{seconds:>7.2f}s"
            + (f"  ({note})" if note else ""))
        if name == "WeightedMajorityClassifier" and hasattr(learner, "expert_mistakes_"):
            from .theory import weighted_majority_mistake_bound

            best = int(np.min(learner.expert_mistakes_))
            n_experts = int(learner.expert_mistakes_.size)
            bound = weighted_majority_mistake_bound(n_experts, best, 0.5)
            say(f"   {'':<27}best expert: {best:,} mistakes; WM bound (ln N + m* ln 2)/ln(4/3)"
                f" = {bound:,.0f} {'holds' if transcript.n_mistakes <= bound else 'VIOLATED'}")
    say("   (time: the online pass plus predicting the test set, including any compilation)")


def _best_separator(say: _Report, X, y_pm) -> tuple[np.ndarray, float, str]:
    """A unit separator through the origin and its margin, saying honestly which it is."""
    from .theory import geometric_margin

    try:
        separability = importlib.import_module("halfspaces.theory.separability")
        start = time.perf_counter()
        w, _b, margin = separability.max_margin_separator(X, y_pm, fit_intercept=False)
        seconds = time.perf_counter() - start
        u = np.asarray(w, dtype=np.float64).ravel()
        u = u / np.linalg.norm(u)
        gamma = geometric_margin(u, X, y_pm)
        return u, gamma, (f"the maximum margin (hard-margin SVM through the origin, solved as a"
                          f" QP in {seconds:.1f}s), the best gamma Novikoff's bound can use")
    except (ImportError, AttributeError):
        pass
    except Exception as exc:  # noqa: BLE001 - fall back to the perceptron's own separator
        say(f"   (max_margin_separator failed: {type(exc).__name__}; using the perceptron's)")
    from .linear.perceptron import Perceptron

    clf = Perceptron(fit_intercept=False, max_iter=10_000).fit(X, y_pm)
    u = clf.coef_[0] / np.linalg.norm(clf.coef_[0])
    return u, geometric_margin(u, X, y_pm), (
        "the margin of the separator the batch perceptron converged to: Novikoff holds for"
        " any unit separator, but this is not the maximum margin, so the bound is loose")


def _novikoff_section(say: _Report, quick: bool) -> bool:
    from .adversaries import GreedyOrderAdversary
    from .datasets.bundled import load_mushrooms
    from .linear.perceptron import Perceptron
    from .online import play
    from .theory import data_radius, geometric_margin, online_to_batch_bound
    from .theory import perceptron_mistake_bound as novikoff

    ok = True
    X_tr, y_tr = load_mushrooms("train")
    X_te, y_te = load_mushrooms("test")
    X = sp.vstack([X_tr, X_te], format="csr")
    y = np.where(np.r_[y_tr, y_te] == 1, 1.0, -1.0)  # +1 = poisonous
    R = data_radius(X)
    say(f"2. Novikoff's bound on real separable data: mushrooms (UCI), {X.shape[0]:,} rows"
        f" (train {X_tr.shape[0]:,} + test {X_te.shape[0]:,}), {X.shape[1]} one-hot features,")
    say(f"   22 per row, so R = max ||x|| = sqrt(22) = {R:.4f}. Label +1 = poisonous."
        " A halfspace through the origin separates all of it.")
    u, gamma, which = _best_separator(say, X, y)
    bound = novikoff(R, gamma)
    say(f"   gamma = {gamma:.6f}: {which}.")
    say(f"   Novikoff: every run below makes at most (R/gamma)^2 = {bound:,.1f} mistakes.")
    say()

    def line(text: str, mistakes: int, limit: float) -> None:
        nonlocal ok
        holds = mistakes <= limit
        ok &= holds
        say(f"   {text:<58}{mistakes:>6,} mistakes <= {limit:,.1f}"
            f" {'holds' if holds else 'VIOLATED'}")

    t = play(Perceptron(fit_intercept=False), X, y)
    line("one online pass, file order (train then test)", t.n_mistakes, bound)
    clf = Perceptron(fit_intercept=False, max_iter=1000).fit(X, y)
    line(f"batch perceptron cycled until separated ({clf.n_iter_} epochs)", clf.n_mistakes_,
         bound)

    n_greedy = 300 if quick else 1500
    Xg, yg = X[:n_greedy], y[:n_greedy]
    gamma_g = geometric_margin(u, Xg, yg)  # the same u; its margin on the subset is no smaller
    adversary = GreedyOrderAdversary(Xg, yg)
    tg = play(Perceptron(fit_intercept=False), adversary)
    tf = play(Perceptron(fit_intercept=False), Xg, yg)
    say(f"   on the first {n_greedy} rows (same u, margin {gamma_g:.6f} there):")
    line("  file order", tf.n_mistakes, novikoff(R, gamma_g))
    line("  greedy adversary (shows a row the learner gets wrong)", tg.n_mistakes,
         novikoff(R, gamma_g))
    say("     (greedy is a heuristic, not the worst order; the bound holds for every order)")

    learner = Perceptron(fit_intercept=False)
    train = play(learner, X_tr, y[: X_tr.shape[0]])
    test = play(learner, X_te, y[X_tr.shape[0]:])  # the same learner keeps learning
    left = online_to_batch_bound(R, gamma, train.n_mistakes)
    say("   online-to-batch: the perceptron plays the training split, then keeps playing the"
        " test split;")
    line(f"  test mistakes (after {train.n_mistakes} training mistakes)", test.n_mistakes,
         left)
    return ok


def _tightness_section(say: _Report, quick: bool) -> bool:
    from .adversaries import TightNovikoffAdversary
    from .online import play
    from .theory import geometric_margin

    k = 25 if quick else 100
    say(f"3. The bound is tight: an adversary shows x_t = e_t in R^{k} and labels it against"
        " the prediction.")
    say(f"   Afterwards u = sum_t y_t e_t / sqrt({k}) separates the sequence with margin"
        f" 1/sqrt({k}), R = 1, so (R/gamma)^2 = {k}.")
    ok = True
    for name, kwargs in [("Perceptron", {"fit_intercept": False}),
                         ("AveragedPerceptron", {}), ("PegasosSVC", {"lam": 1e-2})]:
        cls = _public(name)
        if cls is None:
            say(f"   {name:<22}skipped: not in this build of halfspaces yet")
            continue
        adversary = TightNovikoffAdversary(k)
        try:
            t = play(cls(**kwargs), adversary)
        except Exception as exc:  # noqa: BLE001 - report, keep touring
            say(f"   {name:<22}failed: {type(exc).__name__}: {' '.join(str(exc).split())[:90]}")
            continue
        margin = geometric_margin(adversary.separator_, t.X, np.asarray(t.labels, float))
        check = t.against_bound(float(k), "(R/gamma)^2")
        ok &= bool(check) and np.isclose(margin, adversary.margin)
        say(f"   {name:<22}{check}; realized margin of u {margin:.4f}")
    return ok


def run(out_dir: str | os.PathLike = "demo-output", quick: bool = False) -> int:
    """Run the tour, print it, and write ``out_dir/demo-report.txt``.

    Parameters
    ----------
    out_dir : path, default="demo-output"
        Folder for the report (created if missing).
    quick : bool, default=False
        Fewer rounds: a few seconds instead of about half a minute.

    Returns
    -------
    status : int
        0 when every bound printed held, 1 otherwise (a bug worth reporting).
    """
    say = _Report(sys.stdout)
    start = time.perf_counter()
    say("halfspaces demo: online learning and margins, with the theorems checked on real data")
    say()
    _a9a_table(say, quick)
    say()
    ok = _novikoff_section(say, quick)
    say()
    ok &= _tightness_section(say, quick)
    say()
    say(f"done in {time.perf_counter() - start:.1f}s; every bound "
        + ("held." if ok else "did NOT hold: please report this."))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "demo-report.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(say.lines) + "\n")
    print(f"report written to {path}")
    return 0 if ok else 1
