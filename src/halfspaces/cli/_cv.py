"""``cv``: choose C or lam by stratified K-fold cross-validation along a warm-started path
(:func:`halfspaces.model_selection.path_scores`), and with ``-o`` refit the best."""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import _estimators, _plan
from ._io import CLIError, about, print_json, print_table, read_args_data, save_model
from ._plan import GRID_PARAMS, CVPlan


def float_list(text: str) -> list[float]:
    """``0.01,0.1,1``: the values to try."""
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, e.g."
                                         f" 0.01,0.1,1,10,100; got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas; got {text!r}")
    return values


def cmd_cv(args: argparse.Namespace) -> int:
    return cv(_plan.cv_plan(args))


def cv(plan: CVPlan) -> int:
    """The scores along the grid, and with ``-o`` the best refitted and saved."""
    from ..metrics import LOWER_IS_BETTER
    from ..model_selection import path_scores, refit_best

    param, source = plan.param, plan.source
    data = read_args_data(source, numeric="cv needs feature vectors: raw text is not searched"
                                          " yet; featurize it (svmlight, CSV) first")
    estimator = plan.estimator.build(data.X)
    if param not in estimator.get_params():
        raise CLIError(f"--{param} does not apply to --algo {plan.estimator.algo}"
                       f" ({type(estimator).__name__}); --{param} searches"
                       f" {GRID_PARAMS[param]}")
    weights = _estimators.fit_weights(source, data).get("sample_weight")
    seed = plan.estimator.params.get("random_state")
    start = time.perf_counter()
    with about(data):
        found = path_scores(estimator, data.X, data.y, param, list(plan.values),
                            cv=plan.folds, scoring=plan.scoring, sample_weight=weights,
                            random_state=0 if seed is None else seed)
    seconds = time.perf_counter() - start
    gaps = found.relative_gaps
    max_gap = None if np.all(np.isnan(gaps)) else float(np.nanmax(gaps))
    result = {"data": data.path, "estimator": type(estimator).__name__, "param": param,
              "values": found.values, "folds": plan.folds, "scoring": plan.scoring,
              "greater_is_better": plan.scoring not in LOWER_IS_BETTER,
              "mean": found.mean, "std": found.std, "scores": found.scores,
              "best": found.values[found.best], "max_relative_duality_gap": max_gap,
              "time_s": seconds, "model": None}
    if plan.output:
        with about(data):
            model = refit_best(estimator, data.X, data.y, found, weights)
        save_model(model, plan.output, data)
        result["model"] = plan.output
    if plan.report.json:
        print_json(result)
        return 0
    _print(result, found)
    return 0


def _print(result: dict, found) -> None:
    better = "higher" if result["greater_is_better"] else "lower"
    print(f"cv {result['data']}: {result['estimator']}, {result['folds']} stratified folds,"
          f" scoring {result['scoring']} ({better} is better), {result['time_s']:.3g} s")
    gaps = np.nanmax(found.relative_gaps, axis=0) if result["max_relative_duality_gap"] \
        is not None else [None] * len(found.values)
    header = [result["param"], "mean", "std"] + (["max gap"] if gaps[0] is not None else [])
    rows = [header] + [[f"{v:g}", f"{m:.4f}", f"{s:.4f}"]
                       + ([f"{g:.1e}"] if g is not None else [])
                       for v, m, s, g in zip(found.values, found.mean, found.std, gaps,
                                             strict=True)]
    widths = [max(len(row[j]) for row in rows) for j in range(len(header))]
    for i, row in enumerate(rows):
        line = "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
        print(line + ("  <- best" if i - 1 == found.best else ""))
    notes = [("best", f"{result['param']} = {result['best']:g}")]
    if result["max_relative_duality_gap"] is not None:
        notes.append(("largest relative duality gap of a fit",
                      result["max_relative_duality_gap"]))
    if result["model"]:
        notes.append(("refitted on every row, saved to", result["model"]))
    print_table(notes)
