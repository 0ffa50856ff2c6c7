"""The steps of the course's notes as commands: ``play --passes`` / ``--trace``, ``shatter``,
and the two columns of wider data that a 2-D plot draws (``--columns``)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import numpy as np

from . import _estimators, _features
from ._io import CLIError, print_json, print_table, read_args_data
from ._options import PERCEPTRON_ALGOS
from ._theory import perceptron_bound_summary


def play_passes(plan) -> int:
    """``play --passes N`` (cycle over the data until a pass without a mistake, at most N
    passes; a row per pass) and ``play --trace`` (a row per round); ``plan``: a
    :class:`~._plan.PlayPlan`."""
    from .._rounds import cycle, weights  # the learners: not at start-up

    _, data = _features.scaled(plan.scale, read_args_data(plan.source, featurize=True))
    learner = _estimators.online_learner(plan.estimator, data.X)
    trace: list | None = [] if plan.trace else None
    epochs = cycle(learner, data.X, data.y, plan.passes or 1, trace)
    total = epochs[-1]["total_mistakes"]
    result: dict[str, Any] = {"algo": plan.algo, "n_samples": data.n_samples,
                              "passes": len(epochs), "converged": epochs[-1]["mistakes"] == 0,
                              "n_mistakes": total, "epochs": epochs}
    if trace is not None:
        result["trace"] = trace
    result["w"], result["b"] = weights(learner)
    if plan.algo in PERCEPTRON_ALGOS:
        result["perceptron_mistakes"] = int(learner.n_mistakes_)
        result["bound"] = perceptron_bound_summary(data, bool(learner.fit_intercept),
                                                   plan.bound_limit)
    if plan.report.json:
        print_json(result)
        return 0
    if trace is not None:
        _print_trace(trace, several=bool(plan.passes))
        if getattr(learner, "average", False):
            print(f"w_t: '-': --algo {plan.algo} reports the average of its iterates, not the"
                  " w that scores x_t (--set average=false traces the iterates)")
    if plan.passes:
        _print_epochs(result, plan.passes)
    return 0


def _numbers(values) -> str:
    if values is None:
        return "-"
    if isinstance(values, dict):
        return " ".join(f"{j}:{v:.4g}" for j, v in values.items()) or "(zero)"
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def _print_trace(trace: list[dict], several: bool) -> None:
    head = f"{'epoch':>5} " if several else ""
    print(f"{head}{'t':>6} {'row':>6} {'y_t':>6} {'score':>10} {'mistake':>7}  x_t ; w_t (b_t)")
    for r in trace:
        epoch = f"{r['epoch']:>5} " if several else ""
        b = "" if r["b"] is None else f" b={r['b']:.4g}"
        print(f"{epoch}{r['t']:>6} {r['row']:>6} {r['y']:>6} {r['score']:>10.4g}"
              f" {'yes' if r['mistake'] else 'no':>7}  {_numbers(r['x'])} ;"
              f" {_numbers(r['w'])}{b}")


def _print_epochs(result: dict, passes: int) -> None:
    print(f"{'pass':>5} {'mistakes':>9} {'total':>9}")
    for row in result["epochs"]:
        print(f"{row['epoch']:>5} {row['mistakes']:>9} {row['total_mistakes']:>9}")
    n = result["passes"]
    if result["converged"]:
        print(f"converged: pass {n} made no mistake (the data is separated by w,"
              f" {result['n_mistakes']} mistakes in all)")
    else:
        print(f"not converged: every one of the {n} passes (--passes {passes}) made a"
              " mistake")
    bound = result.get("bound")
    if not bound:
        return
    if not bound["checked"]:
        print(f"bound: not computed: {bound['reason']}")
    elif bound["separable"]:
        m, limit = result["perceptron_mistakes"], bound["novikoff_bound"]
        q = "'" if bound["augmented"] else ""
        print(f"Novikoff bound (R{q}/gamma{q})^2 = ({bound['radius']:.6g}/{bound['margin']:.6g})"
              f"^2 = {limit:.6g}: it bounds the mistakes of all passes together; mistakes"
              f" {m} {'<=' if m <= limit else '>'} bound")
    else:
        print("the data is not linearly separable (LP certificate: halfspaces bound DATA lists"
              " its rows): the perceptron never converges on it")


# -- shatter ------------------------------------------------------------------------------

def _read_points(specs: list[str]) -> np.ndarray:
    """Points given as ``x1,x2,...`` arguments, or as files with one point per line (numbers
    separated by commas or blanks; ``#`` starts a comment)."""
    import os

    points: list[tuple[str, list[float]]] = []
    for spec in specs:
        if os.path.exists(spec):
            with open(spec, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    text = line.split("#", 1)[0].replace(",", " ").split()
                    if text:
                        points.append((f"{spec}:{number}", _floats(text, f"{spec}:{number}")))
        else:
            points.append((f"point {spec!r}", _floats(spec.split(","), f"point {spec!r}")))
    if not points:
        raise CLIError("shatter: no points given (arguments x1,x2,... or a file of points)")
    dims = {len(p) for _, p in points}
    if len(dims) > 1:
        where, first = points[0]
        odd = next(w for w, p in points if len(p) != len(first))
        raise CLIError(f"shatter: {odd}: {len(dict(points)[odd])} coordinates, but {where} has"
                       f" {len(first)}: every point needs the same number")
    return np.array([p for _, p in points], dtype=np.float64)


def _floats(fields: list[str], where: str) -> list[float]:
    try:
        values = [float(f) for f in fields]
    except ValueError:
        raise CLIError(f"shatter: {where}: expected numbers separated by commas (x1,x2,...),"
                       f" or the name of an existing file of points; got {','.join(fields)!r}"
                       ) from None
    if not np.all(np.isfinite(values)):
        raise CLIError(f"shatter: {where}: coordinates must be finite numbers")
    return values


def cmd_shatter(args: argparse.Namespace) -> int:
    from ..theory import radon_partition, shatters
    from ..theory.shattering import MAX_POINTS_LP

    points = _read_points(args.points)
    m, d = points.shape
    if m > MAX_POINTS_LP:
        raise CLIError(f"shatter: {m} points: deciding all 2^(m-1) labellings takes too long"
                       f" beyond {MAX_POINTS_LP} points")
    res = shatters(points, fit_intercept=args.fit_intercept)
    vc = d + 1 if args.fit_intercept else d
    out: dict[str, Any] = {"n_points": m, "dimension": d, "fit_intercept": args.fit_intercept,
                           "shattered": res.shattered, "vc_dimension": vc,
                           "labellings_checked": res.n_labellings_checked}
    if not res.shattered:
        alpha = res.certificate
        out["failing_labelling"] = res.failing_labelling.astype(int)
        out["certificate"] = alpha
        if args.fit_intercept:  # not shattered: the points are affinely dependent
            radon = radon_partition(points)
            out["radon"] = {"positive": radon.positive, "negative": radon.negative,
                            "point": radon.point}
    if args.json:
        print_json(out)
        return 0
    offset = "with an offset" if args.fit_intercept else "through the origin"
    rows: list[tuple[str, Any]] = [
        ("points", f"{m} in R^{d}"),
        ("shattered", f"{'yes' if res.shattered else 'no'} (halfspaces {offset};"
                      f" {res.n_labellings_checked} labellings decided by LP)"),
        ("VC dimension", f"{vc} ({'d + 1' if args.fit_intercept else 'd'})")]
    if not res.shattered:
        labels = " ".join(f"{int(v):+d}" for v in res.failing_labelling)
        support = np.flatnonzero(alpha > 0)
        rows += [("labelling no halfspace realizes", labels),
                 ("its Farkas certificate alpha", " ".join(f"{a:.4g}" for a in alpha)),
                 ("  on the points (0-based)", " ".join(str(i) for i in support))]
        if "radon" in out:
            r = out["radon"]
            rows += [("Radon partition I | J", f"{' '.join(map(str, r['positive']))} |"
                                               f" {' '.join(map(str, r['negative']))}"),
                     ("  conv(I) and conv(J) meet at", _numbers(r["point"].tolist()))]
    print_table(rows)
    return 0


# -- the two columns of a 2-D plot ---------------------------------------------------------

def columns(text: str) -> tuple[int, int]:
    """``--columns I,J``: two distinct 0-based column numbers."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected two 0-based column numbers I,J such as 0,1;"
                                         f" got {text!r}")
    i, j = (int(p) for p in parts)
    if i == j:
        raise argparse.ArgumentTypeError(f"the two columns must differ; got {text!r}")
    return i, j


def pick_columns(data, picked: tuple[int, int] | None, kind: str):
    """``data`` with its features narrowed to ``--columns I,J``; wider data without the
    option is refused, naming the option."""
    d = data.X.shape[1]
    if picked is None:
        if d != 2:
            raise CLIError(f"plot {kind} draws 2 features in the plane, but {data.path} has"
                           f" {d}: pick two of them with --columns I,J (0-based, e.g."
                           f" --columns 0,1)")
        return data
    if max(picked) >= d:
        raise CLIError(f"--columns {picked[0]},{picked[1]}: {data.path} has {d} feature"
                       f" columns (0 to {d - 1})")
    import scipy.sparse as sp

    X = data.X[:, list(picked)]
    return dataclasses.replace(data, X=X.toarray() if sp.issparse(X) else X)
