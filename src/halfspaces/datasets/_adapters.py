"""The fitter :func:`~halfspaces.datasets.stream.fit_stream` drives over the blocks of a stream.

Each streamable learner defines it (``stream_fitter``, the protocol of
:mod:`halfspaces._streaming`); the tests of ``tests/datasets/test_fit_stream.py`` check the
result against the in-memory methods.
"""

from __future__ import annotations

from .._streaming import StreamFit, Summary

__all__ = ["Summary", "adapter_for"]


def adapter_for(est, epochs: int | None) -> StreamFit:
    """The :class:`~halfspaces._streaming.StreamFit` of ``est``, or a ValueError naming what
    to do instead."""
    make = getattr(est, "stream_fitter", None)
    fitter = make(epochs) if callable(make) else None
    if fitter is None:
        raise ValueError(f"{type(est).__name__} is not trained by streaming (its fit needs all"
                         " the rows at once: a QP, L-BFGS, an LP or a kernel matrix); load the"
                         " file (load_svmlight, or CachedData.load()) and call fit. Streaming"
                         " learners: Perceptron, AveragedPerceptron, VotedPerceptron,"
                         " PegasosSVC, LogisticRegression (SGD), HalvingClassifier,"
                         " WeightedMajorityClassifier.")
    return fitter
