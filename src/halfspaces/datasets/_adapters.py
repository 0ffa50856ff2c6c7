"""How :func:`~halfspaces.datasets.stream.fit_stream` drives each online learner over blocks.

Each adapter reproduces, block by block, what the learner's in-memory method does on the
whole data in the same row order, bit for bit:

- the perceptron family (``Perceptron``, ``AveragedPerceptron``, ``VotedPerceptron``): ``fit``
  cycles passes until one makes no mistake, or ``max_iter``; a pass is ``partial_fit`` on
  each block in turn (the compiled pass keeps its state between calls, and ``t_`` counts the
  rounds the averages need);
- ``HalvingClassifier``, ``WeightedMajorityClassifier``: ``fit`` is one pass;
- ``PegasosSVC`` (primal, ``sampling="cyclic"``): ``fit``'s epochs (or ``n_iter`` steps) with
  the step counter, the suffix average and ``eta0`` resolved from the whole data;
- ``LogisticRegression``: its online SGD, ``partial_fit`` on the whole data once per epoch
  (its ``fit`` is L-BFGS on all the data, which a stream cannot do).

The perceptron and experts adapters use the public ``partial_fit``; they then set the
attributes that ``fit`` sets (``n_iter_``, ``mistakes_per_epoch_``, ``converged_``) and word
its warning. The Pegasos and logistic adapters call the estimator's compiled pass on each
block, because their ``_pass`` ends with work that a pass over the whole data does once
(resynchronising ``||w||^2``, folding the scale ``a`` of ``w = a v``, a ``lam`` from the
call's row count); they do that work at the end of each pass, as ``_pass`` does. The tests
of ``tests/datasets/test_fit_stream.py`` check the result against the in-memory methods.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import scipy.sparse as sp

from .._base import check_random_state, convergence_warning
from .._labels import check_classes, encode_pm
from .._primitives import as_rows, check_pass
from .._validation import check_row_norms, validate_X
from ..exceptions import NumericalError


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


class _Adapter:
    """Drives one estimator; ``batch`` is the row multiple blocks must have (but the last)."""

    needs_rows = False  # whether begin() needs every label and ||x_i||^2
    batch = 1
    resumable = False  # whether a fit can go on from a checkpoint (see resume)
    shuffles = False  # whether the estimator's shuffle=True shuffles the stream's passes
    takes_weights = False  # whether block() takes the rows' weights

    def __init__(self, est):
        self.est = est
        self.name = type(est).__name__

    def epochs(self, summary: Summary) -> list[int | None]:
        """The rows of each pass (None: all of them)."""
        return [None] * int(self.est.max_iter)

    def start_epoch(self, n_rows: int) -> None:
        """Before a pass of ``n_rows`` rows."""

    def state(self) -> dict:
        """What the pass holds outside the estimator, as JSON values (a checkpoint's)."""
        return {}

    def restore(self, state: dict) -> None:
        """After ``start_epoch``: the pass's ``state`` of a checkpoint inside it."""


class PerceptronAdapter(_Adapter):
    """``fit`` of the online shell: passes until a clean one (perceptron family), or one
    pass (experts)."""

    def __init__(self, est, one_pass: bool):
        super().__init__(est)
        self.one_pass = one_pass
        self.resumable = self.shuffles = not one_pass
        self.takes_weights = bool(getattr(est, "_takes_sample_weight", False))

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
        """After the estimator's state became a checkpoint's, made after ``done`` passes:
        count on from there; returns ``done``."""
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
        """After the last pass, of ``n_rows`` rows."""
        est = self.est
        if self.one_pass or est.converged_:
            return
        warnings.warn(
            f"{self.name}: fit stopped after max_iter={est.max_iter} passes without a pass"
            f" free of mistakes (the last pass made {self.history[-1]} mistakes on {n_rows}"
            " rows), so converged_ is False: the data may not be linearly separable, or its"
            " margin is too small for that many passes. Increase max_iter if it is separable.",
            convergence_warning(), stacklevel=4)


class _Rows:
    """The rows of a stream at given indices, gathered by one pass (Pegasos's calibration
    sample): ``X[sample]`` for a sorted index array."""

    def __init__(self, source, n_rows: int, n_features: int):
        self.source, self.shape = source, (n_rows, n_features)

    def __getitem__(self, sample):
        sample = np.asarray(sample)
        parts, row0 = [], 0
        for X, _ in self.source.blocks():
            lo, hi = np.searchsorted(sample, [row0, row0 + X.shape[0]])
            if hi > lo:
                parts.append(X[sample[lo:hi] - row0])
            row0 += X.shape[0]
        return sp.vstack(parts, format="csr")


class PegasosAdapter(_Adapter):
    """``PegasosSVC.fit`` with ``sampling="cyclic"``, block by block: the estimator's compiled
    pass (``run_epoch``) on each block, its state carried from block to block, and at the end
    of a pass what ``PegasosSVC._pass`` does there (``||w||^2`` resynchronised, the state
    checked)."""

    needs_rows = True
    resumable = True

    def row_norms(self, X):
        return self.pb.row_stats(X)[0]

    def __init__(self, est):
        super().__init__(est)
        from ..linear import _pegasos_base, pegasos

        self.pg, self.pb = pegasos, _pegasos_base
        est._validate_params()
        problems = [("sampling", est.sampling != "cyclic", "only sampling='cyclic' visits the"
                     " rows in file order; 'permutation' and 'uniform' need random access"),
                    ("tol", est.tol is not None, "the stopping rule needs the objective over"
                     " all the data after each epoch; use tol=None"),
                    ("record_objective", bool(est.record_objective), "the objective needs all"
                     " the data after each epoch; use record_objective=False")]
        for name, bad, why in problems:
            if bad:
                raise ValueError(f"PegasosSVC: cannot be trained from a stream with"
                                 f" {name}={getattr(est, name)!r}: {why}, or load the whole"
                                 " file and call fit.")
        self.batch = int(est.batch_size)
        if est.n_iter is not None and self.batch > 1:
            raise ValueError("PegasosSVC: with n_iter and batch_size > 1, fit's mini-batches"
                             " run across the end of an epoch; a stream does not. Use"
                             " max_iter (epochs) with batch_size > 1.")

    def epochs(self, summary):
        est, n = self.est, summary.n_rows
        if est.n_iter is None:
            return [None] * int(est.max_iter)
        T = int(est.n_iter)  # steps of one row each, in passes of n rows
        return [min(n, T - start) for start in range(0, T, n)]

    def begin(self, summary: Summary, source) -> None:
        est = self.est
        n, d = summary.n_rows, summary.n_features
        classes = check_classes("PegasosSVC", summary.classes, None)
        warm = bool(est.warm_start) and hasattr(est, "classes_") and hasattr(est, "_v")
        if not (warm and np.array_equal(classes, est.classes_) and est._v.shape[1] == d):
            est._start(sp.csr_matrix((0, d)), classes)
        est.n_features_in_ = d
        y_pm = encode_pm(summary.labels, est.classes_)
        rng = check_random_state(est.random_state)
        est._start_suffix(n)
        stats = (summary.sq_norms, summary.nnz / max(n * d, 1))
        est._ensure_schedule(_Rows(source, n, d), y_pm, stats, rng)

    def start_epoch(self, n_rows: int) -> None:
        self.states = [self.est._problem(k)[1] for k in range(self.est._v.shape[0])]
        self.mistakes = 0

    def resume(self, done: int) -> int:
        return done

    def state(self) -> dict:
        return {"states": [[int(st.t), *map(float, st[1:])] for st in self.states],
                "mistakes": int(self.mistakes)}

    def restore(self, state: dict) -> None:
        self.states = [self.pb.PegasosState(*st) for st in state["states"]]
        self.mistakes = state["mistakes"]

    def block(self, X, y, row0: int) -> None:
        est = self.est
        X = validate_X(est, X, reset=False)
        y_pm = encode_pm(y, est.classes_)
        sq_norms = self.row_norms(X)
        order = np.arange(X.shape[0], dtype=np.int64).view(np.uint64)
        for k, y_k in enumerate(est._y_rows(y_pm)):
            w = est._problem(k)[0]
            self.states[k], result = self.pg.run_epoch(X, y_k, order, est._pass_params, w,
                                                       self.states[k], np.empty(0), sq_norms)
            try:
                self.mistakes += check_pass("PegasosSVC", result, "the score <w, x_i> + b")
            except NumericalError as err:
                raise shifted(err, row0) from None

    def end_epoch(self, n_rows: int) -> bool:
        est, dot = self.est, self.pg.dot_dense
        for k, st in enumerate(self.states):  # what PegasosSVC._pass does at the end of a pass
            v, u = est._v[k], est._u[k]
            with np.errstate(over="ignore"):
                est._scalars[k] = st._replace(sqnorm=st.a * st.a * dot(v, v))[1:]
            if not (np.isfinite(est._scalars[k]).all() and np.isfinite(dot(u, u))):
                raise NumericalError("PegasosSVC", n_rows - 1,
                                     "the weights at the end of the pass (last row)")
        est.t_ += -(-n_rows // self.batch)
        est.mistakes_per_epoch_.append(self.mistakes)
        est.n_mistakes_ += self.mistakes
        est.n_iter_ += 1
        return False

    def end(self, n_rows: int) -> None:
        self.est._sync()


class LogisticAdapter(_Adapter):
    """``LogisticRegression.partial_fit`` on the whole data, once per epoch: the estimator's
    compiled SGD pass on each block, with its step counter, ``b`` and the scale ``a`` of
    ``w = a v`` carried from block to block, and at the end of a pass what
    ``LogisticRegression._pass`` does there (``a`` folded into ``w``, the state checked)."""

    needs_rows = True

    def row_norms(self, X):
        return check_row_norms(self.name, X)

    def __init__(self, est, epochs: int):
        super().__init__(est)
        from ..linear import logistic

        self.lg = logistic
        self.n_epochs = epochs

    def epochs(self, summary):
        return [None] * self.n_epochs

    def begin(self, summary: Summary, source) -> None:
        est = self.est
        d = summary.n_features
        if not hasattr(est, "classes_"):
            est._validate_params()
            est.n_features_in_ = d
            est._start(sp.csr_matrix((0, d)), check_classes(self.name, summary.classes, None))
        if not hasattr(est, "eta0_"):
            if isinstance(est.eta0, str):  # 1 / mean ||x||^2 of the data of the first call
                mean_sq = float(np.mean(summary.sq_norms))
                est.eta0_ = 1.0 / mean_sq if mean_sq > 0 else 1.0
            else:
                est.eta0_ = float(est.eta0)

    def start_epoch(self, n_rows: int) -> None:
        est = self.est
        # the C form's lam = 1/(C (t + n)) of a partial_fit call on the whole data
        self.params = self.lg.SGDParams(est._lam(est.t_ + n_rows), est.eta0_,
                                        bool(est.fit_intercept))
        self.mistakes = 0
        self.states = [(float(b), 1.0) for b in est.intercept_]  # (b, a) of each problem
        self.t0 = est.t_

    def block(self, X, y, row0: int) -> None:
        est = self.est
        X = validate_X(est, X, reset=False)
        y_pm = encode_pm(y, est.classes_)
        order = np.arange(X.shape[0])
        scores = np.empty(X.shape[0])
        for k, y_k in enumerate(est._y_rows(y_pm)):
            result, b, a = self.lg._logistic_sgd_pass(as_rows(X), y_k, est.coef_[k], order,
                                                      (self.t0 + row0, *self.states[k]),
                                                      self.params, scores, None)
            try:
                self.mistakes += check_pass(self.name, result, "the score <w, x_i> + b")
            except NumericalError as err:
                raise shifted(err, row0) from None
            self.states[k] = (b, a)

    def end_epoch(self, n_rows: int) -> bool:
        est = self.est
        for k, (b, a) in enumerate(self.states):  # what LogisticRegression._pass does at its end
            w = est.coef_[k]
            w *= a
            if not (np.isfinite(b) and np.isfinite(w @ w)):
                raise NumericalError(self.name, n_rows - 1,
                                     "the weights at the end of the pass (last row)")
            est.intercept_[k] = b
        est.t_ += n_rows
        est.n_mistakes_ += self.mistakes
        est.n_iter_ += 1
        return False

    def end(self, n_rows: int) -> None:
        return None


def _is_a(est, module: str, name: str) -> bool:
    """``isinstance(est, halfspaces.<module>.<name>)``, without importing a module that is
    not yet (then ``est`` cannot be one): a perceptron's training skips importing
    logistic regression (and SciPy's special functions) and the others."""
    loaded = sys.modules.get(f"halfspaces.{module}")
    return loaded is not None and isinstance(est, getattr(loaded, name))


def adapter_for(est, epochs: int | None):
    """The adapter of ``est``, or a ValueError naming what to do instead."""
    from ..linear.perceptron import Perceptron

    if _is_a(est, "linear.pegasos", "PegasosSVC"):
        return PegasosAdapter(est)
    if _is_a(est, "linear.logistic", "LogisticRegression"):
        return LogisticAdapter(est, 1 if epochs is None else epochs)
    if _is_a(est, "experts._hypotheses", "ExpertsClassifier"):
        return PerceptronAdapter(est, one_pass=True)
    if isinstance(est, Perceptron) and type(est)._batch_fit is Perceptron._batch_fit:
        return PerceptronAdapter(est, one_pass=False)
    raise ValueError(f"{type(est).__name__} is not trained by streaming (its fit needs all the"
                     " rows at once: a QP, L-BFGS, an LP or a kernel matrix); load the file"
                     " (load_svmlight, or CachedData.load()) and call fit. Streaming learners:"
                     " Perceptron, AveragedPerceptron, VotedPerceptron, PegasosSVC,"
                     " LogisticRegression (SGD), HalvingClassifier,"
                     " WeightedMajorityClassifier.")
