"""``play`` and ``bound``: the online game's progressive table, and the theory of a data set."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from . import _estimators, _features, _plan
from ._io import about, print_json, print_table, progress, read_args_data
from ._options import PERCEPTRON_ALGOS
from ._plan import BoundPlan, PlayPlan


def perceptron_bound_summary(data, fit_intercept: bool, limit: int) -> dict[str, Any]:
    """The perceptron's Novikoff bound on ``data`` in its setting (a dict for the JSON
    output), when the data is small enough (``--bound-limit``) to solve the LP and QP."""
    from ..theory import bounds_report

    if data.n_samples > limit:
        return {"checked": False,
                "reason": f"{data.n_samples} examples > --bound-limit {limit}: the separability"
                          " LP and the max-margin QP were not solved on all of them (pass"
                          f" --bound-limit {data.n_samples} to solve them)"}
    with about(data):
        res = bounds_report(data.X, data.y, fit_intercept=fit_intercept,
                            svm_margin=False).perceptron
    out: dict[str, Any] = {"checked": True, "separable": res.separable, "radius": res.radius,
                           "augmented": res.augmented}
    if res.separable:
        # exact=False: the margin is the LP separator's (the QP failed), the bound looser
        out.update(margin=res.margin, novikoff_bound=res.bound, exact=res.exact)
    return out


def prefix_bound(data, y_pm, n: int, fit_intercept: bool, limit: int
                 ) -> tuple[float | None, bool | None]:
    """Novikoff's bound ``(R/gamma)^2`` on the first ``n`` examples and whether ``gamma`` is
    the max margin (False: the LP separator's, a looser bound); ``(None, None)`` above
    ``limit`` or where they are not separable. It bounds the perceptron's mistakes in those
    rounds, so the progressive table shows it on every row (marked ``*`` where not exact,
    instead of one warning per row)."""
    import warnings

    from ..exceptions import InexactMarginWarning
    from ..theory import perceptron_bound

    if n > limit:
        return None, None
    with about(data), warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactMarginWarning)
        res = perceptron_bound(data.X[:n], y_pm[:n], fit_intercept=fit_intercept)
    return res.bound, res.exact if res.separable else None


def play(plan: PlayPlan) -> int:
    """The online game, a row per round, then the mistake bound."""
    from .._labels import format_label
    from ..online import iter_play

    algo, bound_limit, json = plan.algo, plan.bound_limit, plan.report.json
    data = _shuffled(read_args_data(plan.source, featurize=True), plan.estimator.params)
    _, data = _features.scaled(plan.scale, data)
    learner = _estimators.online_learner(plan.estimator, data.X)
    y_pm = np.where(data.y == np.unique(data.y)[-1], 1.0, -1.0)
    from ..theory import halving_mistake_bound, weighted_majority_mistake_bound

    rows = []
    with progress(plan.report.quiet, total=data.n_samples, desc="play", unit="ex") as bar:
        for row in iter_play(learner, data.X, data.y, progress=bar.update):
            rows.append({**row._asdict(), "label": format_label(row.label),
                         "predict": format_label(row.prediction), "tie": row.score == 0,
                         "bound": None, "bound_exact": None})
            del rows[-1]["prediction"], rows[-1]["score"]
            if algo == "halving":
                rows[-1]["bound"] = float(halving_mistake_bound(learner.n_hypotheses_))
            elif algo == "weighted-majority":  # by the best expert's mistakes so far
                rows[-1]["bound"] = weighted_majority_mistake_bound(
                    learner.n_hypotheses_, float(learner.expert_mistakes_.min()),
                    learner.beta_, randomized=bool(learner.randomized))
            elif algo in PERCEPTRON_ALGOS:
                rows[-1]["bound"], rows[-1]["bound_exact"] = prefix_bound(
                    data, y_pm, row.examples, bool(learner.fit_intercept), bound_limit)
            if not json:
                bar.clear()
                _print_row(rows[-1], header=len(rows) == 1)
    result: dict[str, Any] = {"algo": algo, "n_samples": data.n_samples,
                              "n_mistakes": rows[-1]["mistakes"], "table": rows}
    if algo in PERCEPTRON_ALGOS:
        # Novikoff bounds the running perceptron's mistakes (its updates): for averaged and
        # voted perceptrons these are not the mistakes of their averaged or voted predictions.
        result["perceptron_mistakes"] = int(learner.n_mistakes_)
        result["bound"] = perceptron_bound_summary(data, bool(learner.fit_intercept),
                                                   bound_limit)
    elif algo == "halving":
        result["bound"] = {"checked": True, "halving_bound": rows[-1]["bound"],
                           "note": "holds when some hypothesis is consistent with the data"}
    elif algo == "weighted-majority":
        result["bound"] = {"checked": True, "weighted_majority_bound": rows[-1]["bound"],
                           "n_experts": int(learner.n_hypotheses_),
                           "best_expert_mistakes": float(learner.expert_mistakes_.min()),
                           "beta": float(learner.beta_),
                           "randomized": bool(learner.randomized),
                           "expected_mistakes": float(learner.expected_mistakes_)
                           if learner.randomized else None}
    else:
        result["bound"] = {"checked": False, "reason": f"no mistake bound for --algo"
                           f" {algo}: Novikoff's covers --algo perceptron, averaged and"
                           " voted, log2 |H| --algo halving, Littlestone and Warmuth's --algo"
                           " weighted-majority"}
    if json:
        print_json(result)
    else:
        _print_play_summary(result, algo)
    return 0


_LP_BOUND = ("the max-margin QP was not solved to a certified optimum, so gamma_LP is the"
             " margin of a verified separator (the separating LP's, or the QP's unproven"
             " answer where larger), at most the max margin: (R/gamma_LP)^2 is a valid upper"
             " bound, looser than Novikoff's with the max margin")


def _shuffled(data, params: dict):
    """``data`` with its rows in a random order seeded by --random-state, with --shuffle
    (the game's rounds are the rows in the file's order otherwise); ``params``: the
    estimator's, as the command line gives them."""
    if not params.get("shuffle"):
        return data
    import dataclasses

    from sklearn.utils import check_random_state

    order = check_random_state(params.get("random_state")).permutation(data.n_samples)
    X = [data.X[i] for i in order] if isinstance(data.X, list) else data.X[order]
    weights = None if data.sample_weight is None else data.sample_weight[order]
    return dataclasses.replace(data, X=X, y=data.y[order], sample_weight=weights)


def _print_row(row: dict, header: bool) -> None:
    if header:
        print(f"{'examples':>10} {'mistakes':>10} {'bound':>10} {'average loss':>13}"
              f" {'since last':>11} {'label':>8} {'predict':>8}")
    bound = "-" if row["bound"] is None else f"{row['bound']:.4g}"
    bound += "*" if row["bound_exact"] is False else ""
    predict = "tie" if row["tie"] else row["predict"]
    print(f"{row['examples']:>10} {row['mistakes']:>10} {bound:>10}"
          f" {row['average_loss']:>13.6f} {row['since_last']:>11.6f} {row['label']:>8}"
          f" {predict:>8}", flush=True)


def _print_play_summary(result: dict, algo: str) -> None:
    rows = result["table"]
    ties = [row for row in rows if row["tie"]]
    if ties:
        print(f"tie: the score was 0, so the learner leaned to neither class (its predict()"
              f" answers {ties[0]['predict']}); a tie counts as a mistake")
    print(f"mistakes: {result['n_mistakes']} in {result['n_samples']} rounds")
    bound = result["bound"]
    if "halving_bound" in bound:
        print(f"bound: halving log2 |H| = {bound['halving_bound']:.6g} ({bound['note']})")
        return
    if "weighted_majority_bound" in bound:
        if bound["randomized"]:
            what, m, denominator = "expected mistakes E[M]", bound["expected_mistakes"], \
                "(1 - beta)"
        else:
            what, m, denominator = "mistakes M", result["n_mistakes"], "ln(2/(1+beta))"
        print(f"bound: Weighted Majority (ln N + m* ln(1/beta)) / {denominator} ="
              f" {bound['weighted_majority_bound']:.6g} with N = {bound['n_experts']} experts,"
              f" m* = {bound['best_expert_mistakes']:g} (the best expert's mistakes), beta ="
              f" {bound['beta']:.6g}; {what} {m:.6g}"
              f" {'<=' if m <= bound['weighted_majority_bound'] else '>'} bound")
        return
    if not bound["checked"]:
        limited = " ('-' in the table)" if algo in PERCEPTRON_ALGOS else ""
        print(f"bound: not computed{limited}: {bound['reason']}")
        return
    if any(row["bound"] is None for row in rows):
        print("bound: '-' where the rounds so far are not linearly separable")
    if any(row["bound_exact"] is False for row in rows):
        print(f"bound: * {_LP_BOUND}")
    if bound["separable"]:
        where = " on the points (x, 1), for the offset" if bound["augmented"] else ""
        m = result["perceptron_mistakes"]
        what = "mistakes" if algo == "perceptron" else "updates of the running perceptron"
        q = "'" if bound["augmented"] else ""
        lp = "" if bound["exact"] else "_LP"
        print(f"Novikoff bound (R{q}/gamma{q}{lp})^2 = ({bound['radius']:.6g}/"
              f"{bound['margin']:.6g})^2 = {bound['novikoff_bound']:.6g}{where}; {what} {m}"
              f" {'<=' if m <= bound['novikoff_bound'] else '>'} bound")
        if not bound["exact"]:
            print(f"  (an upper bound: {_LP_BOUND})")
    else:
        print("the data is not linearly separable (LP certificate): Novikoff's bound does not"
              " apply to all of it")


def cmd_bound(args: argparse.Namespace) -> int:
    return bound(_plan.bound_plan(args))


def bound(plan: BoundPlan) -> int:
    """The margin and Novikoff's bound of the data, or a certificate that none exists."""
    from ..theory import bounds_report

    data = read_args_data(plan.source, featurize=True)
    with progress(plan.report.quiet, total=1, desc="bound (LP + QP)", unit="step") as bar, \
            about(data):
        report = bounds_report(data.X, data.y, fit_intercept=plan.fit_intercept)
        bar.update()
    out = _bound_json(data, report)
    if plan.report.json:
        print_json(out)
    else:
        print_table(_bound_rows(data, out))
    return 0


def _bound_json(data, report) -> dict[str, Any]:
    out: dict[str, Any] = {"data": data.path, "n_samples": report.n_samples,
                           "n_features": report.n_features, "radius": report.radius,
                           "fit_intercept": report.fit_intercept, "separable": report.separable}
    if report.separable:
        p = report.perceptron
        # *_exact False: the margin is the LP separator's (the QP failed), the bound looser
        out.update({"max_margin": report.max_margin, "max_margin_exact": report.exact,
                    "novikoff_bound_exact": p.exact, "b": report.b,
                    "perceptron_radius": p.radius, "perceptron_margin": p.margin,
                    "augmented": p.augmented, "novikoff_bound": p.bound,
                    "margin_one_bound": p.margin_one_bound,
                    # the max-margin separator, scaled to min_i y_i (<w, x_i> + b) = 1
                    "separator": {"w": report.w, "b": report.b}})
    else:
        rows = report.certificate_rows.astype(int)
        out["certificate_rows"] = rows
        # Farkas: alpha >= 0 on these rows (0-based), sum_i alpha_i y_i x_i = 0 (and
        # sum_i alpha_i y_i = 0 with an offset), so no halfspace separates them.
        out["certificate"] = {"rows": rows, "alpha": report.certificate[rows]}
    out["vc_dimension"] = report.vc_dimension
    return out


def _bound_rows(data, out: dict) -> list[tuple[str, Any]]:
    offset = "with offset b" if out["fit_intercept"] else "through the origin"
    rows = [("data", f"{data.path} ({out['n_samples']} examples, {out['n_features']} features)"),
            ("radius R = max ||x_i||", out["radius"])]
    # Where the QP failed, the margin is the LP separator's (<= the max margin) and the
    # bounds from it are upper bounds (>= Novikoff's with the max margin): said so.
    lp, low, high = (("", "", "") if out.get("novikoff_bound_exact", True) else
                     ("_LP", " (LP separator, <= max)", " (LP separator: an upper bound)"))
    gamma = ("max margin gamma" if out.get("max_margin_exact", True) else
             "margin gamma_LP of the LP separator (<= max margin)")
    if out["separable"] and out["augmented"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 (f"{gamma} of (w, b), ||w|| = 1", out["max_margin"]),
                 ("perceptron with offset", "the perceptron through the origin on (x, 1)"),
                 ("R' = max ||(x_i, 1)||", out["perceptron_radius"]),
                 (f"gamma'{lp} of (w, b), ||(w, b)|| = 1{low}", out["perceptron_margin"]),
                 (f"Novikoff bound (R'/gamma'{lp})^2{high}", out["novikoff_bound"]),
                 (f"margin-1 bound R'^2 ||(w*, b*)||^2{high}", out["margin_one_bound"])]
    elif out["separable"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 (gamma, out["max_margin"]),
                 (f"Novikoff bound (R/gamma{lp})^2{high}", out["novikoff_bound"]),
                 (f"margin-1 bound R^2 ||w*||^2{high}", out["margin_one_bound"])]
    else:
        certificate = out["certificate_rows"]
        shown = ", ".join(str(r) for r in certificate[:20])
        more = f", ... ({len(certificate)} rows)" if len(certificate) > 20 else ""
        rows += [("linearly separable", f"no ({offset}); LP certificate (Farkas) on rows"
                                        f" {shown}{more} (0-based)")]
    rows.append(("VC dimension", f"{out['vc_dimension']} (d{' + 1' if out['fit_intercept'] else ''}"
                                 f", halfspaces {offset})"))
    return rows
