"""The predictions of a saved linear model with NumPy and SciPy alone, the estimator's bits.

``halfspaces predict`` with a linear model (:func:`halfspaces.persistence.read_linear`) needs
neither scikit-learn nor numba, whose imports cost more than the prediction of a small file.
The scores are summed in the order of the estimator's own ``decision_function``, so they are
the same floats, and the labels are decoded by the same rule
(:func:`halfspaces._labels.decode_scores`: ``classes_[1]`` when ``score >= 0``, a tie going
to the positive class; the argmax for one-vs-rest):

- the perceptron family scores with the compiled ``row_dot``
  (:func:`halfspaces._primitives.dot_csr`): 4 partial sums per CSR row, entry ``p`` of a row
  in sum ``p mod 4`` and the last ``nnz mod 4`` entries in sum 0, each summed in row order,
  then ``(s0 + s1) + (s2 + s3) + b``. ``np.bincount`` adds its weights in input order,
  which gives each partial sum exactly;
- the other linear models score with ``X @ coef_.T + intercept_`` (SciPy), as they do.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ._labels import decode_scores

# Whose decision_function is the compiled linear_scores (the others: X @ coef_.T + b).
_ROW_DOT = ("Perceptron", "AveragedPerceptron")


def row_dot_scores(X: sp.csr_matrix, coef: NDArray, intercept: NDArray) -> NDArray:
    """``(n, n_models)`` scores ``<coef[k], x_i> + intercept[k]`` of canonical CSR ``X``,
    summed as the compiled ``row_dot`` sums them (4 partial sums, see the module)."""
    counts = np.diff(X.indptr)
    row = np.repeat(np.arange(counts.size), counts)
    position = np.arange(X.indptr[-1]) - X.indptr[:-1][row]
    in_main = position < counts[row] - counts[row] % 4  # the rest goes to partial sum 0
    slot = 4 * row + np.where(in_main, position % 4, 0)
    out = np.empty((counts.size, coef.shape[0]), dtype=np.float64)
    for k in range(coef.shape[0]):
        s = np.bincount(slot, weights=coef[k][X.indices] * X.data,
                        minlength=4 * counts.size).reshape(-1, 4)
        out[:, k] = ((s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])) + intercept[k]
    return out


def predict_linear(model, X: sp.csr_matrix) -> NDArray | None:
    """The labels ``model`` (a :class:`~halfspaces.persistence.LinearModel`) predicts for
    ``X``, a canonical float64 CSR matrix of its ``n_features`` columns without inf or nan.

    None where the estimator would raise instead (a score of the perceptron family that
    overflows to inf or nan): its ``predict`` says so.
    """
    if model.estimator in _ROW_DOT:
        scores = row_dot_scores(X, model.coef, model.intercept)
        if not np.isfinite(scores).all():
            return None
    else:
        scores = np.asarray(X @ model.coef.T) + model.intercept
    return decode_scores(scores.ravel() if scores.shape[1] == 1 else scores, model.classes)
