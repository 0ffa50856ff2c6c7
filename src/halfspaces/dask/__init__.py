"""Dask backend: training whose work runs on Dask's workers, where the data is.

:func:`fit` trains an ordinary halfspaces estimator on data that lives on a
``dask.distributed`` cluster: a Dask array of NumPy or CSR blocks with its labels, a Dask
DataFrame (with a Series of labels or its label column's name), or svmlight files that
each worker reads itself. The row blocks become shards held by the workers for the whole
fit; only weight vectors, gradients and scalars travel. The estimator picks the method
(:data:`METHODS` is their one table; ``method="auto"`` takes the estimator's default):

- ``"online"`` (every estimator with ``partial_fit``): the exact online pass, the model
  travelling from block to block;
- ``"ipm"`` (``Perceptron``, ``AveragedPerceptron``): iterative parameter mixing
  (McDonald, Hall and Mann 2010), until an epoch makes no mistake;
- ``"cocoa"`` (linear ``SVC``): CoCoA+ (Ma et al. 2015) with a working-set step on the
  client, to a certified duality gap;
- ``"lbfgs"`` (``LogisticRegression``): each shard's loss and gradient, for L-BFGS on the
  client (one-vs-rest or multinomial);
- ``"average"``, ``"minibatch"`` (``PegasosSVC``): epochs mixed, or synchronous mini-batch
  steps.

:func:`predict`, :func:`decision_function` and :func:`predict_proba` return lazy Dask
arrays. Each worker keeps its shards in one host (an actor) and a round is one call to each
host (:mod:`halfspaces.dask._run`); rounds are deterministic, so a worker lost mid-fit is
recovered by replaying them, with the same model. Dask is optional (``pip install
"halfspaces[dask]"``), imported inside each function. ``fit_blocks`` is an alias of
``fit(..., method="online")``. More: docs/data.md, docs/scaling.md.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_choice, check_scalar
from ._predict import decision_function, import_dask, predict, predict_proba

__all__ = ["fit", "fit_blocks", "predict", "decision_function", "predict_proba"]

OWNER = "halfspaces.dask.fit"

@dataclass(frozen=True)
class Method:
    """A row of :data:`METHODS`: what a distributed method trains and how it is called."""

    estimators: tuple[str, ...]  # the halfspaces classes it trains (empty: any partial_fit)
    auto: bool  # method="auto" picks it for those classes
    options: dict[str, Any]  # its options and their defaults (None: the estimator's)
    fit: str  # the name of its function in this module


#: The Dask methods: every list of methods, defaults and options is read from this table.
METHODS: dict[str, Method] = {
    "online": Method((), False, {"n_passes": 1, "shuffle_blocks": False,
                                 "random_state": None}, "_fit_online"),
    "ipm": Method(("Perceptron", "AveragedPerceptron"), True,
                  {"max_iter": None, "mixing": "uniform", "shuffle": None,
                   "random_state": None}, "_fit_ipm"),
    "cocoa": Method(("SVC",), True,
                    {"max_iter": None, "tol": None, "local_iters": 100, "theta": 0.1,
                     "working_set": 1000, "rho": None, "random_state": None}, "_fit_cocoa"),
    "lbfgs": Method(("LogisticRegression",), True, {}, "_fit_lbfgs"),
    "average": Method(("PegasosSVC",), True,
                      {"max_iter": None, "shuffle": None, "random_state": None},
                      "_fit_average"),
    "minibatch": Method(("PegasosSVC",), False,
                        {"batch_size": None, "n_iter": None, "max_iter": None,
                         "random_state": None}, "_fit_minibatch"),
}


def _trains(method: str, estimator) -> bool:
    """Whether ``method`` trains ``estimator``'s class itself (not a subclass)."""
    from .. import linear

    return any(type(estimator) is getattr(linear, name)
               for name in METHODS[method].estimators)


def _auto_method(estimator) -> str:
    return next((name for name, row in METHODS.items()
                 if row.auto and _trains(name, estimator)), "online")


def _check_method(estimator, method: str) -> None:
    name = type(estimator).__name__
    if method == "online":
        if not hasattr(estimator, "partial_fit"):
            raise TypeError(
                f"{OWNER}: {name} has no partial_fit, so it cannot learn block by block"
                " (method='online'). Use method='auto' for its distributed algorithm, or fit"
                " it on a sample that fits in memory, or use an online estimator such as"
                " PegasosSVC (kernel=None) or Perceptron.")
        return
    if not _trains(method, estimator):
        allowed = " or ".join(METHODS[method].estimators)
        raise TypeError(f"{OWNER}: method={method!r} trains {allowed}; got {name}. Use"
                        " method='auto' (or 'online' for any estimator with partial_fit).")
    if method == "cocoa":
        if callable(estimator.kernel) or estimator.kernel != "linear":
            raise ValueError(f"{OWNER}: CoCoA+ trains the linear SVM; got SVC(kernel="
                             f"{estimator.kernel!r}). A kernel SVM keeps one coefficient per"
                             " training row: fit it on a sample in memory.")
        if estimator.lam is None and np.isinf(estimator.C):
            raise ValueError(f"{OWNER}: CoCoA+ needs a finite C (the soft-margin SVM); got"
                             " C=inf. Fit the hard-margin SVM in memory, or use a large C.")
    if method in ("average", "minibatch") and estimator.kernel is not None:
        raise ValueError(f"{OWNER}: PegasosSVC(kernel={estimator.kernel!r}) keeps one"
                         " coefficient per training row and is not distributed; use"
                         " kernel=None.")


def _options(estimator, method: str, given: dict) -> dict:
    defaults = METHODS[method].options
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        listed = ", ".join(defaults) or "none"
        raise TypeError(f"{OWNER}: option(s) {unknown} are not used by method={method!r}"
                        f" ({type(estimator).__name__}); its options are: {listed}.")
    opts = {**defaults, **given}
    if "random_state" in opts and opts["random_state"] is None:
        opts["random_state"] = getattr(estimator, "random_state", None)
    for name in ("max_iter", "batch_size"):
        if name in opts and opts[name] is None:
            opts[name] = getattr(estimator, name)
    for name in ("max_iter", "n_passes", "local_iters", "batch_size"):
        if name in opts:
            check_scalar(OWNER, name, opts[name], kind=numbers.Integral, low=1)
    if "working_set" in opts:
        check_scalar(OWNER, "working_set", opts["working_set"], kind=numbers.Integral, low=0,
                     meaning="rows sent to the client per round for the working-set step")
    if opts.get("n_iter") is not None:
        check_scalar(OWNER, "n_iter", opts["n_iter"], kind=numbers.Integral, low=1,
                     meaning="number of mini-batch steps")
    if "mixing" in opts:
        check_choice(OWNER, "mixing", opts["mixing"], ("uniform", "mistakes"))
    if method == "cocoa":
        if opts["tol"] is None:  # SVC's DCD stops at a duality gap of 0.01 tol P
            opts["tol"] = 0.01 * estimator.tol
        check_scalar(OWNER, "tol", opts["tol"], low=0, low_inclusive=False,
                     meaning="relative duality gap at which CoCoA+ stops",
                     hint="Try tol=1e-6.")
        check_scalar(OWNER, "theta", opts["theta"], low=0, high=1, high_inclusive=False,
                     meaning="factor by which a round's local passes reduce the local"
                     " subproblem's violation", hint="Try theta=0.1.")
        if opts["rho"] is not None:
            check_scalar(OWNER, "rho", opts["rho"], low=0, low_inclusive=False,
                         meaning="step of the proximal-point method on the offset",
                         hint="Leave rho=None (half the top eigenvalue of X^T X / n).")
    for flag in ("shuffle", "shuffle_blocks"):
        if opts.get(flag) is not None:
            check_scalar(OWNER, flag, opts[flag], kind=(bool, np.bool_))
    return opts


def _seed(random_state) -> int:
    from sklearn.utils import check_random_state

    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def _client(client):
    try:
        from distributed import get_client
    except ImportError as exc:
        raise ImportError("The Dask backend needs the optional dependency"
                          " 'dask[distributed]': pip install \"halfspaces[dask]\".") from exc
    if client is not None:
        return client
    try:
        return get_client()
    except ValueError as exc:
        raise ValueError(
            f"{OWNER}: no dask.distributed Client is running. Start one first, e.g."
            " `from dask.distributed import Client; client = Client()` (a LocalCluster on"
            " this machine) or Client('scheduler-address:8786'), or pass client=.") from exc


def _feature_names(estimator, X, y, method: str):
    """The feature names to record, as scikit-learn records a pandas DataFrame's columns:
    a Dask DataFrame's columns other than the label ``y`` when they are all strings, or
    those of an estimator that the online pass continues; None otherwise."""
    from ._data import is_dask_frame, is_dask_labels

    names = None
    if is_dask_frame(X) and (isinstance(y, str) or is_dask_labels(y)):
        columns = [c for c in X.columns if not isinstance(y, str) or c != y]
        if all(isinstance(c, str) for c in columns):
            names = np.asarray(columns, dtype=object)
    kept = getattr(estimator, "feature_names_in_", None) if method == "online" else None
    if kept is not None and names is not None and not np.array_equal(kept, names):
        raise ValueError(f"{OWNER}: the DataFrame's feature columns {list(names)[:8]} differ"
                         f" from those {type(estimator).__name__} was fitted with"
                         f" {list(kept)[:8]}; pass the same columns in the same order.")
    return names if names is not None else kept


def _classes(estimator, shards, classes, method: str):
    from .._labels import check_classes

    if classes is None and method == "online" and hasattr(estimator, "classes_"):
        return None  # a fitted estimator continues with its own classes_
    return check_classes(OWNER, shards.labels, classes)


def fit(estimator: Any, X: Any, y: Any = None, *, method: str = "auto", client=None,
        classes: ArrayLike | None = None, verbose: bool = False,
        callback: Callable[[dict], Any] | None = None, retries: int = 2, **options) -> Any:
    """Fit ``estimator`` on data held by a Dask cluster, with the work done on its workers.

    Parameters
    ----------
    estimator : halfspaces estimator
        It picks the algorithm (see the module docstring) and gives its hyper-parameters
        (``C``/``lam``, ``loss``, ``fit_intercept``, ``max_iter``, ``tol``, ...). It is fitted
        in place and returned; the result is an ordinary estimator, usable and savable
        without Dask.
    X : dask array, Dask DataFrame, or list of svmlight paths
        A dask array of NumPy or ``scipy.sparse`` CSR blocks, chunked along rows only; a
        Dask DataFrame whose columns other than the label column ``y`` are the features; or
        svmlight files (one shard each) read by the workers, with ``y=None``.
    y : dask array, NumPy array, Dask Series, str or None
        The labels, chunked like ``X`` (a NumPy array is chunked like ``X``); for a
        DataFrame, the label column's name or a Dask Series partitioned like ``X`` (as
        dask-ml takes it); None for svmlight files.
    method : {"auto", "online", "ipm", "cocoa", "lbfgs", "average", "minibatch"}
        ``"auto"`` picks the estimator's distributed algorithm.
    client : distributed.Client or None
        None uses the current client (``distributed.get_client()``).
    classes : array-like or None
        Every label; None computes them from the data (one pass over the labels only).
    verbose : bool
        Print one line of progress per round (mistakes, duality gap or objective).
    callback : callable or None
        Called with a dict describing each round (``"method"``, ``"round"``, and
        ``"mistakes"``, ``"duality_gap"`` or ``"objective"``).
    retries : int
        Times a failing task (reading a shard, a step of the online pass) is run again. A
        worker that dies does not count against it: its shards are recomputed and the
        rounds replayed on them.
    **options
        The method's own options:

        - ``online``: ``n_passes=1``; ``shuffle_blocks=False`` (visit the blocks in a
          seeded random order each pass); ``random_state``.
        - ``ipm``: ``max_iter`` (epochs; the estimator's); ``mixing="uniform"`` or
          ``"mistakes"``; ``shuffle`` (rows of each shard in a seeded random order each
          epoch; the estimator's); ``random_state``.
        - ``cocoa``: ``max_iter`` (rounds; the estimator's); ``tol``, the relative
          duality gap at which to stop (default ``0.01 * estimator.tol``, 1e-6 for
          ``SVC()``: the certificate of single-machine ``SVC``); ``theta=0.1``: each
          round's coordinate passes over a shard go on until they reduce the violation
          of the local subproblem's optimality conditions by this factor (0: always
          ``local_iters`` passes); ``local_iters=100``, the most passes per round;
          ``working_set=1000``, the rows (over all shards) that violate the optimality
          conditions most, sent to the client each round for a step on their dual
          coordinates (0: plain CoCoA+, only weight vectors travel);
          ``rho``, the step of the proximal-point method that makes the offset exact (any
          ``rho > 0`` gives the same optimum; default half the largest eigenvalue of
          ``X^T X / n``, estimated on the workers); ``random_state``.
        - ``lbfgs``: none (``max_iter`` and ``tol`` are the estimator's, as in ``fit``).
        - ``average``: ``max_iter`` (epochs; the estimator's); ``shuffle`` (default: the
          estimator's ``sampling`` is not "cyclic"); ``random_state``.
        - ``minibatch``: ``batch_size`` (the estimator's; use thousands), ``n_iter``
          (steps) or ``max_iter`` (epochs of ``n / batch_size`` steps); ``random_state``.

        For ``PegasosSVC``, ``eta0="auto"`` (and ``"calibrate"``, treated as ``"auto"``) and
        ``intercept_decay="auto"`` are resolved once on all the rows, so that every shard
        follows the same schedule.

    Returns
    -------
    estimator
        The same estimator, fitted. Iterative methods also set ``dask_history_``: a dict
        of per-round arrays (mistakes per shard, duality gaps, objectives).

    Examples
    --------
    >>> import dask.array as da
    >>> from dask.distributed import Client, LocalCluster
    >>> from halfspaces import Perceptron
    >>> from halfspaces.datasets import make_separable
    >>> from halfspaces.dask import fit, predict
    >>> X, y = make_separable(n_samples=200, margin=0.1, random_state=0)
    >>> dX, dy = da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50)
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     clf = fit(Perceptron(), dX, dy)                  # iterative parameter mixing
    ...     labels = predict(clf, dX).compute()
    >>> bool(clf.converged_), bool((labels == y).all())
    (True, True)
    """
    import_dask()
    if method != "auto":
        check_choice(OWNER, "method", method, ("auto", *METHODS))
    method = _auto_method(estimator) if method == "auto" else method
    _check_method(estimator, method)
    if hasattr(estimator, "_validate_params") and method != "online":
        estimator._validate_params()
    opts = _options(estimator, method, options)
    check_scalar(OWNER, "retries", retries, kind=numbers.Integral, low=0)
    client = _client(client)

    from ._data import load_shards
    from ._run import Run

    names = _feature_names(estimator, X, y, method)
    run = Run(client, None, method, retries=int(retries), verbose=bool(verbose),
              callback=callback)
    try:
        run.shards = load_shards(client, X, y, run.tag, int(retries))
        labels = _classes(estimator, run.shards, classes, method)
        fitted = globals()[METHODS[method].fit](run, estimator, labels, opts)
    finally:
        if run.shards is not None:
            run.close()
    if method != "online":
        fitted.n_features_in_ = run.shards.n_features
    if names is not None:
        fitted.feature_names_in_ = names
    estimator.__setstate__(fitted.__getstate__())  # fit in place, as scikit-learn's fit does
    return estimator


def _fit_online(run, estimator, classes, opts):
    from ._online import fit_online

    return fit_online(run, estimator, classes, n_passes=int(opts["n_passes"]),
                      shuffle_blocks=bool(opts["shuffle_blocks"]),
                      random_state=opts["random_state"])


def _fit_ipm(run, estimator, classes, opts):
    from ._ipm import assemble, fit_ipm

    shuffle = estimator.shuffle if opts["shuffle"] is None else opts["shuffle"]
    states, history, converged = fit_ipm(run, estimator, classes,
                                         max_iter=int(opts["max_iter"]),
                                         mixing=opts["mixing"], shuffle=bool(shuffle),
                                         seed=_seed(opts["random_state"]))
    if not converged:  # as the single-machine fit warns
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        last = int(history["mistakes"][-1].sum())
        warnings.warn(f"{OWNER}: iterative parameter mixing stopped after max_iter="
                      f"{opts['max_iter']} epochs without an epoch free of mistakes (the last"
                      f" made {last} mistakes on {run.shards.n_samples} rows), so converged_"
                      " is False: the data may not be linearly separable, or its margin is"
                      " too small for that many epochs. Increase max_iter if it is"
                      " separable.", ConvergenceWarning, stacklevel=3)
    return assemble(states, classes, history, converged)


def _fit_cocoa(run, estimator, classes, opts):
    from sklearn.base import clone

    from ._cocoa import default_rho, fit_cocoa

    n = run.shards.n_samples
    C = float(estimator.C) if estimator.lam is None else 1.0 / (float(estimator.lam) * n)
    rho = 0.0
    if estimator.fit_intercept:
        rho = default_rho(run) if opts["rho"] is None else float(opts["rho"])
    coef, offset, history, converged, objective, gap = fit_cocoa(
        run, classes, C=C, loss=estimator.loss, rho=rho, max_iter=int(opts["max_iter"]),
        tol=float(opts["tol"]), local_iters=int(opts["local_iters"]),
        theta=float(opts["theta"]), working_set=int(opts["working_set"]),
        seed=_seed(opts["random_state"]))
    if not converged:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        warnings.warn(f"{OWNER}: CoCoA+ did not reach a relative duality gap of"
                      f" tol={opts['tol']:g} in max_iter={opts['max_iter']} rounds (last:"
                      f" {float(np.max(gap / objective)):.3g}); increase max_iter, or"
                      " lower theta.", ConvergenceWarning, stacklevel=3)
    fitted = clone(estimator)
    fitted.classes_, fitted.C_, fitted.solver_ = classes, C, "cocoa+"
    fitted.coef_ = coef.copy()
    fitted.intercept_ = offset.copy()
    norms = np.linalg.norm(fitted.coef_, axis=1)
    margins = np.where(norms > 0, 1.0 / np.maximum(norms, np.finfo(float).tiny), np.inf)
    one = coef.shape[0] == 1
    fitted.margin_ = float(margins[0]) if one else margins
    fitted.objective_ = float(objective[0]) if one else objective
    fitted.duality_gap_ = float(gap[0]) if one else gap
    fitted.n_iter_ = len(history["duality_gap"])
    fitted.dask_history_ = history
    return fitted


def _fit_lbfgs(run, estimator, classes, opts):
    from sklearn.base import clone

    from ._lbfgs import fit_lbfgs

    n = run.shards.n_samples
    lam = float(estimator.lam) if estimator.lam is not None else 1.0 / (float(estimator.C) * n)
    multinomial = classes.size > 2 and estimator.multi_class != "ovr"  # L-BFGS: "auto" too
    coef, intercept, objectives, n_iter, history = fit_lbfgs(run, estimator, classes, lam=lam,
                                                             multinomial=multinomial)
    fitted = clone(estimator)
    fitted.classes_, fitted.coef_, fitted.intercept_ = classes, coef, intercept
    fitted.multi_class_ = "multinomial" if multinomial else "ovr"
    fitted.objective_ = objectives[0] if objectives.size == 1 else objectives
    fitted.n_iter_ = n_iter
    fitted.t_, fitted.n_mistakes_, fitted.mistakes_per_epoch_ = 0, 0, []  # as after fit
    fitted.dask_history_ = history
    return fitted


def _pegasos_schedule(run, estimator) -> tuple[float, float]:
    """``eta0`` and ``intercept_decay`` resolved on all the data (PegasosSVC's "auto")."""
    eta0 = estimator.eta0
    if isinstance(eta0, str):  # "auto", and "calibrate" as "auto" (see fit's Notes)
        mean_sq = run.shards.mean_sq_norm
        eta0 = 0.5 / mean_sq if mean_sq > 0 else 1.0
    from ..linear.pegasos import intercept_decay

    return float(eta0), intercept_decay(estimator.intercept_decay, run.shards.density)


def _fit_average(run, estimator, classes, opts):
    from sklearn.base import clone

    from ._pegasos import fit_average

    model = clone(estimator)
    if run.n_shards > 1:  # every shard must use the same schedule: resolve it on all rows
        eta0, decay = _pegasos_schedule(run, estimator)
        model.set_params(eta0=eta0, intercept_decay=decay)
    shuffle = estimator.sampling != "cyclic" if opts["shuffle"] is None else opts["shuffle"]
    fitted, history = fit_average(run, model, classes, max_iter=int(opts["max_iter"]),
                                  shuffle=bool(shuffle), seed=_seed(opts["random_state"]))
    fitted.set_params(eta0=estimator.eta0, intercept_decay=estimator.intercept_decay)
    per_epoch = history["mistakes"].sum(axis=1)
    fitted.n_iter_, fitted.mistakes_per_epoch_ = len(per_epoch), [int(v) for v in per_epoch]
    fitted.n_mistakes_ = int(per_epoch.sum())
    fitted.dask_history_ = history
    return fitted


def _fit_minibatch(run, estimator, classes, opts):
    import scipy.sparse as sp
    from sklearn.base import clone

    from ._pegasos import fit_minibatch

    n, d, k = run.shards.n_samples, run.shards.n_features, int(opts["batch_size"])
    n_steps = (int(opts["n_iter"]) if opts["n_iter"] is not None
               else int(opts["max_iter"]) * -(-n // k))
    eta0, decay = _pegasos_schedule(run, estimator)
    W, B, history = fit_minibatch(run, estimator, classes, n_steps=n_steps, batch_size=k,
                                  eta0=eta0, intercept_decay=decay,
                                  seed=_seed(opts["random_state"]))
    fitted = clone(estimator)
    # partial_fit on one zero row allocates the estimator's state; set_iterate overwrites it
    fitted.partial_fit(sp.csr_matrix((1, d)), classes[:1], classes=classes)
    fitted.set_iterate(W, B, n_steps)
    fitted.eta0_, fitted.intercept_decay_ = eta0, decay
    fitted.n_iter_, fitted.mistakes_per_epoch_ = n_steps, []
    fitted.n_mistakes_ = int(history["mistakes"].sum())
    fitted.dask_history_ = history
    return fitted


def fit_blocks(estimator: Any, X: Any, y: Any, *, classes: ArrayLike | None = None,
               n_passes: int = 1, client=None) -> Any:
    """The exact online pass: ``fit(estimator, X, y, method="online", n_passes=...)``.

    Kept for code written against the first Dask backend, which fed the blocks to
    ``partial_fit`` in the client process; the blocks are now learned on the workers.
    """
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(
            f"fit_blocks: {type(estimator).__name__} has no partial_fit, so it cannot learn"
            " block by block. Fit it on a sample that fits in memory (e.g."
            " est.fit(X[:n].compute(), y[:n].compute())), or use an online estimator such"
            " as PegasosSVC (kernel=None) or Perceptron.")
    return fit(estimator, X, y, method="online", client=client, classes=classes,
               n_passes=n_passes)

