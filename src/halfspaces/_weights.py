"""Example weights: ``sample_weight`` checked, and ``class_weight`` folded into it.

A weight ``s_i >= 0`` multiplies example ``i``'s term in the objective (``C s_i`` in the SVM,
``s_i loss_i`` in logistic regression). In the ``lam`` form ``1/n sum_i loss_i`` becomes
``1/S sum_i s_i loss_i`` with ``S = sum_i s_i``, so that an integer weight ``k`` is the row
repeated ``k`` times and a weight 0 is the row removed, exactly, in either form.

``class_weight`` has scikit-learn's meaning: ``None`` (every class 1), ``"balanced"``
(class ``c`` weighs ``S / (n_classes * S_c)``, ``S_c`` the sum of ``sample_weight`` over the
class, its count without weights: ``n / (n_classes * n_c)``) or a dict ``{label: weight}``
(classes not named weigh 1); the example's weight is its class weight times its
``sample_weight``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._specs import NONE, Choice, ClassWeights, OneOf

__all__ = ["CLASS_WEIGHT", "check_every_class_weighed", "example_weights"]

#: ``class_weight`` in a ``_parameter_constraints`` table.
CLASS_WEIGHT = OneOf(NONE, Choice("balanced"), ClassWeights()).about(
    "the weight of each class", "Pass None, 'balanced' or e.g. class_weight={0: 1.0, 1: 5.0}.")


def example_weights(owner: str, sample_weight: ArrayLike | None, n: int,
                    y: NDArray | None = None, class_weight=None, classes: NDArray | None = None
                    ) -> NDArray[np.float64] | None:
    """The weight of each of ``n`` examples, or None when every weight is 1 (the unweighted
    path).

    ``sample_weight``: None or ``n`` finite numbers ``>= 0`` with a positive sum; ``y`` the
    labels as given (``classes`` their sorted distinct values), needed with a
    ``class_weight``. Messages name ``owner`` (e.g. ``"SVC.fit"``) and the first bad entry.
    """
    s = None
    if sample_weight is not None:
        s = np.asarray(sample_weight)
        if s.ndim == 0 or s.dtype.kind not in "biuf":
            raise ValueError(f"{owner}: 'sample_weight' must be None or one number >= 0 per"
                             f" example ({n}); got {s!r:.80}.")
        s = np.array(s, dtype=np.float64).ravel() if s.ndim == 1 else s
        if s.ndim != 1 or s.shape[0] != n:
            raise ValueError(f"{owner}: 'sample_weight' must have one entry per example of X"
                             f" ({n}); got shape {np.shape(sample_weight)}.")
        bad = np.flatnonzero(~(np.isfinite(s) & (s >= 0)))
        if bad.size:
            raise ValueError(f"{owner}: 'sample_weight' must be finite and >= 0; got"
                             f" {float(s[bad[0]])!r} at example {bad[0]}. A weight of 0"
                             " leaves the example out.")
    if class_weight is not None:
        factors = _class_factors(owner, class_weight, y, classes, s)
        s = factors if s is None else s * factors
    if s is None:
        return None
    what = "sample_weight" if class_weight is None else "sample_weight times class_weight"
    with np.errstate(over="ignore"):
        total = s.sum()
    if not total > 0:
        raise ValueError(f"{owner}: every example weight ({what}) is zero, so there is"
                         " nothing to learn from; give some example a positive weight.")
    if not np.isfinite(total):  # S = inf: the lam form's 1/S and the QP's C s_i break down
        raise ValueError(f"{owner}: the example weights ({what}) sum past the largest"
                         f" float64 ({np.finfo(np.float64).max:.3g}); divide them by a common"
                         " factor (their largest value, for example).")
    return s


def check_every_class_weighed(owner: str, s: NDArray | None, y: NDArray, classes: NDArray,
                              class_weight=None) -> None:
    """Refuse a fit where some class of ``classes`` has no example of positive weight.

    Such a class is not in the data the weights leave: a model fitted anyway never predicts
    it (a constant predictor with two classes), with nothing to say so. ``y`` holds the
    labels as given, ``classes`` their sorted distinct values, ``s`` the example weights
    (None: all 1, nothing to check).
    """
    if s is None:
        return
    totals = np.bincount(np.searchsorted(classes, y), weights=s, minlength=classes.size)
    empty = np.flatnonzero(~(totals > 0))
    if empty.size:
        label = classes[empty[0]]
        label = label.item() if hasattr(label, "item") else label
        what = "sample_weight" if class_weight is None else "sample_weight times class_weight"
        raise ValueError(
            f"{owner}: class {label!r} has no example with a positive weight ({what}), so"
            " there is nothing to learn it from and the model could never predict it; give"
            " it some weight, or leave its examples out of y.")


def _class_factors(owner: str, class_weight, y: NDArray, classes: NDArray,
                   s: NDArray | None) -> NDArray:
    """Each example's class weight."""
    index = np.searchsorted(classes, y)
    if isinstance(class_weight, str):  # "balanced": S / (n_classes * S_c)
        counts = np.bincount(index, weights=s, minlength=classes.size)
        per_class = counts.sum() / (classes.size * np.where(counts > 0, counts, 1.0))
        return per_class[index]
    per_class = np.ones(classes.size)
    for label, weight in class_weight.items():
        hit = np.flatnonzero(classes == label)
        if hit.size == 0:
            raise ValueError(f"{owner}: class_weight names the label {label!r}, which is not"
                             f" among the classes {classes.tolist()}; use the labels of y.")
        per_class[hit[0]] = float(weight)
    return per_class[index]
