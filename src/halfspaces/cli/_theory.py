"""``play`` and ``bound``: the online game's progressive table, and the theory of a data set."""

from __future__ import annotations

import argparse
from typing import Any

from . import _estimators
from ._io import about, print_json, print_table, progress, read_args_data
from ._options import PERCEPTRON_ALGOS


def perceptron_bound_summary(data, fit_intercept: bool, limit: int) -> dict[str, Any]:
    """The perceptron's Novikoff bound on ``data`` in its setting (a dict for the JSON
    output), when the data is small enough (``--bound-limit``) to solve the LP and QP."""
    from ..theory import bounds_report

    if data.n_samples > limit:
        return {"checked": False,
                "reason": f"{data.n_samples} examples > --bound-limit {limit}: the separability"
                          " LP and the max-margin QP were not solved"}
    with about(data):
        res = bounds_report(data.X, data.y, fit_intercept=fit_intercept,
                            svm_margin=False).perceptron
    out: dict[str, Any] = {"checked": True, "separable": res.separable, "radius": res.radius,
                           "augmented": res.augmented}
    if res.separable:
        out.update(margin=res.margin, novikoff_bound=res.bound)
    return out


def cmd_play(args: argparse.Namespace) -> int:
    from .._labels import format_label
    from ..online import iter_play

    data = read_args_data(args, numeric="play needs numeric features (svmlight, VW or CSV);"
                          " the online game on raw text needs a fixed featurizer, e.g. hash"
                          " it first")
    learner = _estimators.online_learner(args, data.X)
    rows = []
    with progress(args, total=data.n_samples, desc="play", unit="ex") as bar:
        for row in iter_play(learner, data.X, data.y, progress=bar.update):
            rows.append({**row._asdict(), "label": format_label(row.label),
                         "predict": format_label(row.prediction)})
            del rows[-1]["prediction"]
            if not args.json:
                bar.clear()
                _print_progress_row(rows[-1], header=len(rows) == 1)
    result: dict[str, Any] = {"algo": args.algo, "n_samples": data.n_samples,
                              "n_mistakes": rows[-1]["mistakes"], "table": rows}
    if args.algo in PERCEPTRON_ALGOS:
        # Novikoff bounds the running perceptron's mistakes (its updates): for averaged and
        # voted perceptrons these are not the mistakes of their averaged or voted predictions.
        result["perceptron_mistakes"] = int(learner.n_mistakes_)
        result["bound"] = perceptron_bound_summary(data, bool(learner.fit_intercept),
                                                   args.bound_limit)
    elif args.algo == "halving":
        from ..theory import halving_mistake_bound

        result["bound"] = {"checked": True, "halving_bound":
                           float(halving_mistake_bound(learner.n_hypotheses_)),
                           "note": "holds when some hypothesis is consistent with the data"}
    if args.json:
        print_json(result)
    else:
        _print_play_summary(result, args.algo)
    return 0


def _print_progress_row(row: dict, header: bool) -> None:
    if header:
        print(f"{'examples':>10} {'mistakes':>10} {'average loss':>13}"
              f" {'since last':>11} {'label':>8} {'predict':>8}")
    print(f"{row['examples']:>10} {row['mistakes']:>10} {row['average_loss']:>13.6f}"
          f" {row['since_last']:>11.6f} {row['label']:>8} {row['predict']:>8}", flush=True)


def _print_play_summary(result: dict, algo: str) -> None:
    print(f"mistakes: {result['n_mistakes']} in {result['n_samples']} rounds")
    bound = result.get("bound")
    if not bound:
        return
    if "halving_bound" in bound:
        print(f"halving bound log2 |H| = {bound['halving_bound']:.6g} ({bound['note']})")
    elif not bound["checked"]:
        print(f"Novikoff bound not computed: {bound['reason']}")
    elif bound["separable"]:
        where = " on the points (x, 1), for the offset" if bound["augmented"] else ""
        m = result["perceptron_mistakes"]
        what = "mistakes" if algo == "perceptron" else "updates of the running perceptron"
        q = "'" if bound["augmented"] else ""
        print(f"Novikoff bound (R{q}/gamma{q})^2 = ({bound['radius']:.6g}/{bound['margin']:.6g})^2"
              f" = {bound['novikoff_bound']:.6g}{where}; {what} {m}"
              f" {'<=' if m <= bound['novikoff_bound'] else '>'} bound")
    else:
        print("the data is not linearly separable (LP certificate): Novikoff's bound does not"
              " apply")


def cmd_bound(args: argparse.Namespace) -> int:
    from ..theory import bounds_report

    data = read_args_data(args, numeric="bound needs numeric features (svmlight, VW or CSV)")
    with progress(args, total=1, desc="bound (LP + QP)", unit="step") as bar, about(data):
        report = bounds_report(data.X, data.y, fit_intercept=args.fit_intercept)
        bar.update()
    out = _bound_json(data, report)
    if args.json:
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
        out.update({"max_margin": report.max_margin, "b": report.b,
                    "perceptron_radius": p.radius, "perceptron_margin": p.margin,
                    "augmented": p.augmented, "novikoff_bound": p.bound,
                    "margin_one_bound": p.margin_one_bound})
    else:
        out["certificate_rows"] = report.certificate_rows.astype(int)
    out["vc_dimension"] = report.vc_dimension
    return out


def _bound_rows(data, out: dict) -> list[tuple[str, Any]]:
    offset = "with offset b" if out["fit_intercept"] else "through the origin"
    rows = [("data", f"{data.path} ({out['n_samples']} examples, {out['n_features']} features)"),
            ("radius R = max ||x_i||", out["radius"])]
    if out["separable"] and out["augmented"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 ("max margin gamma of (w, b), ||w|| = 1", out["max_margin"]),
                 ("perceptron with offset", "the perceptron through the origin on (x, 1)"),
                 ("R' = max ||(x_i, 1)||", out["perceptron_radius"]),
                 ("gamma' of (w, b), ||(w, b)|| = 1", out["perceptron_margin"]),
                 ("Novikoff bound (R'/gamma')^2", out["novikoff_bound"]),
                 ("margin-1 bound R'^2 ||(w*, b*)||^2", out["margin_one_bound"])]
    elif out["separable"]:
        rows += [("linearly separable", f"yes ({offset})"),
                 ("max margin gamma", out["max_margin"]),
                 ("Novikoff bound (R/gamma)^2", out["novikoff_bound"]),
                 ("margin-1 bound R^2 ||w*||^2", out["margin_one_bound"])]
    else:
        certificate = out["certificate_rows"]
        shown = ", ".join(str(r) for r in certificate[:20])
        more = f", ... ({len(certificate)} rows)" if len(certificate) > 20 else ""
        rows += [("linearly separable", f"no ({offset}); LP certificate (Farkas) on rows"
                                        f" {shown}{more} (0-based)")]
    rows.append(("VC dimension", f"{out['vc_dimension']} (d{' + 1' if out['fit_intercept'] else ''}"
                                 f", halfspaces {offset})"))
    return rows
