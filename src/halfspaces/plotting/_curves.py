"""Curves of a run: mistakes against a bound, the objective against its optimum, and a
reliability diagram (see :mod:`halfspaces.plotting`)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._labels import format_label
from .._validation import check_scalar
from ._common import _encode, _legend, _new_axes


def plot_mistakes(transcript: Any, bound: float | None = None, *, ax: Any = None,
                  label: str | None = None, bound_label: str = "bound",
                  bound_at: tuple[ArrayLike, ArrayLike] | None = None,
                  title: str | None = None, log: bool | None = None):
    """Cumulative mistakes over the rounds of the online game, against a mistake bound.

    Parameters
    ----------
    transcript : :class:`halfspaces.online.Transcript` (or anything with ``mistakes``)
    bound : float, optional
        Drawn as a horizontal line, e.g. Novikoff's ``(R/gamma)^2`` from
        :func:`halfspaces.theory.perceptron_bound` (``.bound``).
    ax : matplotlib Axes, optional
    label : str, optional
        Legend entry of the mistake curve.
    bound_label : str, default="bound"
        Legend entry of the bound, followed by ``= value``.
    bound_at : (rounds, bounds), optional
        The bound on the first ``t`` rounds for several ``t`` (e.g. Novikoff's on each
        prefix): drawn as points joined by steps, so the bound is seen at every size.
    title : str, optional
        Default ``"online mistakes"``; say the data and the learner.
    log : bool, optional
        A logarithmic mistakes axis (symmetric-log, linear below 1). Default: when the
        largest bound is over 4 times the mistakes, which a linear axis would flatten.

    Returns
    -------
    matplotlib.axes.Axes
        The curve's y-data is the cumulative number of mistakes after rounds 1, 2, ..., T.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> from matplotlib.figure import Figure
    >>> t = SimpleNamespace(mistakes=np.array([True, False, True]))
    >>> ax = plot_mistakes(t, bound=4.0, ax=Figure().add_subplot())
    >>> ax.get_lines()[0].get_ydata().tolist()
    [1, 1, 2]
    """
    mistakes = np.asarray(transcript.mistakes, dtype=bool)
    cumulative = np.cumsum(mistakes)
    rounds = np.arange(1, mistakes.size + 1)
    ax = _new_axes(ax)
    ax.plot(rounds, cumulative, drawstyle="steps-post", color="tab:blue",
            label=label or f"mistakes ({int(cumulative[-1]) if cumulative.size else 0})")
    largest = [] if bound is None else [float(bound)]
    if bound_at is not None:
        at, values = (np.asarray(v, dtype=np.float64).ravel() for v in bound_at)
        keep = np.isfinite(values)
        if keep.any():
            ax.plot(at[keep], values[keep], drawstyle="steps-pre", color="tab:red",
                    marker="o", markersize=3, linewidth=1,
                    label=f"{bound_label} on the first t rounds")
            largest.append(float(values[keep].max()))
    if bound is not None:
        ax.axhline(float(bound), color="tab:red", linestyle="--",
                   label=f"{bound_label} = {float(bound):.4g}")
    top = max(float(cumulative[-1]) if cumulative.size else 0.0, 1.0)
    if log is None:
        log = bool(largest) and max(largest) > 4 * top
    if log:
        ax.set_yscale("symlog", linthresh=1.0)
    ax.set(xlabel="round t", ylabel="mistakes so far" + (" (log scale)" if log else ""),
           title=title if title is not None else "online mistakes")
    ax.set_ylim(0, max([top, *largest]) * (2.0 if log else 1.08))  # room above the bound
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_objective(history: ArrayLike, optimum: float | None = None, *, ax: Any = None,
                   gap: bool = False, label: str = "Pegasos", lam: float | None = None):
    """The objective ``J(theta_t)`` over epochs against the exact optimum ``J*``.

    Parameters
    ----------
    history : array of shape (n_epochs,), objective after each epoch
    optimum : float, optional
        The exact minimum, e.g. from ``SVC`` solved as a QP; drawn as a horizontal line.
    ax : matplotlib Axes, optional
    gap : bool, default=False
        Plot the sub-optimality ``J(theta_t) - J*`` on a log scale instead (needs
        ``optimum``).
    label : str, default="Pegasos"
    lam : float, optional
        The lambda of ``J``, shown in the title.

    Returns
    -------
    matplotlib.axes.Axes
        Its first line is the curve; the second, when ``optimum`` is given and ``gap`` is
        False, the optimum.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> ax = plot_objective([3.0, 2.0, 1.5], 1.0, ax=Figure().add_subplot())
    >>> [float(v) for v in ax.get_lines()[1].get_ydata()]
    [1.0, 1.0]
    """
    history = np.asarray(history, dtype=np.float64).ravel()
    iterations = np.arange(1, history.size + 1)
    ax = _new_axes(ax)
    if gap:
        if optimum is None:
            raise ValueError("plot_objective: gap=True needs the optimum; got optimum=None.")
        # The floor keeps iterates that reach the optimum (to rounding) on the log scale.
        ax.semilogy(iterations, np.maximum(history - float(optimum), 1e-16), color="tab:blue",
                    label=f"{label}: $J(\\theta_t) - J^*$")
        ax.set_ylabel("$J(\\theta_t) - J^*$")
    else:
        ax.plot(iterations, history, color="tab:blue", marker=".",
                label=f"{label}: $J(\\theta_t)$")
        if optimum is not None:
            ax.axhline(float(optimum), color="black", linestyle="--",
                       label=f"optimum $J^*$ = {float(optimum):.5g}")
        ax.set_ylabel("objective $J(\\theta)$")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set(xlabel="epoch (pass over the data)",
           title="objective against the optimum" + ("" if lam is None
                                                    else f", $\\lambda$ = {lam:g}"))
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_reliability(y_true: ArrayLike, proba: ArrayLike, *, n_bins: int = 10,
                     ax: Any = None, label: str = "model"):
    """Reliability diagram: in each of ``n_bins`` equal bins of the predicted probability
    of the positive class, the fraction of rows that are positive against the mean
    prediction; a calibrated model lies on the diagonal.

    Parameters
    ----------
    y_true : array of shape (n,), two labels; the larger is the positive class (``classes_[1]``)
    proba : array of shape (n,) or (n, 2)
        The predicted probability of the positive class, or ``predict_proba``'s two columns.
    n_bins : int, default=10
    ax : matplotlib Axes, optional
    label : str, default="model"

    Returns
    -------
    matplotlib.axes.Axes
        Its first line is the diagonal, its second the fraction of positive rows against
        the mean prediction in each bin that holds rows.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> ax = plot_reliability([0, 0, 1, 1], [0.1, 0.3, 0.7, 0.9], n_bins=2,
    ...                       ax=Figure().add_subplot())
    >>> [float(v) for v in ax.get_lines()[1].get_ydata()]
    [0.0, 1.0]
    """
    n_bins = check_scalar("plot_reliability", "n_bins", n_bins, kind=numbers.Integral, low=1,
                          hint="Try n_bins=10.")
    y_pm, classes = _encode("plot_reliability", y_true)
    p = np.asarray(proba, dtype=np.float64)
    p = p[:, 1] if p.ndim == 2 and p.shape[1] == 2 else p
    if p.shape != y_pm.shape or not (np.all(p >= 0) and np.all(p <= 1)):
        raise ValueError(
            f"plot_reliability: proba must hold one probability in [0, 1] per row of y_true"
            f" ({y_pm.size} rows), or predict_proba's two columns; got shape {np.shape(proba)}"
            f"{'' if p.shape != y_pm.shape else ' with values outside [0, 1]'}.")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, n_bins - 1)
    count = np.bincount(which, minlength=n_bins)
    used = count > 0
    mean_p = np.bincount(which, weights=p, minlength=n_bins)[used] / count[used]
    positive = np.bincount(which, weights=y_pm > 0, minlength=n_bins)[used] / count[used]
    ax = _new_axes(ax)
    ax.plot([0, 1], [0, 1], color="black", linestyle="--", label="calibrated")
    brier = float(np.mean((p - (y_pm > 0)) ** 2))
    ax.plot(mean_p, positive, color="tab:blue", marker="o",
            label=f"{label} (Brier score {brier:.3g})")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel=f"mean predicted P(y = {format_label(classes[1])})",
           ylabel=f"fraction of rows with y = {format_label(classes[1])}",
           title=f"reliability diagram ({n_bins} bins, {y_pm.size} rows)")
    ax.set_aspect("equal")
    _legend(ax)
    return ax


def plot_objective_and_gap(history: ArrayLike, optimum: float, *, fig: Any = None,
                           label: str = "Pegasos", lam: float | None = None):
    """Two panels: the objective against the optimum, and the gap ``J(theta_t) - J*`` (log).

    Parameters
    ----------
    history : array of shape (n_iterations,), objective after each iteration (epoch)
    optimum : float, the exact minimum (see :func:`pegasos_objective_history`)
    fig : matplotlib Figure, optional
    label : str, default="Pegasos"
    lam : float, optional, shown in the titles

    Returns
    -------
    matplotlib.figure.Figure
        Its two Axes are :func:`plot_objective` with ``gap=False`` and ``gap=True``.
    """
    if fig is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(11, 4.5), layout="constrained")
    left, right = fig.subplots(1, 2)
    plot_objective(history, optimum, ax=left, label=label, lam=lam)
    plot_objective(history, optimum, ax=right, gap=True, label=label, lam=lam)
    return fig


def pegasos_objective_history(X: ArrayLike, y: ArrayLike, lam: float, *, max_iter: int = 50,
                              random_state: Any = 0) -> tuple[NDArray[np.float64], float]:
    """The data for :func:`plot_objective`: Pegasos's objective per epoch, and the optimum.

    Runs ``PegasosSVC(lam=lam, record_objective=True)`` for ``max_iter`` epochs (its
    ``objective_history_``, :func:`halfspaces.losses.svm_objective` after each epoch); the
    optimum is the same objective at the exact minimizer, ``SVC(lam=lam)`` solved as a QP.

    Returns
    -------
    history : array of shape (max_iter,)
    optimum : float
    """
    from ..linear.pegasos import PegasosSVC
    from ..linear.svm import SVC
    from ..losses import svm_objective

    y_pm, _ = _encode("pegasos_objective_history", y)
    learner = PegasosSVC(lam=lam, max_iter=max_iter, record_objective=True,
                         random_state=random_state).fit(X, y)
    history = np.asarray(learner.objective_history_, dtype=np.float64).ravel()
    exact = SVC(lam=lam, kernel="linear").fit(X, y)
    optimum = svm_objective(np.ravel(exact.coef_), float(np.ravel(exact.intercept_)[0]), X, y_pm,
                            lam=lam)
    return history, float(optimum)
