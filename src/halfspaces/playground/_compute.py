"""What the playground's page asks for, answered by the library: each function takes the
checked points ``X`` (n, 2), their labels ``y`` in {-1, +1} and the page's parameters, and
returns the estimators' own numbers as JSON-ready dicts. Nothing here draws."""

from __future__ import annotations

from typing import Any

import numpy as np

# Bounds on what one request may cost.
MAX_POINTS = 200
MAX_PASSES = 50
MAX_ROUNDS = 4000  # the perceptron's rounds traced in one answer: passes * points at most
MAX_STEPS = 2000
MAX_GRID = 60
MAX_STUMPS = 64


class RequestError(ValueError):
    """A request the server refuses (status 400), with a message for the page."""


def _number(params: dict, name: str, default: float, low: float, high: float) -> float:
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"{name} must be a number; got {value!r}")
    value = float(value)
    if not (low <= value <= high):  # also refuses NaN
        raise RequestError(f"{name} must be in [{low:g}, {high:g}]; got {value!r}")
    return value


def _count(params: dict, name: str, default: int, high: int) -> int:
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise RequestError(f"{name} must be a whole number from 1 to {high}; got {value!r}")
    return value


def check_points(params: dict) -> tuple[np.ndarray, np.ndarray]:
    """The request's ``points`` ([[x1, x2], ...]) and ``labels`` (+1 / -1), checked."""
    points, labels = params.get("points"), params.get("labels")
    if not isinstance(points, list) or not isinstance(labels, list) \
            or len(points) != len(labels):
        raise RequestError("points and labels must be two lists of the same length")
    if len(points) > MAX_POINTS:
        raise RequestError(f"at most {MAX_POINTS} points; got {len(points)}")
    if not all(isinstance(p, list) and len(p) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in p) for p in points):
        raise RequestError("each point must be a list of two numbers [x1, x2]")
    if not all(label in (1, -1) and not isinstance(label, bool) for label in labels):
        raise RequestError("each label must be 1 or -1")
    X = np.array(points, dtype=np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(X)) or np.abs(X).max(initial=0.0) > 1e6:
        raise RequestError("coordinates must be finite numbers of size at most 1e6")
    return X, np.array(labels, dtype=np.float64)


def _two_classes(y: np.ndarray) -> None:
    if np.unique(y).size != 2:
        raise RequestError("add points of both classes (+1 and -1) first")


def _grid(params: dict) -> tuple[np.ndarray, dict]:
    """The points of the page's view box ``box = [x_min, x_max, y_min, y_max]`` on a
    ``size x size`` grid (row-major, y rising by row)."""
    box = params.get("box")
    if not isinstance(box, list) or len(box) != 4 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= 1e6
            for v in box) or box[0] >= box[1] or box[2] >= box[3]:
        raise RequestError("box must be [x_min, x_max, y_min, y_max] with min < max")
    size = _count(params, "grid", 40, MAX_GRID)
    xs, ys = np.linspace(box[0], box[1], size), np.linspace(box[2], box[3], size)
    xx, yy = np.meshgrid(xs, ys)
    return np.column_stack([xx.ravel(), yy.ravel()]), {"size": size, "box": box}


def _separability(X: np.ndarray, y: np.ndarray, fit_intercept: bool) -> dict[str, Any]:
    """Novikoff's bound in the perceptron's setting, or the Farkas rows of the certificate."""
    from ..theory import is_linearly_separable, perceptron_bound

    res = perceptron_bound(X, y, fit_intercept=fit_intercept)
    if res.separable:
        return {"separable": True, "radius": res.radius, "margin": res.margin,
                "bound": res.bound, "augmented": res.augmented, "exact": res.exact}
    certificate = is_linearly_separable(X, y, fit_intercept=fit_intercept)
    return {"separable": False, "rows": certificate.rows.tolist(),
            "alpha": certificate.certificate[certificate.rows].tolist(),
            "radius": res.radius}


def perceptron(X, y, params: dict) -> dict[str, Any]:
    """The perceptron cycling over the points until a pass without a mistake (at most
    ``passes``, and at most :data:`MAX_ROUNDS` rounds in all): every round (the point seen,
    its score, mistake or not, ``w_t`` and ``w_{t+1}``) and the bound."""
    from .._rounds import cycle
    from ..linear.perceptron import Perceptron

    _two_classes(y)
    fit_intercept = bool(params.get("fit_intercept", True))
    passes = min(_count(params, "passes", 20, MAX_PASSES), max(1, MAX_ROUNDS // X.shape[0]))
    learner = Perceptron(fit_intercept=fit_intercept)
    trace: list[dict] = []
    epochs = cycle(learner, X, y, passes, trace)
    rounds = []
    for i, r in enumerate(trace):
        after = trace[i + 1] if i + 1 < len(trace) else {
            "w": np.ravel(learner.coef_).tolist(),
            "b": float(np.ravel(learner.intercept_)[0]) if fit_intercept else None}
        rounds.append({"t": r["t"], "epoch": r["epoch"], "row": r["row"], "y": int(y[r["row"]]),
                       "score": r["score"], "mistake": r["mistake"], "w": r["w"],
                       "b": r["b"] or 0.0, "w_next": after["w"], "b_next": after["b"] or 0.0})
    return {"rounds": rounds, "epochs": epochs, "n_mistakes": int(learner.n_mistakes_),
            "converged": epochs[-1]["mistakes"] == 0, "fit_intercept": fit_intercept,
            "max_passes": passes,
            **_separability(X, y, fit_intercept)}


def svm(X, y, params: dict) -> dict[str, Any]:
    """The max-margin (``hard``) or soft-margin SVM: ``w, b``, the margin ``1/||w||``, the
    support vectors and the slacks ``xi_i = max(0, 1 - y_i f(x_i))``."""
    from ..linear.svm import SVC

    _two_classes(y)
    hard = bool(params.get("hard", False))
    C = np.inf if hard else _number(params, "C", 1.0, 1e-4, 1e6)
    if hard:
        from ..theory import is_linearly_separable

        certificate = is_linearly_separable(X, y)
        if not certificate:
            return {"separable": False, "rows": certificate.rows.tolist()}
    model = SVC(C=C, kernel="linear").fit(X, y)
    w, b = np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])
    f = model.decision_function(X)
    return {"separable": True, "C": None if hard else C, "w": w.tolist(), "b": b,
            "margin": float(1.0 / np.linalg.norm(w)), "support": model.support_.tolist(),
            "slacks": np.maximum(0.0, 1.0 - y * f).tolist()}


def pegasos(X, y, params: dict) -> dict[str, Any]:
    """Pegasos as the paper runs it (``eta_t = 1/(lam t)``, the last iterate), one example
    at a time (drawn by ``random_state``): the objective ``J`` after every step, and its
    minimum ``J*`` (the SVM with ``C = 1/(lam n)`` solved exactly)."""
    from sklearn.utils import check_random_state

    from ..linear.pegasos import PegasosSVC
    from ..linear.svm import SVC
    from ..losses import svm_objective
    from ..online import play

    _two_classes(y)
    lam = _number(params, "lam", 0.1, 1e-4, 1e3)
    steps = _count(params, "steps", 200, MAX_STEPS)
    seed = _count(params, "random_state", 1, 2**31 - 1)
    order = check_random_state(seed).randint(X.shape[0], size=steps)
    learner, history = PegasosSVC(lam=lam, learning_rate="pegasos", average=False), []
    for i in order:
        play(learner, X[i:i + 1], y[i:i + 1], classes=[-1.0, 1.0])
        history.append(svm_objective(np.ravel(learner.coef_), float(learner.intercept_[0]), X,
                                     y, lam=lam))
    exact = SVC(lam=lam, kernel="linear").fit(X, y)
    optimum = svm_objective(np.ravel(exact.coef_), float(np.ravel(exact.intercept_)[0]), X, y,
                            lam=lam)
    return {"objective": [float(v) for v in history], "optimum": float(optimum),
            "rows": order.tolist(), "w": np.ravel(learner.coef_).tolist(),
            "b": float(learner.intercept_[0]), "w_star": np.ravel(exact.coef_).tolist(),
            "b_star": float(np.ravel(exact.intercept_)[0])}


def logistic(X, y, params: dict) -> dict[str, Any]:
    """Logistic regression: ``w, b`` and ``P(y = +1 | x)`` on the page's grid."""
    from ..linear.logistic import LogisticRegression

    _two_classes(y)
    C = _number(params, "C", 1.0, 1e-4, 1e6)
    grid, frame = _grid(params)
    model = LogisticRegression(C=C).fit(X, y)
    proba = model.predict_proba(grid)[:, list(model.classes_).index(1.0)]
    return {"w": np.ravel(model.coef_).tolist(), "b": float(np.ravel(model.intercept_)[0]),
            "proba": proba.tolist(), **frame}


def kernel_perceptron(X, y, params: dict) -> dict[str, Any]:
    """A kernel perceptron (rbf or poly) cycling until a pass without a mistake: its score
    on the page's grid, its mistakes per pass and its support (the rows it erred on)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from ..kernel.kernel_perceptron import KernelPerceptron

    _two_classes(y)
    kernel = params.get("kernel", "rbf")
    if kernel not in ("rbf", "poly"):
        raise RequestError(f"kernel must be rbf or poly; got {kernel!r}")
    gamma = _number(params, "gamma", 1.0, 1e-3, 1e3)
    degree = _count(params, "degree", 2, 6)
    passes = _count(params, "passes", 20, MAX_PASSES)
    grid, frame = _grid(params)
    extra = {"degree": degree, "coef0": 1.0} if kernel == "poly" else {}
    learner = KernelPerceptron(kernel=kernel, gamma=gamma, max_iter=passes, shuffle=False,
                               **extra)
    with warnings.catch_warnings():  # not converging is an answer here ("converged": false)
        warnings.simplefilter("ignore", ConvergenceWarning)
        learner.fit(X, y)
    per_pass = [int(m) for m in learner.mistakes_per_epoch_]
    return {"scores": learner.decision_function(grid).tolist(), "mistakes": per_pass,
            "converged": per_pass[-1] == 0 if per_pass else True,
            "mistake_rows": np.unique(getattr(learner, "support_", [])).astype(int).tolist(),
            **frame}


def experts(X, y, params: dict) -> dict[str, Any]:
    """Halving or Weighted Majority over the stumps ``sign * (x_j - theta)`` on both axes,
    round by round: the version space (Halving) or the weights (WM) after each round, the
    mistakes, and the bound (``log2 N``; WM's ``(m* ln(1/beta) + ln N) / ln(2/(1+beta))``)."""
    from ..experts import HalvingClassifier, WeightedMajorityClassifier, make_hypotheses
    from ..online import play
    from ..theory import halving_mistake_bound, weighted_majority_mistake_bound

    _two_classes(y)
    algo = params.get("algo", "halving")
    if algo not in ("halving", "weighted-majority"):
        raise RequestError(f"algo must be halving or weighted-majority; got {algo!r}")
    n = _count(params, "n_stumps", 32, MAX_STUMPS)
    H = make_hypotheses(X, "stumps", n)
    beta = _number(params, "beta", 0.5, 0.01, 0.99)
    learner = (HalvingClassifier(**H._asdict()) if algo == "halving"
               else WeightedMajorityClassifier(**H._asdict(), beta=beta))
    from ..exceptions import NotRealizableError

    rounds, exhausted = [], None
    for t in range(X.shape[0]):
        try:
            step = play(learner, X[t:t + 1], y[t:t + 1], classes=[-1.0, 1.0])
        except NotRealizableError:  # Halving: no stump agrees with every round so far
            exhausted = t
            break
        state = (learner.version_space_.astype(int).tolist() if algo == "halving"
                 else learner.weights_.tolist())
        rounds.append({"row": t, "score": float(step.scores[0]),
                       "mistake": bool(step.mistakes[0]), "state": state})
    # the stumps as (feature j, threshold theta, sign s): h(x) = s * sign(x_j - theta)
    j = np.argmax(np.abs(H.hypotheses), axis=1)
    sign = H.hypotheses[np.arange(len(j)), j]
    stumps = [[int(a), float(-o / s), float(s)] for a, o, s in zip(j, H.offsets, sign,
                                                                      strict=True)]
    out = {"algo": algo, "stumps": stumps, "rounds": rounds, "n_hypotheses": len(stumps),
           "n_mistakes": int(sum(r["mistake"] for r in rounds)), "exhausted_at": exhausted}
    if algo == "halving":
        out["bound"] = float(halving_mistake_bound(len(stumps)))
        out["consistent"] = int(learner.version_space_.sum())
    else:
        best = int(learner.expert_mistakes_.min())
        out["best_expert_mistakes"] = best
        out["bound"] = float(weighted_majority_mistake_bound(len(stumps), best, beta))
    return out


def adversary(X, y, params: dict) -> dict[str, Any]:
    """The adaptive adversary against the perceptron: each round it shows an unseen point
    that the current ``w`` gets wrong, if any (``GreedyOrderAdversary``); the order it chose,
    the mistakes, and Novikoff's bound, which holds for every order."""
    from ..adversaries import GreedyOrderAdversary
    from ..linear.perceptron import Perceptron
    from ..online import play

    _two_classes(y)
    fit_intercept = bool(params.get("fit_intercept", True))
    adv = GreedyOrderAdversary(X, y)
    learner = Perceptron(fit_intercept=fit_intercept)
    transcript = play(learner, adv, classes=[-1.0, 1.0])
    order = [int(i) for i in adv.order_]
    return {"order": order, "mistakes": transcript.mistakes.tolist(),
            "n_mistakes": int(transcript.n_mistakes), "w": np.ravel(learner.coef_).tolist(),
            "b": float(np.ravel(learner.intercept_)[0]) if fit_intercept else 0.0,
            **_separability(X, y, fit_intercept)}


ACTIONS = {"perceptron": perceptron, "svm": svm, "pegasos": pegasos, "logistic": logistic,
           "kernel": kernel_perceptron, "experts": experts, "adversary": adversary}
