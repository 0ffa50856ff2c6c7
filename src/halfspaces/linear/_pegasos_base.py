"""What PegasosSVC and KernelPegasosSVC share: the records of a pass (its state and
hyper-parameters), the step-size schedules, and the options of the estimators (checks,
sampling, the epochs of ``fit``). The update rule itself is in :mod:`halfspaces.linear.pegasos`.

Each schedule is a small record whose type selects its compiled formula: a pass calls
``step_size(p.rate, t)``, which numba resolves when it compiles the pass for that type (one
compiled pass per schedule, no test of a code at each step).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import config as numba_config
from numba import njit
from numba.extending import overload
from numpy.typing import NDArray

from .._params import PEGASOS_PARAMS  # noqa: F401 - the kernel learner's import
from .._primitives import as_rows, row_sqnorms, shuffle
from .._validation import param_error

# -- state, hyper-parameters and step sizes ----------------------------------------------------


class PegasosParams(NamedTuple):
    """The hyper-parameters of a pass."""

    lam: float          # lambda
    rate: tuple         # eta_t: a PaperRate, NotesRate, ConstantRate or OffsetRate
    b_rate: float       # rho, the factor of b's step (0: no offset)
    project: bool       # project w onto the ball of radius 1/sqrt(lam)
    avg_start: float    # average the iterates of the steps t > avg_start (inf: none)
    weighted: bool      # average with weights c_t = t - avg_start instead of 1
    batch_size: int     # k


class PegasosState(NamedTuple):
    """One binary problem between steps: w = a v, and the averaging sums."""

    t: int              # steps taken
    a: float
    sqnorm: float       # ||w||^2, updated with each step
    b: float
    S: float            # sum_s c_s a_s since the last renormalisation
    bsum: float         # sum_s c_s b_s
    csum: float         # sum_s c_s


class PegasosVectors(NamedTuple):
    """The vectors of one binary problem: w = a v, sum_s c_s w_s = S v - u (u empty without
    averaging). float64[d] in the primal, float64[n] (coefficients of phi(x_j)) with a kernel."""

    v: NDArray[np.float64]
    u: NDArray[np.float64]


def fresh_state(t: int = 0) -> PegasosState:
    """w = 0 (a = 1, v = 0), b = 0, empty averaging sums, ``t`` steps taken."""
    return PegasosState(t, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)


class PaperRate(NamedTuple):
    """``learning_rate="pegasos"``: eta_t = 1/(lam t)."""

    lam: float


class NotesRate(NamedTuple):
    """``learning_rate="notes"``: eta_t = 1/t."""


class ConstantRate(NamedTuple):
    """``learning_rate="constant"``: eta_t = eta0."""

    eta0: float


class OffsetRate(NamedTuple):
    """``learning_rate="offset"``: eta_t = 1/(lam (t + t0))."""

    lam: float
    t0: float


@njit(cache=True)
def _paper_step(rate, t):
    return 1.0 / (rate.lam * t)


@njit(cache=True)
def _notes_step(rate, t):
    return 1.0 / t


@njit(cache=True)
def _constant_step(rate, t):
    return rate.eta0


@njit(cache=True)
def _offset_step(rate, t):
    return 1.0 / (rate.lam * (t + rate.t0))


_STEPS = {PaperRate: _paper_step, NotesRate: _notes_step, ConstantRate: _constant_step,
          OffsetRate: _offset_step}


def step_size(rate, t):
    """eta_t of the schedule ``rate``; compiled passes resolve it by the type of ``rate``."""
    return _STEPS[type(rate)](rate, t)


if not numba_config.DISABLE_JIT:

    @overload(step_size, jit_options={"cache": True})
    def _step_size(rate, t):
        step = _STEPS.get(getattr(rate, "instance_class", None))
        return None if step is None else (lambda rate, t: step(rate, t))


# -- what the estimators compute around the passes --------------------------------------------

_SUFFIX_FRACTION = 0.1  # average="suffix" averages the last tenth of the steps of a fit
_MIN_INTERCEPT_DECAY = 0.03  # scikit-learn's SGD uses 0.01 on all sparse input; see the class


def intercept_decay(setting, density: float) -> float:
    """The factor of b's step: ``setting``, or for "auto" the fraction ``density`` of
    non-zero entries of X, at least 0.03 (see PegasosSVC's ``intercept_decay``)."""
    if isinstance(setting, str):
        return max(density, _MIN_INTERCEPT_DECAY)
    return float(setting)


def suffix_skip(T: int) -> int:
    """Steps of a fit of T steps before the suffix average starts: T - ceil(T / 10)."""
    return T - math.ceil(T * _SUFFIX_FRACTION)


def row_stats(X) -> tuple[NDArray[np.float64], float]:
    """(||x_i||^2 of each row, fraction of non-zero entries) of X in one O(nnz) pass."""
    n, d = X.shape
    sq_norms = np.empty(n)
    if sp.issparse(X):
        if not X.has_canonical_format:  # duplicate entries add up before squaring
            X = X.copy()
            X.sum_duplicates()
        row_sqnorms(as_rows(X), sq_norms)
        return sq_norms, X.nnz / max(n * d, 1)
    row_sqnorms(X, sq_norms)
    return sq_norms, np.count_nonzero(X) / max(n * d, 1)


def predictor(w: PegasosVectors, st: PegasosState, averaging: bool) -> tuple[NDArray, float]:
    """The model (w, b) of a state: the average of the iterates once it has started, else the
    last iterate (in the kernel form, w holds the coefficients of phi(x_j))."""
    if averaging and st.csum > 0:
        return (st.S * w.v - w.u) / st.csum, st.bsum / st.csum
    return st.a * w.v, st.b


class PegasosOptions:
    """The options PegasosSVC and KernelPegasosSVC share: the compiled hyper-parameters,
    the sampling of the examples and the epochs of ``fit``."""

    def _params(self, eta0: float) -> PegasosParams:
        """The passes' hyper-parameters for the first step ``eta0`` (resolved)."""
        lam = float(self.lam)
        # The schedules divide by lam (eta_1 = 1/lam) and by lam eta0 (t0): a lam so small
        # that these overflow (5e-324) would give inf steps, or zero ones (t0 = inf).
        if not (lam * eta0 > 0.0 and 1.0 / lam < np.inf and 1.0 / (lam * eta0) < np.inf):
            raise param_error(type(self).__name__, "lam", "large enough that the steps 1/lam"
                              f" and t0 = 1/(lam eta0) are finite floats (eta0_ = {eta0:g})",
                              self.lam, "Use lam >= 1e-12 (C = 1/(lam n)); weaker"
                              " regularization than that is none at all in float64.")
        t0 = 1.0 / (lam * eta0) if isinstance(self.t0, str) else float(self.t0)
        rate = {"pegasos": PaperRate(lam), "notes": NotesRate(), "constant": ConstantRate(eta0),
                "offset": OffsetRate(lam, t0)}[self.learning_rate]
        weighted = isinstance(self.average, str) and self.average == "weighted"
        if isinstance(self.average, (bool, np.bool_)):
            avg_start = 0.0 if self.average else np.inf
        elif weighted:
            avg_start = 0.0
        elif isinstance(self.average, str):  # "suffix": set by fit (0 before any fit)
            avg_start = getattr(self, "_suffix_start", 0.0)
        else:
            avg_start = float(self.average)
        b_rate = getattr(self, "intercept_decay_", 1.0) if self.fit_intercept else 0.0
        return PegasosParams(lam, rate, b_rate, bool(self.projection), avg_start, weighted,
                             int(self.batch_size))

    @property
    def _averaging(self) -> bool:
        return not (isinstance(self.average, (bool, np.bool_)) and not self.average)

    def _total_steps(self, n: int) -> int:
        """Steps ``T`` of one ``fit`` call on n examples."""
        if self.n_iter is not None:
            return int(self.n_iter)
        return int(self.max_iter) * -(-n // int(self.batch_size))

    def _orders(self, rng, n: int):
        """The index sequences of ``fit``, one array per pass (about one epoch each).

        Permutations reshuffle one buffer in place (each yielded array is used before the
        next is drawn). With ``n_iter`` the epochs (permutations, uniform draws or the data
        order) are concatenated into one stream of ``n_iter * batch_size`` indices, cut into
        passes of a whole number of batches.
        """
        rng_state = np.array([rng.randint(0, 2**63 - 1, dtype=np.int64)
                              if self.sampling == "permutation" else 0], dtype=np.uint64)
        if self.n_iter is None:
            order = np.arange(n, dtype=np.int64)
            for _ in range(self.max_iter):
                yield self._draw(rng, rng_state, order)
            return
        k = int(self.batch_size)
        remaining = int(self.n_iter) * k
        chunk = -(-n // k) * k
        buffer = np.empty(0, dtype=np.int64)
        while remaining > 0:
            while buffer.size < min(chunk, remaining):
                epoch = self._draw(rng, rng_state, np.arange(n, dtype=np.int64))
                buffer = np.concatenate([buffer, epoch])
            size = min(chunk, remaining)
            yield buffer[:size]
            buffer = buffer[size:]
            remaining -= size

    def _draw(self, rng, rng_state: NDArray[np.uint64], order: NDArray[np.int64]):
        """One epoch of indices: ``order`` shuffled in place ("permutation"), i.i.d. uniform
        draws ("uniform") or ``order`` as it is ("cyclic", given as ``arange(n)``)."""
        if self.sampling == "uniform":
            return rng.randint(0, order.size, size=order.size).astype(np.int64)
        if self.sampling == "permutation":
            shuffle(order, rng_state)
        return order

    def _run_epochs(self, orders, run_pass, objectives, held_out=None) -> None:
        """``fit``'s loop: ``run_pass(order) -> mistakes`` for each order; with
        ``record_objective`` or ``tol``, ``objectives() -> J`` per problem after each, and a
        stop once J fails to decrease by ``tol * J`` below the best so far; with
        ``held_out`` (:mod:`halfspaces._early_stopping`), its stop too."""
        track = self.record_objective or self.tol is not None
        history, best = [], np.inf
        for order in orders:
            mistakes = run_pass(order)
            self.mistakes_per_epoch_.append(mistakes)
            self.n_mistakes_ += mistakes
            self.n_iter_ += 1
            if track:
                J = objectives()
                history.append(J[0] if J.size == 1 else J)
                total = float(J.sum())
                if self.tol is not None and total > best - self.tol * abs(best):
                    break
                best = min(best, total)
            if held_out is not None:
                self._sync()  # the held-out rows are scored by the returned predictor
                if held_out.stop(self):
                    break
        if track:
            self.objective_history_ = np.array(history)
