"""The demo's table: a list of :class:`Case` (an estimator, a data set, a mode) and one runner.

:func:`run_case` trains a case (through the online game, or by ``fit``), times it, scores it
on the test split, lets the case check its bound or optimality gap (``assess``), then saves
the model and loads it back. :func:`cases` is the table, in the order it runs.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Case", "Row", "Split", "load_data", "make_cases", "run_case"]

LAM = 1e-4  # lambda of the hinge objective shared by PegasosSVC and SVC on a9a
LAM_TEXT = "1e-4"
SEED = 0


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:110]}"


# -- data ------------------------------------------------------------------------------------


class Split(NamedTuple):
    """Training and test rows of one data set (labels in {-1, +1}), and its name in the table."""

    name: str
    X: Any
    y: Any
    Xt: Any
    yt: Any


def _sms(quick: bool) -> Split:
    """The SMS spam collection as raw texts, shuffled, 70% to train."""
    from ..datasets.bundled import load_sms_spam

    texts, labels = load_sms_spam()
    texts = np.asarray(texts, dtype=object)
    order = np.random.default_rng(SEED).permutation(len(texts))
    if quick:
        order = order[:1500]
    cut = int(0.7 * order.size)
    tr, te = order[:cut], order[cut:]
    return Split(f"sms {tr.size}", list(texts[tr]), labels[tr], list(texts[te]), labels[te])


def load_data(quick: bool) -> dict[str, Split]:
    """The bundled data sets, loaded once (subsampled in quick mode), by the cases' keys."""
    from ..datasets import make_separable
    from ..datasets.bundled import load_a9a, load_mushrooms

    X, y = load_a9a("train")
    Xt, yt = load_a9a("test")
    if quick:
        X, y, Xt, yt = X[:3000], y[:3000], Xt[:3000], yt[:3000]
    y, yt = np.asarray(y, float), np.asarray(yt, float)
    n, k, q = X.shape[0], 300 if quick else 5000, 300 if quick else 2000
    (Xm, ym), (Xmt, ymt) = load_mushrooms("train"), load_mushrooms("test")
    X2, y2 = make_separable(400, 2, margin=0.08, random_state=SEED)
    return {
        "a9a": Split(f"a9a {n // 1000}k" if n >= 1000 else f"a9a {n}", X, y, Xt, yt),
        "a9a kernel": Split(f"a9a {k}", X[:k], y[:k], Xt, yt),
        "a9a small": Split(f"a9a {q}", X[:q], y[:q], Xt, yt),
        # +1 = poisonous
        "mushrooms": Split("mushrooms tr", Xm, np.where(ym == 1, 1.0, -1.0), Xmt,
                           np.where(ymt == 1, 1.0, -1.0)),
        "synth": Split("2-D synth", X2[:200], y2[:200], X2[200:], y2[200:]),
        "sms": _sms(quick),
    }


def all_mushrooms(data: dict[str, Split]):
    """Training and test mushrooms stacked: the sequence of section 3."""
    import scipy.sparse as sp

    s = data["mushrooms"]
    return sp.vstack([s.X, s.Xt], format="csr"), np.r_[s.y, s.yt]


# -- the cases and their runner --------------------------------------------------------------


class Saved(NamedTuple):
    """A model saved and loaded back: its file, size, and whether it predicts the same."""

    path: str
    size: int = 0
    identical: bool = False
    n_rows: int = 0
    error: str = ""


@dataclass
class Row:
    """What :func:`run_case` measured for one case."""

    algorithm: str
    data: str
    how: str
    seconds: float = math.nan
    accuracy: float = math.nan
    mistakes: int | None = None
    bound: float | None = None
    objective: float | None = None
    note: str = ""
    model: Any = None
    transcript: Any = None  # the online game's record, for online rows
    lower_ok: bool = True  # Pegasos: objective not below the proven lower bound of the optimum
    error: str = ""
    saved: Saved | None = None

    @property
    def slug(self) -> str:
        """File name of the saved model."""
        text = "".join(c if c.isalnum() else "_" for c in f"{self.algorithm}_{self.data}".lower())
        return "_".join(piece for piece in text.split("_") if piece)

    @property
    def bound_holds(self) -> bool:
        return self.bound is None or self.mistakes is None or self.mistakes <= self.bound


class Case(NamedTuple):
    """One row of the table: an estimator, the data set it learns, and how.

    ``mode`` is ``"online"`` (the learner plays the online game over the training rows once)
    or ``"fit"`` (batch training). ``assess(row, split, context)`` fills in the row's bound,
    objective and notes; ``context`` carries results between cases (the SVM optimum that
    Pegasos is measured against).
    """

    name: str
    data: str
    mode: str
    make_estimator: Callable[[Split], Any]
    assess: Callable[[Row, Split, dict], None] | None = None


def _train(case: Case, split: Split, row: Row) -> bool:
    """Play or fit ``row.model``, timed; False when it warned that it did not converge."""
    from sklearn.exceptions import ConvergenceWarning

    from ..online import play

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        if case.mode == "online":
            row.transcript = play(row.model, split.X, split.y)
            row.mistakes = row.transcript.n_mistakes
        else:
            row.model.fit(split.X, split.y)
        row.seconds = time.perf_counter() - start
    converged = True
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            converged = False
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return converged


def _save_and_reload(row: Row, X_check, folder: str) -> Saved:
    from ..persistence import load, save

    path = os.path.join(folder, row.slug + ".model")
    try:
        save(row.model, path)
        identical = np.array_equal(load(path).predict(X_check), row.model.predict(X_check))
    except Exception as exc:  # noqa: BLE001 - reported in section 2
        return Saved(path, error=one_line(exc))
    n_rows = len(X_check) if isinstance(X_check, list) else X_check.shape[0]
    return Saved(path, os.path.getsize(path), bool(identical), n_rows)


def run_case(case: Case, split: Split, context: dict, folder: str) -> Row:
    """Train, time, score on the test rows, assess, then save to ``folder`` and reload.

    A failure becomes the row's ``error``, never an exception: one failing algorithm must not
    stop the tour.
    """
    row = Row(case.name, split.name, case.mode)
    try:
        row.model = case.make_estimator(split)
        converged = _train(case, split, row)
        row.accuracy = float(row.model.score(split.Xt, split.yt))
        if case.assess is not None:
            case.assess(row, split, context)
        if not converged:
            row.note += " (not converged)"
    except Exception as exc:  # noqa: BLE001
        row.error = one_line(exc)
        return row
    row.saved = _save_and_reload(row, split.Xt, folder)
    return row


# -- what each case checks -------------------------------------------------------------------


def _indicator_experts(n_features: int):
    """2d experts on 0/1 features: "+1 iff x_j = 1" and "+1 iff x_j = 0"."""
    from ..experts.hypothesis_classes import Hypotheses

    eye = np.eye(n_features)
    return Hypotheses(np.vstack([eye, -eye]),
                      np.r_[np.full(n_features, -0.5), np.full(n_features, 0.5)])


def _directions(n: int) -> np.ndarray:
    """``n`` unit halfspaces through the origin of the plane, at angles 2 pi k / n."""
    angles = 2 * np.pi * np.arange(n) / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def _weighted_majority_bound(row: Row, split: Split, context: dict) -> None:
    from ..theory import weighted_majority_mistake_bound

    best = int(row.model.expert_mistakes_.min())
    row.bound = weighted_majority_mistake_bound(row.model.n_hypotheses_, best, 0.5)
    row.note = f"{row.model.n_hypotheses_} experts x_j=1/x_j=0, best m*={best}"


def _halving_bound(row: Row, split: Split, context: dict) -> None:
    """log2 N, which holds when some direction of the class separates the data."""
    from ..theory import halving_mistake_bound

    W = row.model.hypotheses
    labels = np.where(split.X @ W.T >= 0, 1.0, -1.0)
    consistent = int(np.all(labels == split.y[:, None], axis=0).sum())
    if consistent == 0:
        raise RuntimeError("no direction of the class separates the 2-D data")
    row.bound = float(halving_mistake_bound(W.shape[0]))
    row.note = f"{W.shape[0]} directions, {consistent} consistent"


def _novikoff_bound(row: Row, split: Split, context: dict) -> None:
    # The bound of all the mushrooms, so of the training rows too.
    row.bound = context["mushrooms"].novikoff_bound
    row.note = "separable: Novikoff (R/gamma)^2"


def _lam_objective(model, split: Split) -> float:
    """``J = 1/n sum hinge + lam/2 ||theta||^2`` at ``LAM`` on the training rows."""
    from ..losses import svm_objective

    return svm_objective(np.ravel(model.coef_), float(np.ravel(model.intercept_)[0]), split.X,
                         split.y, lam=LAM)


def _svm_optimum(row: Row, split: Split, context: dict) -> None:
    """SVC's objective and duality gap; its J, and the dual lower bound, for Pegasos."""
    gap = float(row.model.duality_gap_)
    row.objective = float(row.model.objective_)
    # lam form: J_lam = lam * J_C; the true optimum lies in [J - lam * gap, J].
    J = _lam_objective(row.model, split)
    row.note = f"duality gap {gap:.3g}; J* = lam * objective = {J:.6g}"
    context["J_svc"], context["J_low"] = J, J - LAM * gap


def _pegasos_gap(row: Row, split: Split, context: dict) -> None:
    J = row.objective = _lam_objective(row.model, split)
    if "J_svc" in context:
        row.note = f"{100 * (J - context['J_svc']) / context['J_svc']:+.2f}% vs SVC optimum"
        # Theorem check: no weight vector beats the dual lower bound of the optimum.
        row.lower_ok = bool(J >= context["J_low"] * (1 - 1e-12))
    if row.model.record_objective:
        context["pegasos_history"] = np.asarray(row.model.objective_history_, float).ravel()


def _duality_gap(row: Row, split: Split, context: dict) -> None:
    row.objective = float(row.model.objective_)
    row.note = f"duality gap {float(row.model.duality_gap_):.3g}"


def _logistic(row: Row, split: Split, context: dict) -> None:
    row.objective = float(row.model.objective_)
    row.note = f"L-BFGS, {row.model.n_iter_} iterations"


def _lp(row: Row, split: Split, context: dict) -> None:
    row.note = "y<w,x> >= 1 for every row: " + ("yes" if np.all(row.model.separable_) else "NO")


def _text(row: Row, split: Split, context: dict) -> None:
    row.note = "HashingVectorizer pipeline"


def make_cases(quick: bool = False) -> list[Case]:
    """The table of the tour, in the order it runs (SVC's optimum before Pegasos)."""
    from .. import (
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
    from ..datasets.text import make_text_pipeline

    lam, epochs = f"lam={LAM_TEXT}", 5 if quick else 30
    return [
        Case("Perceptron", "a9a", "online", lambda s: Perceptron()),
        Case("AveragedPerceptron", "a9a", "online", lambda s: AveragedPerceptron()),
        Case("VotedPerceptron", "a9a", "online", lambda s: VotedPerceptron()),
        Case("KernelPerceptron(rbf)", "a9a kernel", "online",
             lambda s: KernelPerceptron(kernel="rbf")),
        Case("WeightedMajority(beta=.5)", "a9a", "online", lambda s: WeightedMajorityClassifier(
            **_indicator_experts(s.X.shape[1])._asdict(), beta=0.5), _weighted_majority_bound),
        Case("Halving", "synth", "online", lambda s: HalvingClassifier(_directions(360)),
             _halving_bound),
        Case("Perceptron(no offset)", "mushrooms", "online",
             lambda s: Perceptron(fit_intercept=False), _novikoff_bound),
        Case(f"SVC(dcd, {lam})", "a9a", "fit", lambda s: SVC(
            lam=LAM, solver="dcd", tol=1e-3, max_iter=20_000, random_state=SEED), _svm_optimum),
        Case(f"PegasosSVC({lam})", "a9a", "online",
             lambda s: PegasosSVC(lam=LAM, random_state=SEED), _pegasos_gap),
        Case(f"PegasosSVC({epochs} epochs)", "a9a", "fit", lambda s: PegasosSVC(
            lam=LAM, max_iter=epochs, record_objective=True, random_state=SEED), _pegasos_gap),
        Case(f"SVC(qp, {lam})", "a9a small", "fit", lambda s: SVC(lam=LAM, solver="qp"),
             _duality_gap),
        Case("SVC(rbf kernel, C=1)", "a9a small", "fit", lambda s: SVC(C=1.0, kernel="rbf"),
             _duality_gap),
        Case(f"LogisticRegression({lam})", "a9a", "fit", lambda s: LogisticRegression(lam=LAM),
             _logistic),
        Case("LPSeparator", "mushrooms", "fit", lambda s: LPSeparator(fit_intercept=False), _lp),
        Case("PegasosSVC on raw text", "sms", "fit", lambda s: make_text_pipeline(
            PegasosSVC(lam=LAM, max_iter=10, random_state=SEED)), _text),
    ]
