"""Prediction on a dask array: ``map_blocks`` of the estimator's method, lazily.

Prediction has no state, so it runs on every row block independently (in parallel, on
whatever scheduler computes the result) through ``X.map_blocks``, with the output's
metadata declared so that Dask never calls the estimator on an empty block. Blocks may be
dense NumPy arrays or SciPy CSR matrices (e.g. ``X.map_blocks(sp.csr_matrix)``); ``X`` must
be chunked along rows only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._data import check_dask_X, is_dask_frame

_MISSING = (
    "The Dask backend needs the optional dependency 'dask[array]':"
    ' pip install "halfspaces[dask]".'
)


def import_dask():
    """``(dask, dask.array)``, or an ImportError that says how to install them."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return dask, da


def _name(estimator: Any) -> str:
    return type(estimator).__name__


def _map(owner: str, estimator: Any, X: Any, method: str, *, kind: str) -> Any:
    """``X.map_blocks(getattr(estimator, method))`` with the output's metadata declared."""
    from sklearn.utils.validation import check_is_fitted

    _, da = import_dask()
    if not hasattr(estimator, method):
        raise TypeError(f"{owner}: {_name(estimator)} has no {method}.")
    check_is_fitted(estimator)
    if is_dask_frame(X):
        return _map_frame(owner, estimator, X, method, kind=kind)
    check_dask_X(owner, X, da)
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


def _map_frame(owner: str, estimator: Any, X: Any, method: str, *, kind: str) -> Any:
    """``getattr(estimator, method)`` on each partition of a Dask DataFrame (with its
    column names), as a dask array with unknown row chunks."""
    import dask
    import dask.array as da

    n_features = getattr(estimator, "n_features_in_", None)
    if n_features is not None and len(X.columns) != n_features:
        raise ValueError(f"{owner}: X has {len(X.columns)} columns, but {_name(estimator)} was"
                         f" fitted with {n_features} features; drop the label column and"
                         " pass the feature columns.")
    n_classes = len(estimator.classes_)
    one = kind == "labels" or (kind == "scores" and n_classes == 2)
    dtype = np.asarray(estimator.classes_).dtype if kind == "labels" else np.float64
    shape = (np.nan,) if one else (np.nan, n_classes)
    func = dask.delayed(getattr(estimator, method), pure=True)
    return da.concatenate([da.from_delayed(func(part), shape=shape, dtype=dtype)
                           for part in X.to_delayed()])


def predict(estimator: Any, X: Any) -> Any:
    """Predicted labels of a fitted estimator for each row of a dask array, lazily.

    Parameters
    ----------
    estimator : fitted classifier
    X : dask array of shape (n_samples, n_features), or Dask DataFrame
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

    The parameters are those of :func:`predict`; the estimator must have
    ``decision_function``.

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
    >>> from halfspaces.dask import decision_function, predict
    >>> clf = Perceptron(fit_intercept=False).fit(np.array([[1.0], [-1.0]]), np.array([1, -1]))
    >>> X = da.from_array(np.array([[2.0], [-3.0]]), chunks=1)
    >>> decision_function(clf, X).compute(), predict(clf, X).compute()
    (array([ 2., -3.]), array([ 1, -1]))
    """
    return _map("decision_function", estimator, X, "decision_function", kind="scores")


def predict_proba(estimator: Any, X: Any) -> Any:
    """Class probabilities of a fitted estimator for each row of a dask array, lazily.

    The parameters are those of :func:`predict`; the estimator must have ``predict_proba``
    (e.g. LogisticRegression).

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
