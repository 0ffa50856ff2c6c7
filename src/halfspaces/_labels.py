"""Labels: any two (or more) user labels <-> the {-1, +1} that every kernel sees.

``classes_[0] -> -1`` and ``classes_[1] -> +1``; with more than two classes, one-vs-rest:
column ``k`` is ``+1`` where ``y == classes_[k]`` and ``-1`` elsewhere.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def check_classes(owner: str, y: NDArray, classes: ArrayLike | None) -> NDArray:
    """Return the sorted array of classes: ``classes`` if given, else ``unique(y)``."""
    if not is_discrete(y):
        # scikit-learn's check (its message for continuous or multi-output targets), only
        # for labels that are not plainly classes: a stream's numeric labels never import it
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(y)
    if classes is None:
        classes = unique_labels(y)
    else:
        classes = np.unique(np.asarray(classes))
        unseen = np.setdiff1d(np.unique(y), classes)
        if unseen.size:
            raise ValueError(
                f"{owner}: y contains labels {unseen.tolist()} that are not in classes="
                f"{classes.tolist()}. Pass every label that can appear, e.g."
                " classes=np.unique(y_all)."
            )
    if classes.size < 2:
        raise ValueError(
            f"{owner}: needs samples of at least 2 classes in the data; got only one class,"
            f" {classes.tolist()}. A classifier cannot be learned from one label."
        )
    return classes


def unique_labels(y: NDArray) -> NDArray:
    """``np.unique(y)``; for numbers with at most two distinct values (the binary case) in
    four linear passes instead of a sort."""
    if y.size and y.dtype.kind in "biuf":
        lo, hi = y.min(), y.max()
        if lo == hi:
            return y[:1].copy()
        if np.count_nonzero(y == lo) + np.count_nonzero(y == hi) == y.size:
            return np.array([lo, hi], dtype=y.dtype)
    return np.unique(y)


def is_discrete(y) -> bool:
    """Whether scikit-learn's ``type_of_target(y)`` is surely ``"binary"`` or
    ``"multiclass"``: a non-empty 1-D array of booleans or integers, or of floats that
    are whole numbers (below 2**62 in size, so that the integer cast it tests them with is
    exact)."""
    if not (isinstance(y, np.ndarray) and y.ndim == 1 and y.size and y.dtype.kind in "biuf"):
        return False
    if y.dtype.kind != "f":
        return True
    return bool((np.abs(y) < 2.0**62).all() and (y == np.trunc(y)).all())


def encode_pm(y: NDArray, classes: NDArray) -> NDArray[np.float64]:
    """Encode labels as {-1, +1}.

    Returns float64 ``(n,)`` for two classes and ``(n_classes, n)`` for one-vs-rest, one
    contiguous row per binary problem.
    """
    if classes.size == 2:
        return np.where(y == classes[1], 1.0, -1.0)
    return np.where(y[None, :] == classes[:, None], 1.0, -1.0)


def format_label(label) -> str:
    """A label as data files write it: ``1`` rather than ``1.0``.

    Examples
    --------
    >>> format_label(np.float64(-1.0)), format_label(0.5), format_label("spam")
    ('-1', '0.5', 'spam')
    """
    if isinstance(label, (float, np.floating)) and float(label).is_integer():
        return str(int(label))
    return str(label)


def decode_scores(scores: NDArray, classes: NDArray) -> NDArray:
    """Map scores to labels: positive class when ``score >= 0`` (binary), argmax (OvR)."""
    if scores.ndim == 1:
        return classes[(scores >= 0.0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]
