"""The protocol by which :func:`~halfspaces.datasets.fit_stream` trains a learner over blocks.

A learner that can be trained from a stream returns, from ``stream_fitter(epochs)``, a
:class:`StreamFit`: the object that reproduces, block by block, what its in-memory ``fit``
does on the whole data in the same row order, bit for bit. The reader calls

    begin(summary, source)              once, with what a first pass over the data told
    epochs(summary)                     the rows of each pass (None: all of them)
    start_epoch(n_rows)                 before each pass
    block(X, y, row0[, sample_weight])  on each block of the pass, in file order
    end_epoch(n_rows) -> bool           after each pass: True when the fit stops early
    end(n_rows)                         after the last pass

and, for a checkpoint inside a pass, ``state()`` (what the pass holds outside the
estimator, as JSON values) and ``restore(state)``; ``resume(done)`` after the estimator
became a checkpoint's made after ``done`` passes. The learners define their fitters in
their own modules: the passes until a clean one of the perceptron family and the one pass
of the experts here (:class:`PassesFit`, through the public ``partial_fit``), Pegasos's and
logistic regression's compiled passes beside their estimators.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._base import convergence_warning
from ._labels import check_classes
from .exceptions import NumericalError

__all__ = ["PassesFit", "StreamFit", "StreamRows", "Summary", "shifted"]


def shifted(err: NumericalError, offset: int) -> NumericalError:
    """The same NumericalError with its row numbered in the whole stream."""
    row = err.row + offset
    new = NumericalError.__new__(type(err))
    ValueError.__init__(new, str(err).replace(f"at row {err.row}:", f"at row {row}:", 1))
    new.row = row
    return new


class Summary:
    """What a pass over the data tells before training: ``n_rows``, ``n_features``,
    ``nnz``, ``classes``, and (when asked for) every label and every ``||x_i||^2``."""

    def __init__(self, n_rows, n_features, nnz, classes, labels=None, sq_norms=None):
        self.n_rows, self.n_features, self.nnz = n_rows, n_features, nnz
        self.classes, self.labels, self.sq_norms = classes, labels, sq_norms


class StreamRows:
    """The rows of a stream at given indices, gathered by one pass (Pegasos's calibration
    sample): ``X[sample]`` for a sorted index array."""

    def __init__(self, source, n_rows: int, n_features: int):
        self.source, self.shape = source, (n_rows, n_features)

    def __getitem__(self, sample):
        import scipy.sparse as sp  # only when a calibration sample is drawn

        sample = np.asarray(sample)
        parts, row0 = [], 0
        for X, _ in self.source.blocks():
            lo, hi = np.searchsorted(sample, [row0, row0 + X.shape[0]])
            if hi > lo:
                parts.append(X[sample[lo:hi] - row0])
            row0 += X.shape[0]
        return sp.vstack(parts, format="csr")


class StreamFit:
    """Drives one estimator's fit over a stream; ``batch`` is the row multiple blocks must
    have (but the last)."""

    needs_rows = False  # whether begin() needs every label and ||x_i||^2
    batch = 1
    resumable = False  # whether a fit can go on from a checkpoint (see resume)
    shuffles = False  # whether the estimator's shuffle=True shuffles the stream's passes
    takes_weights = False  # whether block() takes the rows' weights

    def __init__(self, est):
        self.est = est
        self.name = type(est).__name__

    def row_norms(self, X):
        """``||x_i||^2`` of each row of a block (when ``needs_rows``)."""
        raise NotImplementedError

    def epochs(self, summary: Summary | None) -> list[int | None]:
        """The rows of each pass (None: all of them)."""
        return [None] * int(self.est.max_iter)

    def begin(self, summary: Summary, source) -> None:
        """Before the first pass: ``source.blocks()`` reads the data again if needed."""

    def start_epoch(self, n_rows: int) -> None:
        """Before a pass of ``n_rows`` rows."""

    def block(self, X, y, row0: int, sample_weight=None) -> None:
        """Learn the rows ``row0, row0 + 1, ...`` of the pass."""
        raise NotImplementedError

    def end_epoch(self, n_rows: int) -> bool:
        """After a pass of ``n_rows`` rows: whether the fit stops there."""
        return False

    def end(self, n_rows: int) -> None:
        """After the last pass, of ``n_rows`` rows."""

    def resume(self, done: int) -> int:
        """After the estimator's state became a checkpoint's, made after ``done`` passes:
        count on from there; returns ``done``."""
        return done

    def state(self) -> dict:
        """What the pass holds outside the estimator, as JSON values (a checkpoint's)."""
        return {}

    def restore(self, state: dict) -> None:
        """After ``start_epoch``: the pass's ``state`` of a checkpoint inside it."""


class PassesFit(StreamFit):
    """``fit`` of the online shell through ``partial_fit`` on each block: passes until a
    clean one (the perceptron family), or one pass (``one_pass``: the experts)."""

    def __init__(self, est, one_pass: bool, takes_weights: bool):
        super().__init__(est)
        self.one_pass = one_pass
        self.resumable = self.shuffles = not one_pass
        self.takes_weights = takes_weights

    def epochs(self, summary):
        return [None] if self.one_pass else super().epochs(summary)

    def begin(self, summary: Summary, source) -> None:
        est = self.est
        est._validate_params()
        classes = check_classes(self.name, summary.classes, None)
        warm = (not self.one_pass and getattr(est, "warm_start", False)
                and hasattr(est, "classes_") and np.array_equal(classes, est.classes_)
                and summary.n_features in (None, est.n_features_in_))
        if not warm and hasattr(est, "classes_"):
            del est.classes_  # the next partial_fit starts afresh, as fit does
        self.classes = classes
        self.n_iter = est.n_iter_ if warm else 0
        self.history = list(est.mistakes_per_epoch_) if warm else []
        self.before = est.n_mistakes_ if warm else 0

    def block(self, X, y, row0: int, sample_weight=None) -> None:
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        try:
            self.est.partial_fit(X, y, classes=self.classes, **weights)
        except NumericalError as err:
            raise shifted(err, row0) from None

    def resume(self, done: int) -> int:
        est = self.est
        if done:
            self.n_iter, self.history = est.n_iter_, list(est.mistakes_per_epoch_)
            self.before = est.n_mistakes_
        return done

    def state(self) -> dict:  # partial_fit counts its calls in est.n_iter_: not a pass's
        return {"before": int(self.before), "n_iter": int(self.n_iter),
                "history": [int(m) for m in self.history]}

    def restore(self, state: dict) -> None:
        self.before, self.n_iter, self.history = (state["before"], state["n_iter"],
                                                  state["history"])

    def end_epoch(self, n_rows: int) -> bool:
        est = self.est
        mistakes = est.n_mistakes_ - self.before
        self.before = est.n_mistakes_
        self.history.append(int(mistakes))
        self.n_iter += 1
        est.n_iter_, est.mistakes_per_epoch_ = self.n_iter, list(self.history)
        if self.one_pass:
            return True
        est.converged_ = mistakes == 0
        return bool(est.converged_)

    def end(self, n_rows: int) -> None:
        est = self.est
        if self.one_pass or est.converged_:
            return
        warnings.warn(
            f"{self.name}: fit stopped after max_iter={est.max_iter} passes without a pass"
            f" free of mistakes (the last pass made {self.history[-1]} mistakes on {n_rows}"
            " rows), so converged_ is False: the data may not be linearly separable, or its"
            " margin is too small for that many passes. Increase max_iter if it is separable.",
            convergence_warning(), stacklevel=4)
