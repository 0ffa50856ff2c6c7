"""Logistic regression by L-BFGS on the exact objective, the gradient summed on the workers.

The client runs SciPy's L-BFGS-B with the options of
:meth:`halfspaces.LogisticRegression.fit`. Each evaluation of

    J(w, b) = sum_j (n_j / n) J_j(w, b) + lam/2 ||w||^2,
    J_j = 1/n_j sum_{i in shard j} log(1 + exp(-y_i (w.x_i + b)))

is one round: the client puts ``theta = (w, b)`` on the cluster, each shard computes its
``(n_j / n) (J_j, grad J_j)`` with the estimator's own compiled loss-and-gradient pass, and
the tree sum comes back (``d + 2`` numbers). The optimizer's own work is O(d) per
iteration; the O(nnz) work is on the workers. With one shard the weights are ``1`` and
every evaluation is the single-machine one, so the fit is the single-machine ``fit``.

More than two classes with ``multi_class`` resolving to ``"multinomial"``: one problem, the
softmax objective of :mod:`halfspaces.linear._multinomial`, each shard's terms summed over
the whole data's ``n`` (``K (d + 1) + 1`` numbers back per round).
"""

from __future__ import annotations

import numpy as np

from ..linear._multinomial import softmax_objective
from ..linear.logistic import _objective_and_grad, lbfgs


def logistic_terms(shard, theta, positive, fit_intercept: bool, n_total: int, *, j: int):
    """Round on a shard: this shard's ``(n_j / n) J_j`` and ``(n_j / n) grad J_j`` at ``theta``."""
    X, y = shard
    y_pm = np.where(y == positive, 1.0, -1.0)
    value, grad = _objective_and_grad(theta, X, y_pm, 0.0, fit_intercept)
    weight = y.shape[0] / n_total
    return {"value": weight * value, "grad": weight * grad}


def softmax_terms(shard, theta, classes, fit_intercept: bool, n_total: int, *, j: int):
    """Round on a shard: this shard's terms of the multinomial ``J`` and its gradient at ``theta``
    (its losses over the whole data's ``n``, no regularization)."""
    X, y = shard
    labels = np.searchsorted(classes, y).astype(np.int64)
    value, grad = softmax_objective(theta, X, labels, classes.size, 0.0, fit_intercept,
                                    total_weight=n_total)
    return {"value": value, "grad": grad}


def fit_lbfgs(run, estimator, classes, *, lam: float, multinomial: bool):
    """Minimize J per one-vs-rest problem, or the one multinomial problem; returns ``(coef,
    intercept, objectives, n_iter, history)``."""
    positives = (classes[1],) if classes.size == 2 else tuple(classes)
    d, n = run.shards.n_features, run.shards.n_samples
    fit_b = bool(estimator.fit_intercept)
    problems = [None] if multinomial else positives
    K = len(positives)
    n_weights = K * d if multinomial else d  # theta's weights, before the offsets
    coef, intercept = np.zeros((K, d)), np.zeros(K)
    objectives, n_iter, history = [], 0, []
    for k, positive in enumerate(problems):
        evaluations = [0]

        def objective(theta, k=k, positive=positive, evaluations=evaluations):
            r = evaluations[0]
            evaluations[0] += 1
            if multinomial:
                total = run.map_reduce(softmax_terms, theta, classes, fit_b, n)
            else:
                total = run.map_reduce(logistic_terms, theta, positive, fit_b, n)
            w = theta[:n_weights]
            value = total["value"] + 0.5 * lam * float(w @ w)
            grad = total["grad"]
            grad[:n_weights] += lam * w
            history.append((k, value))
            run.report({"method": "lbfgs", "problem": k, "round": r + 1, "objective": value,
                        "gradient_norm": float(np.abs(grad).max())},
                       f"problem {k} evaluation {r + 1}: J = {value:.12g},"
                       f" max |grad| = {np.abs(grad).max():.3g}")
            return value, grad

        res = lbfgs(objective, np.zeros(n_weights + (K if multinomial else 1) * fit_b),
                    max_iter=estimator.max_iter, tol=estimator.tol, stacklevel=3)
        if multinomial:
            coef[:] = res.x[:n_weights].reshape(K, d)
            intercept[:] = res.x[n_weights:] if fit_b else 0.0
        else:
            coef[k] = res.x[:d]
            intercept[k] = res.x[d] if fit_b else 0.0
        objectives.append(float(res.fun))
        n_iter = max(n_iter, int(res.nit))
    hist = {"objective": np.array([v for _, v in history]),
            "problem": np.array([k for k, _ in history], dtype=np.int64)}
    return coef, intercept, np.array(objectives), max(n_iter, 1), hist
