"""Dask backend: learn block by block with ``partial_fit``, predict with ``map_blocks``.

An online learner only ever needs the current example, so a data set larger than memory can
be streamed through it one row block at a time. For a dask array ``X`` with row blocks
``X_1, ..., X_m`` (and labels ``y_1, ..., y_m`` chunked the same way),

    fit_blocks:  for pass in 1..n_passes, for j in 1..m:  est.partial_fit(X_j, y_j, classes)

computing one block at a time, so that at most one block of ``X`` is in memory. Because
``partial_fit`` visits the rows in the given order and carries its state (``w``, ``b``, the
step counter ``t``) across calls, one pass over the blocks is the online pass over the
concatenation ``X_1; ...; X_m`` in row order. Prediction has no state, so it runs on every
block independently (in parallel) through ``X.map_blocks``.

Blocks may be dense NumPy arrays or SciPy CSR matrices (e.g. ``X.map_blocks(sp.csr_matrix)``).
``X`` must be chunked along rows only: one chunk spans all the columns.

Dask is an optional dependency (``pip install "halfspaces[dask]"``), imported inside each
function; ``import halfspaces`` never imports it.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_scalar

__all__ = ["fit_blocks", "predict", "decision_function", "predict_proba"]

_MISSING = (
    "The Dask backend needs the optional dependency 'dask[array]':"
    ' pip install "halfspaces[dask]".'
)


def _import_dask():
    """``(dask, dask.array)``, or an ImportError that says how to install them."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return dask, da


def _name(estimator: Any) -> str:
    return type(estimator).__name__


def _check_X(owner: str, X: Any, da) -> None:
    """``X`` is a 2-D dask array with a single chunk along the columns."""
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{owner}: X must be a dask array; got {type(X).__name__}. Wrap in-memory data"
            " with dask.array.from_array(X, chunks=(rows_per_block, -1)), or call the"
            " estimator directly."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{owner}: X must be a 2-D dask array (n_samples, n_features); got shape"
            f" {X.shape}."
        )
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"{owner}: X must be chunked along rows only, with one chunk spanning all"
            f" {X.shape[1]} columns; got {len(X.chunks[1])} column chunks {X.chunks[1]}."
            " Rechunk it with X.rechunk({1: -1})."
        )


def _short(chunks: tuple) -> tuple:
    return chunks if len(chunks) <= 6 else chunks[:6] + ("...",)


def _as_dask_y(owner: str, X: Any, y: Any, da) -> Any:
    """``y`` as a 1-D dask array whose row chunks are those of ``X``."""
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.ndim != 1 or any(math.isnan(c) for c in X.chunks[0]) or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"{owner}: y must be a 1-D dask array (or a 1-D NumPy array) with one label"
                f" per row of X; got {type(y).__name__} of shape {y.shape} for X of shape"
                f" {X.shape}."
            )
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim == 2 and y.shape[1] == 1 and len(y.chunks[1]) == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"{owner}: y must be a 1-D array of labels; got shape {y.shape}."
        )
    x_rows, y_rows = X.chunks[0], y.chunks[0]
    known = not any(math.isnan(c) for c in x_rows + y_rows)
    if (known and x_rows != y_rows) or len(x_rows) != len(y_rows):
        raise ValueError(
            f"{owner}: y must have the same row chunks as X; got X chunks {_short(x_rows)} and"
            f" y chunks {_short(y_rows)}. Rechunk y with y.rechunk(X.chunks[0]) (or build both"
            " from the same source; with unknown chunk sizes call compute_chunk_sizes())."
        )
    return y


def fit_blocks(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    classes: ArrayLike | None = None,
    n_passes: int = 1,
) -> Any:
    """Fit an online estimator on a dask array, one row block at a time, in order.

    Each pass calls ``estimator.partial_fit(X_j, y_j, classes=classes)`` on the row blocks
    ``j = 1, ..., m`` of ``X`` and ``y`` in order, computing one block (and its labels) at a
    time, so that the whole of ``X`` is never in memory.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Any halfspaces online estimator (:class:`~halfspaces.Perceptron`,
        :class:`~halfspaces.AveragedPerceptron`, :class:`~halfspaces.PegasosSVC` with
        ``kernel=None``, :class:`~halfspaces.LogisticRegression`, ...). It may be fitted
        already: learning continues from its state.
    X : dask array of shape (n_samples, n_features)
        Blocks are NumPy arrays or SciPy CSR matrices. Chunked along rows only (one chunk for
        all the columns; ``X.rechunk({1: -1})`` otherwise).
    y : dask array of shape (n_samples,)
        The labels, with the same row chunks as ``X``. A NumPy array is chunked like ``X``.
    classes : array-like or None, default=None
        Every label that can appear. When None and the estimator is not fitted yet, it is
        computed with ``da.unique(y).compute()``: one extra pass over ``y`` (not over ``X``).
    n_passes : int, default=1
        Number of passes over the blocks.

    Returns
    -------
    estimator
        The same estimator, fitted.

    Notes
    -----
    ``partial_fit`` visits the rows of a block in order and keeps its state across calls, so a
    pass over the blocks is the online pass over the concatenated rows: for the perceptron,

    .. math::

        w \\leftarrow w + y_t x_t \\quad \\text{whenever } y_t \\langle w, x_t\\rangle \\le 0,
        \\qquad t = 1, \\dots, n,

    in the row order of ``X``, whatever the chunking. (Per-call choices such as the mini-batches
    of :class:`~halfspaces.PegasosSVC` with ``batch_size > 1``, or ``eta0="auto"``, which is
    calibrated on the first block, do depend on the block boundaries.) Blocks are computed with
    dask's current scheduler; the learning itself is sequential.

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> from halfspaces import Perceptron
    >>> from halfspaces.datasets import make_separable
    >>> from halfspaces.dask import fit_blocks, predict
    >>> X, y = make_separable(n_samples=60, margin=0.2, random_state=0)
    >>> dX, dy = da.from_array(X, chunks=(20, -1)), da.from_array(y, chunks=20)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     clf = fit_blocks(Perceptron(), dX, dy, classes=[-1, 1], n_passes=3)
    ...     labels = predict(clf, dX).compute()
    >>> bool((labels == clf.predict(X)).all())
    True
    """
    dask, da = _import_dask()
    owner = "fit_blocks"
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(
            f"{owner}: {_name(estimator)} has no partial_fit, so it cannot learn block by block."
            " Fit it on a sample that fits in memory (e.g. est.fit(X[:n].compute(),"
            " y[:n].compute())), or use an online estimator such as PegasosSVC (kernel=None)"
            " or Perceptron."
        )
    check_scalar(owner, "n_passes", n_passes, kind=numbers.Integral, low=1,
                 hint="Use n_passes=1 for a single pass over the blocks.")
    _check_X(owner, X, da)
    y = _as_dask_y(owner, X, y, da)
    if classes is None:
        if hasattr(estimator, "classes_"):
            classes = estimator.classes_
        else:
            # One extra pass over y (only y): partial_fit needs every label on its first call.
            classes = da.unique(y).compute()
    x_blocks = X.to_delayed().ravel()
    y_blocks = y.to_delayed().ravel()
    for _ in range(n_passes):
        for x_j, y_j in zip(x_blocks, y_blocks, strict=True):
            # Computing X_j and y_j together shares any graph they have in common.
            block_X, block_y = dask.compute(x_j, y_j)
            estimator.partial_fit(block_X, block_y, classes=classes)
    return estimator


def _map(owner: str, estimator: Any, X: Any, method: str, *, kind: str) -> Any:
    """``X.map_blocks(getattr(estimator, method))`` with the output's metadata declared."""
    from sklearn.utils.validation import check_is_fitted

    _, da = _import_dask()
    if not hasattr(estimator, method):
        raise TypeError(f"{owner}: {_name(estimator)} has no {method}.")
    check_is_fitted(estimator)
    _check_X(owner, X, da)
    n_features = getattr(estimator, "n_features_in_", None)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{owner}: X has {X.shape[1]} features, but {_name(estimator)} was fitted with"
            f" {n_features} features; pass data with the same columns."
        )
    n_classes = len(estimator.classes_)
    func = getattr(estimator, method)
    if kind == "labels":
        meta = np.empty((0,), dtype=np.asarray(estimator.classes_).dtype)
    elif kind == "scores" and n_classes == 2:
        meta = np.empty((0,), dtype=np.float64)
    else:  # one column per class: OvR scores or probabilities
        # The meta is given so that dask never calls the estimator on an empty block.
        return X.map_blocks(func, chunks=(X.chunks[0], (n_classes,)),
                            meta=np.empty((0, 0), dtype=np.float64))
    return X.map_blocks(func, drop_axis=1, meta=meta)


def predict(estimator: Any, X: Any) -> Any:
    """Predicted labels of a fitted estimator for each row of a dask array, lazily.

    Parameters
    ----------
    estimator : fitted classifier
    X : dask array of shape (n_samples, n_features)
        Chunked along rows only; dense or CSR blocks.

    Returns
    -------
    dask array of shape (n_samples,)
        ``X.map_blocks(estimator.predict)``, with the dtype of ``classes_`` and the row chunks
        of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from halfspaces import Perceptron
    >>> from halfspaces.dask import predict
    >>> clf = Perceptron().fit(np.array([[1.0], [-1.0]]), np.array(["yes", "no"]))
    >>> predict(clf, da.from_array(np.array([[2.0], [-3.0], [0.5]]), chunks=(2, 1))).compute()
    array(['yes', 'no', 'yes'], dtype='<U3')
    """
    return _map("predict", estimator, X, "predict", kind="labels")


def decision_function(estimator: Any, X: Any) -> Any:
    """Scores of a fitted estimator for each row of a dask array, lazily.

    Parameters
    ----------
    estimator : fitted classifier with ``decision_function``
    X : dask array of shape (n_samples, n_features)
        Chunked along rows only; dense or CSR blocks.

    Returns
    -------
    dask array of shape (n_samples,) or (n_samples, n_classes)
        ``X.map_blocks(estimator.decision_function)``: one score per row for two classes,
        one column per class (one-vs-rest) otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from halfspaces import Perceptron
    >>> from halfspaces.dask import decision_function
    >>> clf = Perceptron(fit_intercept=False).fit(np.array([[1.0], [-1.0]]), np.array([1, -1]))
    >>> decision_function(clf, da.from_array(np.array([[2.0], [-3.0]]), chunks=1)).compute()
    array([ 2., -3.])
    """
    return _map("decision_function", estimator, X, "decision_function", kind="scores")


def predict_proba(estimator: Any, X: Any) -> Any:
    """Class probabilities of a fitted estimator for each row of a dask array, lazily.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` (e.g. LogisticRegression)
    X : dask array of shape (n_samples, n_features)
        Chunked along rows only; dense or CSR blocks.

    Returns
    -------
    dask array of shape (n_samples, n_classes)
        ``X.map_blocks(estimator.predict_proba)``; column ``k`` is ``P(y = classes_[k] | x)``.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from halfspaces import LogisticRegression
    >>> from halfspaces.dask import predict_proba
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> clf = LogisticRegression().fit(X, np.array([0, 1, 0, 1]))
    >>> P = predict_proba(clf, da.from_array(X, chunks=(2, 1)))
    >>> P.shape, bool(np.allclose(P.compute().sum(axis=1), 1.0))
    ((4, 2), True)
    """
    return _map("predict_proba", estimator, X, "predict_proba", kind="proba")
