"""The online game over a data set, again and again until a pass makes no mistake, round
by round with a trace of each round: what ``halfspaces play --passes`` and the playground
show."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._labels import format_label
from .online import play

__all__ = ["cycle", "weights"]


def weights(learner) -> tuple[list[float] | None, float | None]:
    """The learner's current ``(w, b)``: the weights that score the next round; ``(None,
    None)`` for a learner that keeps no weight vector (a kernel perceptron, the experts) or
    whose ``coef_`` is an average of its iterates (Pegasos's default ``average``)."""
    coef = getattr(learner, "coef_", None)
    if coef is None or getattr(learner, "average", False):
        return None, None
    coef = coef.toarray() if sp.issparse(coef) else np.asarray(coef)
    b = float(np.ravel(learner.intercept_)[0]) if getattr(learner, "fit_intercept", False) \
        else None
    return np.ravel(coef).astype(float).tolist(), b


def _row(X, t: int) -> list[float] | dict[int, float]:
    """Example ``t`` as its numbers (dense), or ``{column: value}`` of its non-zeros (CSR)."""
    if sp.issparse(X):
        s, e = X.indptr[t], X.indptr[t + 1]
        return {int(j): float(v) for j, v in zip(X.indices[s:e], X.data[s:e], strict=True)}
    return np.asarray(X[t], dtype=float).tolist()


def _play_pass(learner, X, y, classes, trace: list | None, epoch: int) -> int:
    """One pass of the online game over the rows in order; its mistakes. With ``trace``, the
    pass goes round by round and appends ``(t, x_t, y_t, score, w_t, b_t, mistake)`` (``w_t``:
    the weights that scored ``x_t``)."""
    if trace is None:
        return int(play(learner, X, y, classes=classes).n_mistakes)
    mistakes = 0
    for t in range(X.shape[0]):
        before = weights(learner)
        round_ = play(learner, X[t:t + 1], y[t:t + 1], classes=classes)
        if not trace and before[0] is None and weights(learner)[0] is not None:
            w0 = [0.0] * X.shape[1]  # the first round: w_1 = 0
            before = w0, 0.0 if learner.fit_intercept else None
        w, b = before
        mistakes += int(round_.n_mistakes)
        trace.append({"epoch": epoch, "t": len(trace) + 1, "row": t, "x": _row(X, t),
                      "y": format_label(y[t]), "score": float(round_.scores[0]),
                      "w": w, "b": b, "mistake": bool(round_.mistakes[0])})
    return mistakes


def cycle(learner, X, y, passes: int, trace: list | None = None) -> list[dict]:
    """Play the online game over ``(X, y)`` in order again and again until a pass makes no
    mistake, at most ``passes`` passes: a row per pass (its mistakes, and the total); with
    ``trace`` (a list) also a row per round, appended to it."""
    classes = np.unique(y)
    epochs, total = [], 0
    for epoch in range(1, passes + 1):
        mistakes = _play_pass(learner, X, y, classes, trace, epoch)
        total += mistakes
        epochs.append({"epoch": epoch, "mistakes": mistakes, "total_mistakes": total})
        if mistakes == 0:
            break
    return epochs
