"""``halfspaces demo``: every algorithm of the library on real, bundled data, theorems checked.

Printed as it runs and saved to ``OUT_DIR/demo-report.txt``:

1. **the table**: every algorithm trained on real data -- the online learners through the
   online game (:func:`halfspaces.online.play`) over the a9a training set (UCI Adult,
   32,561 rounds), the batch ones through ``fit`` -- with its training time, a9a test
   accuracy, online mistakes next to their bound where a theorem gives one, and the
   objective with its optimality gap where one applies (SVC's duality gap, Pegasos against
   the exact SVM optimum at the same lambda, the logistic objective). The separable and
   text parts use the bundled mushrooms (UCI) and SMS spam collections;
2. every trained model saved to ``OUT_DIR/models/`` (:meth:`save`, no pickle), reloaded with
   :func:`halfspaces.load`, and checked to give identical predictions;
3. Novikoff's bound on the mushrooms, which a halfspace through the origin separates: the
   perceptron's mistakes in the file's order, cycled until it separates, in a greedy
   adversarial order, and the online-to-batch bound on the test split;
4. the bound is tight: an adversary forces exactly ``(R/gamma)^2`` mistakes;
5. figures (PNG, with matplotlib): margins, small vs large lambda, the max-margin separator
   and its support vectors, a perceptron update, mistakes against Novikoff's bound on the
   mushrooms, Pegasos's objective against the exact optimum on a9a.

``run`` returns 0 when every step ran and every printed bound and check held. ``quick=True``
uses subsamples (a few seconds in all).
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["run"]

_LAM = 1e-4  # lambda of the hinge objective shared by PegasosSVC and SVC on a9a
_LAM_TEXT = "1e-4"
_SEED = 0


class _Report:
    """Prints each line at once and keeps it for the report file."""

    def __init__(self, stream):
        self.stream = stream
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        self.lines.append(line)
        print(line, file=self.stream, flush=True)


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:110]}"


# -- data ------------------------------------------------------------------------------------

@dataclass
class _Data:
    """The bundled data sets, loaded once (subsampled in quick mode)."""

    X: Any  # a9a train / test, labels in {-1, +1}
    y: np.ndarray
    Xt: Any
    yt: np.ndarray
    Xm: Any  # mushrooms, train + test stacked, labels {-1, +1} (+1 = poisonous)
    ym: np.ndarray
    n_mtrain: int
    X2: np.ndarray  # 2-D separable synthetic data (make_separable) and a test split
    y2: np.ndarray
    X2t: np.ndarray
    y2t: np.ndarray
    mushroom: dict = field(default_factory=dict)  # R, gamma, bound, seconds to find gamma

    @property
    def Xm_tr(self):
        return self.Xm[: self.n_mtrain]

    @property
    def ym_tr(self):
        return self.ym[: self.n_mtrain]

    @property
    def Xm_te(self):
        return self.Xm[self.n_mtrain:]

    @property
    def ym_te(self):
        return self.ym[self.n_mtrain:]


def _load(quick: bool) -> _Data:
    from .datasets import make_separable
    from .datasets.bundled import load_a9a, load_mushrooms

    X, y = load_a9a("train")
    Xt, yt = load_a9a("test")
    if quick:
        X, y, Xt, yt = X[:3000], y[:3000], Xt[:3000], yt[:3000]
    X_tr, y_tr = load_mushrooms("train")
    X_te, y_te = load_mushrooms("test")
    Xm = sp.vstack([X_tr, X_te], format="csr")
    ym = np.where(np.r_[y_tr, y_te] == 1, 1.0, -1.0)
    X2, y2 = make_separable(400, 2, margin=0.08, random_state=_SEED)
    return _Data(X, np.asarray(y, float), Xt, np.asarray(yt, float), Xm, ym, X_tr.shape[0],
                 X2[:200], y2[:200], X2[200:], y2[200:])


# -- the table -------------------------------------------------------------------------------

@dataclass
class _Row:
    algorithm: str
    data: str
    how: str
    seconds: float = math.nan
    accuracy: float = math.nan
    mistakes: int | None = None
    bound: float | None = None
    objective: float | None = None
    gap: str = ""
    model: Any = None
    X_check: Any = None  # rows on which the reloaded model must predict identically
    error: str = ""
    transcript: Any = None  # the online game's record, for online rows
    lower_ok: bool = True  # Pegasos: objective not below the proven lower bound of the optimum
    slug: str = ""  # file name of the saved model

    @property
    def bound_holds(self) -> bool:
        return self.bound is None or self.mistakes is None or self.mistakes <= self.bound


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _experts_on_a9a(n_features: int):
    """2d experts on 0/1 features: "+1 iff x_j = 1" and "+1 iff x_j = 0"."""
    eye = np.eye(n_features)
    return np.vstack([eye, -eye]), np.r_[np.full(n_features, -0.5), np.full(n_features, 0.5)]


def _direction_class(n: int) -> np.ndarray:
    """``n`` unit halfspaces through the origin of the plane, at angles 2 pi k / n."""
    angles = 2 * np.pi * np.arange(n) / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def _online_row(label: str, data: str, learner, X, y, Xt, yt, note: str = "") -> _Row:
    from .online import play

    transcript, seconds = _timed(lambda: play(learner, X, y))
    row = _Row(label, data, "online", seconds, learner.score(Xt, yt),
               transcript.n_mistakes, model=learner, X_check=Xt)
    row.gap = note
    row.transcript = transcript
    return row


def _rows(d: _Data, quick: bool) -> tuple[list[_Row], dict[str, Any]]:
    """Train every algorithm; a failure becomes a row with its error, never a crash."""
    from . import (
        SVC,
        AveragedPerceptron,
        HalvingClassifier,
        KernelPerceptron,
        LogisticRegression,
        LPSeparator,
        PegasosSVC,
        Perceptron,
        VotedPerceptron,
        WeightedMajorityClassifier,
    )
    from .losses import svm_objective
    from .theory import halving_mistake_bound, weighted_majority_mistake_bound

    n = d.X.shape[0]
    a9a = f"a9a {n // 1000}k" if n >= 1000 else f"a9a {n}"
    rows: list[_Row] = []
    context: dict[str, Any] = {}

    def attempt(label: str, data: str, how: str, build: Callable[[], _Row]) -> None:
        try:
            rows.append(build())
        except Exception as exc:  # noqa: BLE001 - one failing algorithm must not stop the tour
            rows.append(_Row(label, data, how, error=_one_line(exc)))

    # Online learners through the online game on a9a.
    attempt("Perceptron", a9a, "online", lambda: _online_row(
        "Perceptron", a9a, Perceptron(), d.X, d.y, d.Xt, d.yt))
    attempt("AveragedPerceptron", a9a, "online", lambda: _online_row(
        "AveragedPerceptron", a9a, AveragedPerceptron(), d.X, d.y, d.Xt, d.yt))
    attempt("VotedPerceptron", a9a, "online", lambda: _online_row(
        "VotedPerceptron", a9a, VotedPerceptron(), d.X, d.y, d.Xt, d.yt))
    k = 300 if quick else 5000
    attempt("KernelPerceptron(rbf)", f"a9a {k}", "online", lambda: _online_row(
        "KernelPerceptron(rbf)", f"a9a {k}", KernelPerceptron(kernel="rbf"), d.X[:k], d.y[:k],
        d.Xt, d.yt))

    def weighted_majority() -> _Row:
        W, b = _experts_on_a9a(d.X.shape[1])
        row = _online_row("WeightedMajority(beta=.5)", a9a,
                          WeightedMajorityClassifier(W, beta=0.5, offsets=b), d.X, d.y,
                          d.Xt, d.yt)
        best = int(row.model.expert_mistakes_.min())
        row.bound = weighted_majority_mistake_bound(W.shape[0], best, 0.5)
        row.gap = f"246 experts x_j=1/x_j=0, best m*={best}"
        return row

    attempt("WeightedMajority(beta=.5)", a9a, "online", weighted_majority)

    def halving() -> _Row:
        W = _direction_class(360)
        P = np.where(d.X2 @ W.T >= 0, 1.0, -1.0)
        consistent = int(np.all(P == d.y2[:, None], axis=0).sum())
        if consistent == 0:
            raise RuntimeError("no direction of the class separates the 2-D data")
        row = _online_row("Halving", "2-D synth", HalvingClassifier(W), d.X2, d.y2, d.X2t,
                          d.y2t)
        row.bound = float(halving_mistake_bound(W.shape[0]))
        row.gap = f"360 directions, {consistent} consistent"
        return row

    attempt("Halving", "2-D synth", "online", halving)

    def mushroom_perceptron() -> _Row:
        row = _online_row("Perceptron(no offset)", "mushrooms tr", Perceptron(fit_intercept=False),
                          d.Xm_tr, d.ym_tr, d.Xm_te, d.ym_te)
        row.bound = d.mushroom["bound"]  # of all the mushrooms, so of the training rows too
        row.gap = "separable: Novikoff (R/gamma)^2"
        return row

    attempt("Perceptron(no offset)", "mushrooms tr", "online", mushroom_perceptron)

    # The exact SVM optimum at lambda on a9a, then Pegasos measured against it.
    def svc_dcd() -> _Row:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf, seconds = _timed(lambda: SVC(lam=_LAM, solver="dcd", tol=1e-3, max_iter=20_000,
                                              random_state=_SEED).fit(d.X, d.y))
        row = _Row(f"SVC(dcd, lam={_LAM_TEXT})", a9a, "fit", seconds, clf.score(d.Xt, d.yt),
                   objective=float(clf.objective_), model=clf, X_check=d.Xt)
        # lam form: J_lam = lam * J_C; the true optimum lies in [J - lam * gap, J].
        J = svm_objective(np.ravel(clf.coef_), float(np.ravel(clf.intercept_)[0]), d.X, d.y,
                          lam=_LAM)
        row.gap = f"duality gap {float(clf.duality_gap_):.3g}; J* = lam * objective = {J:.6g}"
        if caught:
            row.gap += " (not converged)"
        context["J_svc"], context["J_low"] = J, J - _LAM * float(clf.duality_gap_)
        return row

    attempt(f"SVC(dcd, lam={_LAM_TEXT})", a9a, "fit", svc_dcd)

    def pegasos_gap(row: _Row, clf) -> None:
        J = svm_objective(np.ravel(clf.coef_), float(np.ravel(clf.intercept_)[0]), d.X, d.y,
                          lam=_LAM)
        row.objective = J
        if "J_svc" in context:
            rel = (J - context["J_svc"]) / context["J_svc"]
            row.gap = f"{100 * rel:+.2f}% vs SVC optimum"
            # Theorem check: no weight vector beats the dual lower bound of the optimum.
            row.lower_ok = bool(J >= context["J_low"] * (1 - 1e-12))

    def pegasos_online() -> _Row:
        row = _online_row(f"PegasosSVC(lam={_LAM_TEXT})", a9a, PegasosSVC(lam=_LAM,
                          random_state=_SEED), d.X, d.y, d.Xt, d.yt)
        pegasos_gap(row, row.model)
        return row

    attempt(f"PegasosSVC(lam={_LAM_TEXT})", a9a, "online", pegasos_online)

    def pegasos_fit() -> _Row:
        epochs = 5 if quick else 30
        clf, seconds = _timed(lambda: PegasosSVC(lam=_LAM, max_iter=epochs, record_objective=True,
                                                 random_state=_SEED).fit(d.X, d.y))
        row = _Row(f"PegasosSVC({epochs} epochs)", a9a, "fit", seconds, clf.score(d.Xt, d.yt),
                   model=clf, X_check=d.Xt)
        pegasos_gap(row, clf)
        context["pegasos_history"] = np.asarray(clf.objective_history_, float).ravel()
        return row

    attempt("PegasosSVC(epochs)", a9a, "fit", pegasos_fit)

    q = 300 if quick else 2000
    for label, params in ((f"SVC(qp, lam={_LAM_TEXT})", dict(lam=_LAM, solver="qp")),
                          ("SVC(rbf kernel, C=1)", dict(C=1.0, kernel="rbf"))):
        def svc_small(label=label, params=params) -> _Row:
            clf, seconds = _timed(lambda: SVC(**params).fit(d.X[:q], d.y[:q]))
            return _Row(label, f"a9a {q}", "fit", seconds, clf.score(d.Xt, d.yt),
                        objective=float(clf.objective_), model=clf, X_check=d.Xt,
                        gap=f"duality gap {float(clf.duality_gap_):.3g}")

        attempt(label, f"a9a {q}", "fit", svc_small)

    def logistic() -> _Row:
        clf, seconds = _timed(lambda: LogisticRegression(lam=_LAM).fit(d.X, d.y))
        return _Row(f"LogisticRegression(lam={_LAM_TEXT})", a9a, "fit", seconds,
                    clf.score(d.Xt, d.yt), objective=float(clf.objective_), model=clf,
                    X_check=d.Xt, gap=f"L-BFGS, {clf.n_iter_} iterations")

    attempt("LogisticRegression", a9a, "fit", logistic)

    def lp() -> _Row:
        clf, seconds = _timed(lambda: LPSeparator(fit_intercept=False).fit(d.Xm_tr, d.ym_tr))
        return _Row("LPSeparator", "mushrooms tr", "fit", seconds,
                    clf.score(d.Xm_te, d.ym_te), model=clf, X_check=d.Xm_te,
                    gap="y<w,x> >= 1 for every row: " + ("yes" if np.all(clf.separable_)
                                                         else "NO"))

    attempt("LPSeparator", "mushrooms tr", "fit", lp)

    def spam() -> _Row:
        from .datasets.bundled import load_sms_spam
        from .datasets.text import make_text_pipeline

        texts, labels = load_sms_spam()
        texts = np.asarray(texts, dtype=object)
        order = np.random.default_rng(_SEED).permutation(len(texts))
        if quick:
            order = order[:1500]
        cut = int(0.7 * order.size)
        tr, te = order[:cut], order[cut:]
        model = make_text_pipeline(PegasosSVC(lam=_LAM, max_iter=10, random_state=_SEED))
        model, seconds = _timed(lambda: model.fit(list(texts[tr]), labels[tr]))
        return _Row("PegasosSVC on raw text", f"sms {tr.size}", "fit", seconds,
                    model.score(list(texts[te]), labels[te]), model=model,
                    X_check=list(texts[te]), gap="HashingVectorizer pipeline")

    attempt("PegasosSVC on raw text", "sms_spam", "fit", spam)
    for row in rows:
        row.slug = _slug(row.algorithm, row.data)
    return rows, context


def _slug(*parts: str) -> str:
    text = "".join(c if c.isalnum() else "_" for c in "_".join(parts).lower())
    return "_".join(piece for piece in text.split("_") if piece)


def _fmt(value: float | None, spec: str, width: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}{spec}}"


def _print_table(say: _Report, rows: list[_Row]) -> bool:
    ok = True
    header = (f"   {'algorithm':<31}{'data':<14}{'how':<7}{'train':>8}{'test acc':>10}"
              f"{'mistakes':>10}{'bound':>10}  {'objective':>11}  notes (gap etc.)")
    say(header)
    say("   " + "-" * (len(header) - 3 + 10))
    for r in rows:
        if r.error:
            ok = False
            say(f"   {r.algorithm:<31}{r.data:<14}{r.how:<7}FAILED: {r.error}")
            continue
        holds = r.bound_holds and r.lower_ok
        ok &= holds
        mark = "" if r.bound is None else (" ok" if r.bound_holds else " VIOLATED")
        if not r.lower_ok:
            mark += " BELOW THE PROVEN OPTIMUM"
        bound = "-" if r.bound is None else f"{r.bound:,.1f}"
        say(f"   {r.algorithm:<31}{r.data:<14}{r.how:<7}{r.seconds:>7.2f}s"
            f"{100 * r.accuracy:>9.2f}%"
            f"{'-' if r.mistakes is None else f'{r.mistakes:,}':>10}{bound:>10}  "
            f"{_fmt(r.objective, '.6g', 11)}  {r.gap}{mark}")
    return ok


def _table_section(say: _Report, d: _Data, quick: bool
                   ) -> tuple[list[_Row], dict[str, Any], bool]:
    n, nt = d.X.shape[0], d.Xt.shape[0]
    say(f"1. Every algorithm on real data. Main set: a9a (UCI Adult), {n:,} training rows of"
        f" {d.X.shape[1]} binary features, test accuracy on {nt:,} rows of a9a.t.")
    say("   'online': the learner plays the online game (predict x_t, see y_t, update; a"
        " mistake is y_t * score_t <= 0)")
    say("   in one pass, then is scored on the test set; 'fit': batch training. mushrooms:"
        f" {d.n_mtrain:,} training / {d.Xm.shape[0] - d.n_mtrain:,} test rows (separable);")
    say("   sms: SMS spam collection as raw text (70/30 split); 2-D synth: make_separable"
        " (200 rows, margin 0.08), tested on 200 more.")
    majority = 100 * max(np.mean(d.yt == 1), np.mean(d.yt == -1))
    say(f"   Always predicting the majority class of a9a.t: {majority:.2f}% test accuracy.")
    say()
    rows, context = _rows(d, quick)
    ok = _print_table(say, rows)
    say()
    say("   train: seconds to play or fit (numba kernels are compiled on first use and cached).")
    say("   bound: a theorem's mistake bound where one applies -- Weighted Majority"
        " (ln N + m* ln 2)/ln(4/3), Halving log2 N")
    say("   (some direction of the class separates the data), Novikoff (R/gamma)^2 (gamma:"
        " max margin); a9a is not separable: no bound.")
    say("   objective: SVC, the C form 1/2||theta||^2 + C sum hinge with C = 1/(lam n) and its"
        " duality gap (primal minus dual, >= 0);")
    say(f"   Pegasos, the lam form J = 1/n sum hinge + lam/2 ||theta||^2 at lam = {_LAM:g},"
        " relative to the SVC optimum J* = lam * objective_")
    say("   (checked: never below the dual lower bound); logistic, its own J (lam form,"
        " logistic loss).")
    return rows, context, ok


# -- persistence -----------------------------------------------------------------------------

def _persistence_section(say: _Report, rows: list[_Row], out_dir: str) -> bool:
    from .persistence import load

    folder = os.path.join(out_dir, "models")
    os.makedirs(folder, exist_ok=True)
    say(f"2. Every trained model saved with Estimator.save to {folder}/ (arrays + JSON, no"
        " pickle), loaded back with")
    say("   halfspaces.load, and its predictions on the test rows compared with the"
        " original's:")
    ok, total, same = True, 0, 0
    for r in rows:
        if r.error or r.model is None:
            continue
        path = os.path.join(folder, r.slug + ".model")
        total += 1
        try:
            if hasattr(r.model, "save"):
                r.model.save(path)
            else:  # a scikit-learn Pipeline around one of ours
                from .persistence import save

                save(r.model, path)
            clone = load(path)
            identical = bool(np.array_equal(clone.predict(r.X_check),
                                            r.model.predict(r.X_check)))
        except Exception as exc:  # noqa: BLE001
            ok = False
            say(f"   {os.path.basename(path):<48} FAILED: {_one_line(exc)}")
            continue
        same += identical
        ok &= identical
        n_rows = len(r.X_check) if isinstance(r.X_check, list) else r.X_check.shape[0]
        say(f"   {os.path.basename(path):<48}{os.path.getsize(path):>10,} bytes  "
            + (f"identical predictions on {n_rows:,} rows" if identical
               else "PREDICTIONS DIFFER"))
    say(f"   {same} of {total} models reload to identical predictions.")
    return ok


# -- Novikoff on the mushrooms ---------------------------------------------------------------

def _mushroom_margin(d: _Data) -> None:
    """Novikoff's bound for the perceptron through the origin: R, the max margin gamma and
    (R/gamma)^2."""
    from .theory import perceptron_bound

    res, seconds = _timed(lambda: perceptron_bound(d.Xm, d.ym, fit_intercept=False))
    if not res.separable:
        raise RuntimeError("no halfspace through the origin separates the mushrooms"
                           f" (certificate on {res.certificate_rows.size} rows)")
    d.mushroom.update(R=res.radius, gamma=res.margin, bound=res.bound, seconds=seconds)


def _novikoff_section(say: _Report, d: _Data, quick: bool) -> tuple[bool, Any]:
    from .adversaries import GreedyOrderAdversary
    from .linear.perceptron import Perceptron
    from .online import play
    from .theory import online_to_batch_bound, perceptron_bound

    ok = True
    X, y = d.Xm, d.ym
    R, gamma, bound = (d.mushroom[k] for k in ("R", "gamma", "bound"))
    say(f"3. Novikoff's bound on real separable data: mushrooms (UCI), {X.shape[0]:,} rows"
        f" (train {d.n_mtrain:,} + test {X.shape[0] - d.n_mtrain:,}), {X.shape[1]} one-hot"
        " features,")
    say(f"   22 per row, so R = max ||x|| = sqrt(22) = {R:.4f}. Label +1 = poisonous."
        " A halfspace through the origin separates all of it.")
    say(f"   gamma = {gamma:.6f}: the maximum margin (theory.perceptron_bound, a"
        f" hard-margin QP through the origin, {d.mushroom['seconds']:.1f}s),")
    say("   the best gamma Novikoff's bound can use.")
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
    sub = perceptron_bound(Xg, yg, fit_intercept=False)  # their own R and max margin
    tg = play(Perceptron(fit_intercept=False), GreedyOrderAdversary(Xg, yg))
    tf = play(Perceptron(fit_intercept=False), Xg, yg)
    say(f"   on the first {n_greedy} rows (their own max margin {sub.margin:.6f}):")
    line("  file order", tf.n_mistakes, sub.bound)
    line("  greedy adversary (shows a row the learner gets wrong)", tg.n_mistakes, sub.bound)
    say("     (greedy is a heuristic, not the worst order; the bound holds for every order)")

    learner = Perceptron(fit_intercept=False)
    train = play(learner, d.Xm_tr, d.ym_tr)
    test = play(learner, d.Xm_te, d.ym_te)  # the same learner keeps learning
    left = online_to_batch_bound(R, gamma, train.n_mistakes)
    say("   online-to-batch: the perceptron plays the training split, then keeps playing the"
        " test split;")
    line(f"  test mistakes (after {train.n_mistakes} training mistakes)", test.n_mistakes,
         left)
    return ok, (t, bound)


def _tightness_section(say: _Report, quick: bool) -> bool:
    from . import AveragedPerceptron, PegasosSVC, Perceptron
    from .adversaries import TightNovikoffAdversary
    from .online import play
    from .theory import geometric_margin

    k = 25 if quick else 100
    say(f"4. The bound is tight: an adversary shows x_t = e_t in R^{k} and labels it against"
        " the prediction.")
    say(f"   Afterwards u = sum_t y_t e_t / sqrt({k}) separates the sequence with margin"
        f" 1/sqrt({k}), R = 1, so (R/gamma)^2 = {k}.")
    ok = True
    for cls, kwargs in [(Perceptron, {"fit_intercept": False}), (AveragedPerceptron, {}),
                        (PegasosSVC, {"lam": 1e-2})]:
        name = cls.__name__
        adversary = TightNovikoffAdversary(k)
        try:
            t = play(cls(**kwargs), adversary)
        except Exception as exc:  # noqa: BLE001 - report, keep touring
            ok = False
            say(f"   {name:<22}FAILED: {_one_line(exc)}")
            continue
        margin = geometric_margin(adversary.separator_, t.X, np.asarray(t.labels, float))
        check = t.against_bound(float(k), "(R/gamma)^2")
        ok &= bool(check) and bool(np.isclose(margin, adversary.margin))
        say(f"   {name:<22}{check}; realized margin of u {margin:.4f}")
    return ok


# -- figures ---------------------------------------------------------------------------------

def _update_example(X: np.ndarray, y: np.ndarray):
    """A real perceptron mistake on the 2-D data: (w before, x, y), w rebuilt from the game."""
    from .linear.perceptron import Perceptron
    from .online import play

    t = play(Perceptron(fit_intercept=False), X, y)
    rounds = np.flatnonzero(t.mistakes)
    w = np.zeros(2)
    for i, r in enumerate(rounds):
        if i >= 2 and np.linalg.norm(w) > 0:
            # The transcript's score is <w_t, x_t> with w_t = sum of y_s x_s over the mistakes
            # before round t: check the rebuilt w against it.
            if not np.isclose(t.scores[r], w @ X[r]):
                raise RuntimeError("rebuilt perceptron weights disagree with the transcript")
            return w, X[r], int(y[r])
        w = w + y[r] * X[r]
    raise RuntimeError("the perceptron made fewer than 3 mistakes on the 2-D data")


def _figures_section(say: _Report, d: _Data, out_dir: str, novikoff_run, pegasos) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("5. Figures skipped: matplotlib is not installed (pip install 'halfspaces[plot]').")
        return True
    from . import SVC, plotting

    say(f"5. Figures (PNG) in {out_dir}/. The 2-D ones use make_separable(400, 2, margin=0.08,"
        f" random_state={_SEED}), first 200 rows;")
    say("   'noisy' flips 10% of those labels so that the soft margin has points inside it.")
    X2, y2 = d.X2, d.y2
    rng = np.random.default_rng(_SEED)
    noisy = y2.copy()
    flip = rng.choice(y2.size, size=y2.size // 10, replace=False)
    noisy[flip] = -noisy[flip]
    ok = True

    def figure(name: str, what: str, draw: Callable[[], Any]) -> None:
        nonlocal ok
        path = os.path.join(out_dir, name)
        try:
            made = draw()
            fig = made if hasattr(made, "savefig") else made.figure
            fig.savefig(path, dpi=100)
            plt.close(fig)
            say(f"   {name:<26}{what}")
        except Exception as exc:  # noqa: BLE001
            ok = False
            plt.close("all")
            say(f"   {name:<26}FAILED: {_one_line(exc)}")

    figure("decision_boundary.png", "linear SVC (lam=0.01) on the noisy 2-D data: boundary,"
           " margins score = +-1, points inside circled",
           lambda: plotting.plot_decision_boundary(SVC(lam=1e-2).fit(X2, noisy), X2, noisy,
                                                   title="SVC, lam = 0.01 (2-D synthetic,"
                                                         " 10% labels flipped)"))
    figure("regularization.png", "small vs large lambda (1e-3, 1) on the noisy 2-D data: narrow"
           " vs wide margin",
           lambda: plotting.plot_regularization(X2, noisy, (1e-3, 1.0)))
    figure("max_margin.png", "max-margin separator of the separable 2-D data, support vectors"
           " circled",
           lambda: plotting.plot_max_margin(X2, y2))

    def update():
        w, x, label = _update_example(X2, y2)
        return plotting.plot_perceptron_update(w, x, label)

    figure("perceptron_update.png", "a real mistake of the perceptron on the 2-D data:"
           " w <- w + y x", update)
    if novikoff_run is not None:
        transcript, bound = novikoff_run
        figure("mistakes_vs_novikoff.png", "mushrooms, one online pass: mistakes over 8,124"
               f" rounds vs (R/gamma)^2 = {bound:.1f}",
               lambda: plotting.plot_mistakes(transcript, bound,
                                              label="Perceptron on mushrooms"))
    if pegasos is not None:
        history, optimum = pegasos

        def objective():
            fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
            plotting.plot_objective(history, optimum, ax=left, label="PegasosSVC on a9a")
            plotting.plot_objective(history, optimum, ax=right, gap=True, label="PegasosSVC")
            return fig

        figure("pegasos_objective.png", f"Pegasos on a9a (lam={_LAM_TEXT}): J per epoch vs the"
               " exact optimum (SVC, dcd); right: J - J* (log)", objective)
    return ok


# -- entry point -----------------------------------------------------------------------------

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
    say = _Report(sys.stdout)
    start = time.perf_counter()
    say("halfspaces demo: online learning and margins, with the theorems checked on real data"
        + (" (quick: subsamples)" if quick else ""))
    say()
    d = _load(quick)
    ok = True
    try:
        _mushroom_margin(d)
    except Exception as exc:  # noqa: BLE001
        say(f"   perceptron_bound on the mushrooms FAILED: {_one_line(exc)}")
        ok = False
    rows, context, table_ok = _table_section(say, d, quick)
    ok &= table_ok
    say()
    ok &= _persistence_section(say, rows, out_dir)
    say()
    novikoff_run = None
    if d.mushroom:
        try:
            novikoff_ok, novikoff_run = _novikoff_section(say, d, quick)
            ok &= novikoff_ok
        except Exception as exc:  # noqa: BLE001
            ok = False
            say(f"3. Novikoff section FAILED: {_one_line(exc)}")
        say()
    ok &= _tightness_section(say, quick)
    say()
    pegasos = ((context["pegasos_history"], context["J_svc"])
               if "pegasos_history" in context and "J_svc" in context else None)
    ok &= _figures_section(say, d, out_dir, novikoff_run, pegasos)
    say()
    say(f"done in {time.perf_counter() - start:.1f}s; "
        + ("every step ran and every bound held." if ok
           else "something FAILED or a bound did NOT hold: please report this."))
    path = os.path.join(out_dir, "demo-report.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(say.lines) + "\n")
    print(f"report written to {path}")
    return 0 if ok else 1
