"""``plot`` (one figure of the gallery, from a data file) and ``demo``."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..datasets._io import atomic_write
from . import _estimators, _features, _plan
from ._io import CLIError, read_args_data, writing
from ._options import PERCEPTRON_ALGOS
from ._plan import PlotPlan
from ._theory import perceptron_bound_summary, prefix_bound


def _boundary(plan: PlotPlan, data, fig) -> None:
    from .. import plotting

    estimator = plan.estimator.build(data.X)
    estimator.fit(data.X, data.y)
    plotting.plot_decision_boundary(estimator, data.X, data.y, ax=fig.add_subplot(),
                                    title=f"{type(estimator).__name__} on {data.path}")


def _regularization(plan: PlotPlan, data, fig) -> None:
    from .. import plotting

    plotting.plot_regularization(data.X, data.y, lams=plan.lams, fig=fig)


def _max_margin(plan: PlotPlan, data, fig) -> None:
    from .. import plotting

    plotting.plot_max_margin(data.X, data.y, ax=fig.add_subplot(),
                             fit_intercept=dict(plan.params).get("fit_intercept", True))


def _mistakes(plan: PlotPlan, data, fig) -> None:
    from .. import plotting
    from ..online import play

    algo, bound_limit = plan.estimator.algo, plan.bound_limit
    learner = _estimators.online_learner(plan.estimator, data.X)
    transcript = play(learner, data.X, data.y, classes=np.unique(data.y))
    bound, bound_at, label, bound_label = None, None, None, "Novikoff bound"
    title = f"{type(learner).__name__} on {data.path}: online mistakes"
    if algo in PERCEPTRON_ALGOS:
        intercept = bool(learner.fit_intercept)
        info = perceptron_bound_summary(data, intercept, bound_limit)
        bound = info.get("novikoff_bound")
        y_pm = np.where(data.y == np.unique(data.y)[-1], 1.0, -1.0)
        sizes = [t for t in _doubling(data.n_samples) if t <= bound_limit]
        pairs = [prefix_bound(data, y_pm, t, intercept, bound_limit) for t in sizes]
        bound_at = (sizes, [np.nan if v is None else v for v, _ in pairs])
        inseparable = [t for t, (v, _) in zip(sizes, pairs, strict=True) if v is None]
        if inseparable:  # where a prefix is not separable, Novikoff's theorem says nothing
            title += (f"\nno bound from t = {inseparable[0]}: the first {inseparable[0]} rounds"
                      " are not linearly separable")
        if any(e is False for _, e in pairs) or info.get("exact") is False:
            title += "\nbound from the LP separator (the max-margin QP failed): an upper bound"
        if not info["checked"]:
            title += f"\nbound up to --bound-limit {bound_limit} rounds"
        if algo != "perceptron":  # the bound covers the running perceptron
            label = (f"mistakes ({transcript.n_mistakes}); running perceptron's"
                     f" updates: {learner.n_mistakes_}")
            bound_label = "Novikoff bound on the updates"
    else:
        title += f"\n(no mistake bound for --algo {algo})"
    plotting.plot_mistakes(transcript, bound=bound, ax=fig.add_subplot(), label=label,
                           bound_label=bound_label, bound_at=bound_at, title=title)


def _update(plan: PlotPlan, data, fig) -> None:
    from .. import plotting

    w, x, y = plotting.perceptron_update_example(data.X, data.y, mistake=plan.mistake)
    plotting.plot_perceptron_update(w, x, y, ax=fig.add_subplot())


def _doubling(n: int) -> list[int]:
    """1, 2, 4, ... below ``n``, and ``n``: the sizes the progressive table shows."""
    return [2**k for k in range(max(n - 1, 0).bit_length())] + [n]


def _objective(plan: PlotPlan, data, fig) -> None:
    from .. import plotting

    params = dict(plan.params)
    lam = params.get("lam", 1e-2)
    history, optimum = plotting.pegasos_objective_history(
        data.X, data.y, lam=lam, max_iter=params.get("max_iter", 50),
        random_state=params.get("random_state", 0))
    plotting.plot_objective(history, optimum, ax=fig.add_subplot(), lam=lam,
                            label=f"Pegasos on {data.path}")


_DRAW = {"boundary": _boundary, "regularization": _regularization, "max-margin": _max_margin,
         "mistakes": _mistakes, "objective": _objective, "update": _update}
# The kinds that draw the data in the plane (--columns I,J picks two features of wider data).
PLANE_KINDS = ("boundary", "regularization", "max-margin", "update")


def cmd_plot(args: argparse.Namespace) -> int:
    return plot(_plan.plot_plan(args))


def plot(plan: PlotPlan) -> int:
    """Draw the figure and save it as PNG."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise CLIError("plot needs matplotlib: pip install 'halfspaces[plot]'") from None
    from ._course import pick_columns

    kind = plan.kind
    data = read_args_data(plan.source, numeric="plots need numeric features (2 of them)")
    if kind in PLANE_KINDS:
        data = pick_columns(data, plan.columns, kind)
    elif plan.columns is not None:
        raise CLIError(f"--columns: plot {kind} uses every feature; --columns picks the"
                       f" two drawn by plot {', '.join(PLANE_KINDS)}")
    _, data = _features.scaled(plan.scale, data)
    size = (10, 4.5) if kind == "regularization" else (6, 5)
    fig = Figure(figsize=size, layout="constrained")
    _DRAW[kind](plan, data, fig)
    save_figure(fig, plan.output)
    if not plan.report.quiet:
        print(f"wrote {plan.output}", file=sys.stderr)
    return 0


def save_figure(fig, path: str) -> None:
    """Save a figure as PNG atomically (never compressed, whatever the extension)."""
    with writing(path), atomic_write(path, compress=False) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")


def cmd_demo(args: argparse.Namespace) -> int:
    from .. import demo

    return int(demo.run(out_dir=args.out_dir, quick=args.quick) or 0)
