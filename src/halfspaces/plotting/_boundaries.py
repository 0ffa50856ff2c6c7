"""Pictures in the plane: a model's boundary and margins, the regularization and the maximum
margin, and the perceptron's update (see :mod:`halfspaces.plotting`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._labels import format_label
from ._common import _check_2d, _encode, _legend, _new_axes

_NEG_STYLE = {"marker": "o", "color": "tab:blue"}
_POS_STYLE = {"marker": "^", "color": "tab:red"}
# Models whose score is scaled by a margin (the hinge loss, regularized): only for them do
# the lines score = +-1 mean "the margin".
_MARGIN_SCALED = ("SVC", "LinearSVC", "PegasosSVC", "KernelPegasosSVC")
# Most points drawn in the plane; beyond, a random subsample (the title says so).
MAX_POINTS = 2000
# Relative tolerance for "sits on the margin": solvers return margins equal to 1 up to ~1e-7.
_ON_MARGIN_RTOL = 1e-6

def _limits(X: NDArray, pad: float = 0.15) -> tuple[float, float, float, float]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    return float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])


def _line_points(w: NDArray, level: float, box) -> NDArray | None:
    """Two points of ``{x : <w, x> = level}`` spanning the box, or None when ``w = 0``."""
    x0, x1, y0, y1 = box
    if abs(w[1]) >= abs(w[0]):
        if w[1] == 0.0:
            return None
        xs = np.array([x0, x1])
        return np.column_stack([xs, (level - w[0] * xs) / w[1]])
    ys = np.array([y0, y1])
    return np.column_stack([(level - w[1] * ys) / w[0], ys])


def _frame_plane(ax, box, title: str) -> None:
    """The visible box of a picture in the plane, its axis labels and its title."""
    ax.set(xlim=box[:2], ylim=box[2:], xlabel="$x_1$", ylabel="$x_2$", title=title)


def _shown(n: int, max_points: int) -> NDArray[np.intp]:
    """The rows drawn: all of them, or a fixed random subsample of ``max_points``."""
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, size=max_points, replace=False))


def _scatter_classes(ax, X: NDArray, y_pm: NDArray, classes) -> None:
    size = 28.0 if X.shape[0] <= 300 else max(6.0, 28.0 * np.sqrt(300 / X.shape[0]))
    for sign, style in ((-1.0, _NEG_STYLE), (1.0, _POS_STYLE)):
        rows = y_pm == sign
        label = classes[int(sign > 0)]
        ax.scatter(X[rows, 0], X[rows, 1], s=size, marker=style["marker"],
                   color=style["color"], edgecolors="white", linewidths=0.4,
                   label=f"y = {format_label(label)}", zorder=3)


def _box_with_boundary(X: NDArray, w: NDArray, b: float, reach: float = 4.0):
    """The data's box, grown to show the boundary ``<w, x> + b = 0`` when it misses the box
    but passes within ``reach`` box widths of the data's centre; None when it is further
    (then the title says so)."""
    box = _limits(X)
    corners = np.array([[box[0], box[2]], [box[0], box[3]], [box[1], box[2]], [box[1], box[3]]])
    signs = np.sign(corners @ w + b)
    if not np.any(w) or signs.min() != signs.max():
        return box, True
    centre = X.mean(axis=0)
    foot = centre - (centre @ w + b) / (w @ w) * w  # the boundary's point nearest the centre
    span = max(box[1] - box[0], box[3] - box[2])
    if np.linalg.norm(foot - centre) > reach * span:
        return box, False
    return _limits(np.vstack([X, foot, 2 * foot - centre])), True


def _circle(ax, X: NDArray, rows: NDArray, label: str) -> None:
    if np.any(rows):
        ax.scatter(X[rows, 0], X[rows, 1], s=150, facecolors="none", edgecolors="black",
                   linewidths=1.2, label=label, zorder=4)


def _level_style(level: float) -> dict:
    """The decision boundary solid black; the margin line on the +1 side dashed in the +1
    class's colour, the one on the -1 side dotted in the -1 class's colour."""
    if level == 0:
        return dict(color="black", linestyle="-", linewidth=1.8)
    if level > 0:
        return dict(color=_POS_STYLE["color"], linestyle="--", linewidth=1.3)
    return dict(color=_NEG_STYLE["color"], linestyle=":", linewidth=1.6)


def _draw_levels(ax, w: NDArray, b: float, levels, box, names) -> None:
    for level, name in zip(levels, names, strict=True):
        points = _line_points(w, level - b, box)
        if points is not None:
            ax.plot(points[:, 0], points[:, 1], label=name, zorder=2, **_level_style(level))


def _draw_contours(ax, grid, levels, names) -> list:
    """The level sets of a non-linear model's scores on ``grid = (xx, yy, scores)``, and the
    proxy lines that describe them in the legend (contours have no entries of their own)."""
    from matplotlib.lines import Line2D

    order = np.argsort(levels)
    styles = [_level_style(levels[i]) for i in order]
    ax.contour(*grid, levels=[levels[i] for i in order], colors=[s["color"] for s in styles],
               linestyles=[s["linestyle"] for s in styles], zorder=2)
    return [Line2D([], [], label=name, **_level_style(level))
            for level, name in zip(levels, names, strict=True)]


def plot_decision_boundary(estimator: Any, X: ArrayLike, y: ArrayLike, *, ax: Any = None,
                           margins: bool | None = None, grid_resolution: int = 200,
                           title: str | None = None, max_points: int = MAX_POINTS):
    """Draw a fitted two-class estimator's decision boundary and margin boundaries (Figure 1).

    Parameters
    ----------
    estimator : fitted two-class estimator with ``decision_function`` and ``classes_``
        Linear models (``coef_`` of shape ``(1, 2)``) get exact lines; others (kernel models)
        get the contours of ``decision_function`` on a grid.
    X : array of shape (n_samples, 2)
    y : array of shape (n_samples,), labels among ``estimator.classes_``
    ax : matplotlib Axes, optional
    margins : bool, optional
        Also draw the margin boundaries ``score = +1`` and ``score = -1`` and circle the
        points with ``y * score <= 1`` (on or inside the margin). Default: only for the
        models whose score a margin scales (SVMs: ``SVC``, ``PegasosSVC``, scikit-learn's
        ``SVC`` and ``LinearSVC``); a perceptron's ``score = 1`` means nothing.
    grid_resolution : int, default=200
        Grid size of the shading (and of the contours of non-linear models).
    title : str, optional
    max_points : int, default=2000
        At most this many points are drawn (a fixed random subsample, said in the title);
        the lines and the shading use the model, not the points. The view grows to show a
        linear boundary that passes near the data.

    Returns
    -------
    matplotlib.axes.Axes
        The lines are labelled ``"decision boundary (score = 0)"``, ``"margin (score = +1)"``
        and ``"margin (score = -1)"``.

    Notes
    -----
    .. math::

        \\{x : \\langle w, x\\rangle + b = 0\\}, \\qquad
        \\{x : \\langle w, x\\rangle + b = \\pm 1\\}, \\qquad
        \\text{circled: } y_i(\\langle w, x_i\\rangle + b) \\le 1 .

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> from halfspaces import SVC
    >>> X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 0.0], [3.0, 1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> ax = Figure().add_subplot()
    >>> ax = plot_decision_boundary(SVC(C=10.0).fit(X, y), X, y, ax=ax)
    >>> [line.get_label() for line in ax.get_lines()]
    ['decision boundary (score = 0)', 'margin (score = +1)', 'margin (score = -1)']
    """
    X = _check_2d("plot_decision_boundary", X)
    ax = _new_axes(ax)
    y_pm, classes = _encode("plot_decision_boundary", y, getattr(estimator, "classes_", None))
    n = X.shape[0]
    shown = _shown(n, max_points)
    X, y_pm = X[shown], y_pm[shown]
    scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError("plot_decision_boundary: the estimator has more than two classes;"
                         " fit it on two (one class against the rest) to draw its boundary.")
    if margins is None:
        margins = type(estimator).__name__ in _MARGIN_SCALED
    coef = getattr(estimator, "coef_", None)
    linear = coef is not None and np.shape(coef) == (1, 2)
    box, in_view = _limits(X), True
    if linear:
        w = np.asarray(coef, dtype=np.float64)[0]
        b = float(np.ravel(getattr(estimator, "intercept_", [0.0]))[0])
        box, in_view = _box_with_boundary(X, w, b)
    xx, yy = np.meshgrid(np.linspace(box[0], box[1], grid_resolution),
                         np.linspace(box[2], box[3], grid_resolution))
    grid_scores = np.asarray(estimator.decision_function(np.column_stack([xx.ravel(),
                                                                          yy.ravel()])))
    grid_scores = grid_scores.reshape(xx.shape)
    ax.contourf(xx, yy, np.sign(grid_scores), levels=[-2, 0, 2],
                colors=[_NEG_STYLE["color"], _POS_STYLE["color"]], alpha=0.08, zorder=0)
    levels = (0.0, 1.0, -1.0) if margins else (0.0,)
    names = ("decision boundary (score = 0)", "margin (score = +1)",
             "margin (score = -1)")[: len(levels)]
    proxies = []
    if linear:
        _draw_levels(ax, w, b, levels, box, names)
    else:
        proxies = _draw_contours(ax, (xx, yy, grid_scores), levels, names)
    _scatter_classes(ax, X, y_pm, classes)
    if margins:
        z = y_pm * scores
        on_or_inside = (z < 1.0) | np.isclose(z, 1.0, rtol=_ON_MARGIN_RTOL, atol=1e-9)
        _circle(ax, X, on_or_inside, "on or inside the margin")
    title = title if title is not None else type(estimator).__name__
    if shown.size < n:
        title += f"\n{shown.size:,} of {n:,} points shown (a random sample)"
    if not in_view:
        side = format_label(classes[int(np.mean(scores) >= 0)])
        title += f"\nthe boundary is far outside the data: all of it is scored {side}"
    _frame_plane(ax, box, title)
    _legend(ax, proxies)
    return ax


def plot_regularization(X: ArrayLike, y: ArrayLike, lams: tuple[float, float] = (1e-3, 1.0), *,
                        estimator: Any = None, fig: Any = None):
    """The same data fitted with a small and a large ``lam``, side by side (Figure 2).

    A small lambda (large ``C = 1/(lam n)``) buys a narrow margin with few violations; a large
    lambda a wide margin with many points inside it.

    Parameters
    ----------
    X : array of shape (n_samples, 2)
    y : array of shape (n_samples,), two classes
    lams : sequence of floats, default=(1e-3, 1.0)
        One panel per value of lambda.
    estimator : unfitted estimator with a ``lam`` parameter, optional
        Cloned for each panel with ``lam`` set; default ``SVC(kernel="linear")`` (the exact
        minimizer of the objective).
    fig : matplotlib Figure, optional

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    .. math::

        J(\\theta, \\theta_0) = \\frac1n\\sum_{i=1}^n
        \\max(0, 1 - y_i(\\theta\\cdot x_i + \\theta_0)) + \\frac\\lambda2\\|\\theta\\|^2,
        \\qquad \\text{margin width } 2/\\|\\theta\\| .
    """
    from sklearn.base import clone

    X = _check_2d("plot_regularization", X)
    if estimator is None:
        from ..linear.svm import SVC

        estimator = SVC(kernel="linear")
    if fig is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(5 * len(lams), 5.5), layout="constrained")
    axes = fig.subplots(1, len(lams), squeeze=False)[0]
    for ax, lam in zip(axes, lams, strict=True):
        fitted = clone(estimator).set_params(lam=lam).fit(X, y)
        w_norm = float(np.linalg.norm(np.ravel(fitted.coef_)))
        width = 2.0 / w_norm if w_norm > 0 else np.inf
        plot_decision_boundary(fitted, X, y, ax=ax,
                               title=f"$\\lambda$ = {lam:g}: margin width 2/||θ|| = {width:.3g}")
    return fig


def plot_max_margin(X: ArrayLike, y: ArrayLike, *, ax: Any = None, fit_intercept: bool = True):
    """The max-margin separator of separable 2-D data and its support vectors (Figure 3).

    The separator comes from :func:`halfspaces.theory.max_margin_separator`. The margin lines
    pass through the points of smallest functional margin, the support vectors, which are
    circled; the title gives the geometric margin gamma.

    Parameters
    ----------
    X : array of shape (n_samples, 2)
    y : array of shape (n_samples,), two classes, linearly separable
    ax : matplotlib Axes, optional
    fit_intercept : bool, default=True
        Allow an offset ``b``; with False the separator goes through the origin.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    .. math::

        \\max_{w, b}\\; \\min_i \\frac{y_i(\\langle w, x_i\\rangle + b)}{\\|w\\|}
        \\quad\\Longleftrightarrow\\quad
        \\min \\tfrac12\\|w\\|^2 \\text{ s.t. } y_i(\\langle w, x_i\\rangle + b) \\ge 1 .
    """
    from ..theory import max_margin_separator

    X = _check_2d("plot_max_margin", X)
    y_pm, classes = _encode("plot_max_margin", y)
    w, b, margin = max_margin_separator(X, y_pm, fit_intercept=fit_intercept)
    w = np.asarray(w, dtype=np.float64).ravel()
    b = float(b)
    ax = _new_axes(ax)
    z = y_pm * (X @ w + b)
    m = float(z.min())
    box = _limits(X if fit_intercept else np.vstack([X, np.zeros((1, 2))]))
    _draw_levels(ax, w, b, (0.0, m, -m),
                 box, ("max-margin separator", "margin boundary, +1 side",
                      "margin boundary, -1 side"))
    _scatter_classes(ax, X, y_pm, classes)
    support = np.isclose(z, m, rtol=_ON_MARGIN_RTOL, atol=1e-9)
    _circle(ax, X, support, f"support vectors ({int(support.sum())})")
    ax.set_aspect("equal", adjustable="box")
    _frame_plane(ax, box, f"max-margin separator: $\\gamma$ = {float(margin):.4g}")
    _legend(ax)
    return ax


def plot_perceptron_update(w: ArrayLike, x: ArrayLike, y: float, *, ax: Any = None):
    """The geometry of one perceptron update ``w <- w + y x`` in the plane.

    Draws ``w`` (before), ``y x``, ``w + y x`` (after), the point ``x`` with its label, and
    the boundaries ``<w, v> = 0`` before (dashed) and after (solid) the update: the new
    weight vector turns towards ``y x``, so ``y <w + y x, x> = y <w, x> + ||x||^2``.

    Parameters
    ----------
    w : array of shape (2,), the weights before the update
    x : array of shape (2,), the example (a mistake: ``y <w, x> <= 0``)
    y : +1 or -1, its label
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Lines labelled ``"boundary before"`` and ``"boundary after"``.

    Notes
    -----
    .. math::

        y_t\\langle w_t, x_t\\rangle \\le 0 \\;\\Rightarrow\\; w_{t+1} = w_t + y_t x_t .

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> ax = plot_perceptron_update([1.0, 0.0], [-1.0, 1.0], 1, ax=Figure().add_subplot())
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['boundary before', 'boundary after']
    """
    w = np.asarray(w, dtype=np.float64).ravel()
    x = np.asarray(x, dtype=np.float64).ravel()
    if w.shape != (2,) or x.shape != (2,):
        raise ValueError(f"plot_perceptron_update: w and x must be vectors of 2 numbers; got"
                         f" shapes {w.shape} and {x.shape}.")
    if y not in (-1, 1):
        raise ValueError(f"plot_perceptron_update: y must be -1 or +1; got {y!r}.")
    ax = _new_axes(ax)
    new = w + y * x
    reach = 1.25 * max(np.abs(np.concatenate([w, x, new])).max(), 1e-12)
    box = (-reach, reach, -reach, reach)
    for vec, style, label in ((w, "before", "boundary before"), (new, "after",
                                                                  "boundary after")):
        points = _line_points(vec, 0.0, box)
        if points is not None:
            ax.plot(points[:, 0], points[:, 1], color="black" if style == "after" else "gray",
                    linestyle="-" if style == "after" else "--", label=label, zorder=1)
    arrow = dict(angles="xy", scale_units="xy", scale=1, width=0.008, zorder=3)
    ax.quiver(0, 0, w[0], w[1], color="gray", label="$w_t$", **arrow)
    ax.quiver(0, 0, y * x[0], y * x[1], color="tab:green", label="$y_t x_t$", **arrow)
    ax.quiver(w[0], w[1], y * x[0], y * x[1], color="tab:green", alpha=0.4, **arrow)
    ax.quiver(0, 0, new[0], new[1], color="black", label="$w_{t+1} = w_t + y_t x_t$", **arrow)
    style = _POS_STYLE if y > 0 else _NEG_STYLE
    ax.scatter([x[0]], [x[1]], s=80, marker=style["marker"], color=style["color"],
               label=f"$x_t$ (y = {int(y):+d})", zorder=4)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal")
    ax.axhline(0, color="lightgray", linewidth=0.6, zorder=0)
    ax.axvline(0, color="lightgray", linewidth=0.6, zorder=0)
    ax.set_title("perceptron update on a mistake")
    _legend(ax)
    return ax


def perceptron_update_example(X: ArrayLike, y: ArrayLike, mistake: int = 2
                              ) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The data for :func:`plot_perceptron_update`: a real mistake of the perceptron.

    Plays the perceptron through the origin over the rows of ``(X, y)`` in order and returns
    the weights ``w_t`` just before its mistake number ``mistake`` (0-based; the last one if
    it makes fewer), that round's ``x_t`` and its label ``y_t`` in {-1, +1}. The weights are
    the sum of ``y_s x_s`` over the earlier mistakes, as the update ``w <- w + y x`` builds
    them from ``w_1 = 0``.

    Returns
    -------
    w : array of shape (n_features,)
    x : array of shape (n_features,)
    y : +1 or -1

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> w, x, label = perceptron_update_example(X, [1, -1, 1, -1])
    >>> w.tolist(), x.tolist(), label
    ([1.0, -1.0], [1.0, 1.0], 1)
    """
    import numbers

    from .._validation import check_scalar
    from ..linear.perceptron import Perceptron
    from ..online import play

    check_scalar("perceptron_update_example", "mistake", mistake, kind=numbers.Integral, low=0,
                 meaning="0-based number of the mistake to draw")
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    y_pm, _ = _encode("perceptron_update_example", y)
    rounds = play(Perceptron(fit_intercept=False), X, y_pm).mistake_rounds
    if rounds.size == 0:
        raise ValueError("perceptron_update_example: the perceptron made no mistake on these"
                         " rows, so there is no update to draw; pass more or other rows.")
    before = rounds[: min(mistake, rounds.size - 1)]
    t = int(rounds[before.size])
    return (y_pm[before, None] * X[before]).sum(axis=0), X[t], int(y_pm[t])
