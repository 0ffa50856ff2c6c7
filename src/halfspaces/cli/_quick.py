"""``predict`` of a small svmlight file with a linear model, without scikit-learn or numba.

Importing them costs several times more than predicting a few thousand rows, so when the
model is linear (:func:`halfspaces.persistence.read_linear`: the checked arrays, no
estimator built) and the file is small and plain
(:func:`halfspaces.datasets.small_svmlight.read_small_svmlight`), the labels come from
NumPy and SciPy alone (:func:`halfspaces._predict_linear.predict_linear`): the labels, and
the note on features beyond the model's, that the estimator's ``predict`` gives. Anything
else (another model, a larger or compressed file, standard input, a file the small reader
does not take, a score that overflows) returns None and ``predict`` goes the usual way,
which also gives every error message: there is one set of them.
"""

from __future__ import annotations

import os

from ._io import STDIN, fit_columns, note_ignored


def predict(source, model_path: str):
    """The labels of the model file ``model_path`` for the data file of ``source`` (a
    :class:`~._plan.Source`), or None (the caller then predicts as usual)."""
    from ..datasets import detect_format

    if source.path == STDIN or not os.path.isfile(source.path) \
            or not os.path.isfile(model_path) \
            or detect_format(source.path, source.format, default="") not in ("svmlight", "") \
            or any(getattr(source, key) is not None
                   for key in ("label_column", "weight_column", "encoding", "delimiter")):
        return None
    from ..datasets.small_svmlight import SMALL_BYTES, read_small_svmlight

    if os.path.getsize(source.path) > SMALL_BYTES:
        return None
    from .._predict_linear import predict_linear
    from ..persistence import read_linear

    model = read_linear(model_path)
    recorded_format = None if model is None else model.metadata.get("format", "svmlight")
    if model is None or detect_format(source.path, source.format,
                                      default=recorded_format) != "svmlight":
        return None  # a file named as no format is read in the model's
    recorded = model.metadata.get("zero_based")
    zero_based = source.zero_based if source.zero_based is not None else recorded
    if not isinstance(zero_based, bool):
        return None
    read = read_small_svmlight(source.path, zero_based=zero_based, n_features=source.n_features)
    if read is None:
        return None
    X, used = fit_columns(read[0], model.n_features)  # unseen features: zero weight
    predictions = predict_linear(model, X)
    if predictions is not None:
        note_ignored(source.path, used.size, model.n_features)
    return predictions
