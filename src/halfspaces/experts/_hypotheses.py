"""A finite hypothesis class, given in one of three forms, turned into a prediction matrix.

The experts learners (Halving, Weighted Majority) only ever look at the ``(n, N)`` matrix
``P[t, i] = h_i(x_t)`` in {-1, +1}. ``hypotheses`` may be

* an ``(N, d)`` array ``W`` of halfspaces (with ``offsets``, an ``(N,)`` array, default 0):
  ``h_i(x) = sign(<w_i, x> + offset_i)`` with ``sign(0) = +1`` (the project's tie rule);
* a sequence of callables, each mapping ``X`` (``(n, d)``, dense or CSR, as given to
  ``fit``) to an ``(n,)`` array with values in {-1, +1}, where ``+1`` stands for
  ``classes_[1]`` and ``-1`` for ``classes_[0]`` (never the user's label values: the class is
  fixed before the labels are seen);
* the string ``"precomputed"``: ``X`` itself is the ``(n, N)`` prediction matrix, entries in
  {-1, +1} (like scikit-learn's ``kernel="precomputed"``).

The matrix is built in row blocks of at most ``_BLOCK_BYTES`` so that memory stays bounded
for long sequences and large classes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._base import safe_sparse_dot
from .._file_specs import Array, Est
from .._online import OnlineClassifier
from .._specs import NONE, ByRule, Choice, Float, ListOf, OneOf
from .._streaming import PassesFit
from .._validation import param_error
from ..exceptions import NumericalError

_BLOCK_BYTES = 32 * 2**20


class CoordinateStump:
    """The stump ``h(x) = sign * sign(x_j - threshold)``, ``sign(0) = +1``: a callable hypothesis.

    It works for any number of features ``d > feature`` (a negative ``feature`` counts from
    the last column, as NumPy indexing does), so a class of stumps can be used on data whose
    dimension is not known in advance. Returns values in {-1, +1}.

    Parameters
    ----------
    feature : int, default=0
        The coordinate ``j`` that is thresholded; ``-1`` is the last one.
    threshold : float, default=0.0
    sign : {+1, -1}, default=+1
        ``+1`` predicts positive above the threshold, ``-1`` below it.

    Examples
    --------
    >>> import numpy as np
    >>> CoordinateStump(feature=1, threshold=0.5, sign=-1)(np.array([[0.0, 1.0], [0.0, 0.0]]))
    array([-1,  1], dtype=int8)
    """

    def __init__(self, feature: int = 0, threshold: float = 0.0, sign: int = 1):
        self.feature = int(feature)
        self.threshold = float(threshold)
        self.sign = 1 if sign >= 0 else -1

    def __call__(self, X) -> NDArray[np.int8]:
        column = X[:, [self.feature]]
        column = column.toarray() if sp.issparse(column) else np.asarray(column)
        above = column.ravel() >= self.threshold
        return np.where(above, self.sign, -self.sign).astype(np.int8)

    def __repr__(self) -> str:
        return (f"CoordinateStump(feature={self.feature}, threshold={self.threshold!r},"
                f" sign={self.sign})")

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, CoordinateStump) and self.feature == other.feature
                and self.threshold == other.threshold and self.sign == other.sign)

    def __hash__(self) -> int:
        return hash((self.feature, self.threshold, self.sign))


@dataclass
class HypothesisClass:
    """The checked ``hypotheses``: ``kind`` is 'halfspaces', 'callables' or 'precomputed'."""

    owner: str
    kind: str
    W: NDArray[np.float64] | None = None
    offsets: NDArray[np.float64] | None = None
    functions: tuple = ()

    def size(self, n_features: int) -> int:
        """``N``, the number of hypotheses (for 'precomputed', the columns of X)."""
        if self.kind == "halfspaces":
            return self.W.shape[0]
        if self.kind == "callables":
            return len(self.functions)
        return n_features

    def check_X(self, X) -> None:
        """Raise a clear error when X cannot be fed to this class."""
        if self.kind == "halfspaces" and X.shape[1] != self.W.shape[1]:
            raise ValueError(
                f"{self.owner}: X has {X.shape[1]} features but the hypotheses are"
                f" halfspaces in dimension {self.W.shape[1]} (an array of shape"
                f" {self.W.shape}); pass X with {self.W.shape[1]} columns."
            )
        if self.kind == "precomputed":
            if sp.issparse(X):
                raise ValueError(
                    f"{self.owner}: with hypotheses='precomputed', X must be a dense (n, N)"
                    " matrix of predictions in {-1, +1}; got a sparse matrix. Pass X.toarray()."
                )
            step = max(1, 2**20 // max(1, X.shape[1]))  # chunks: no (n, N) temporaries
            for start in range(0, X.shape[0], step):
                chunk = X[start : start + step]
                bad = (chunk != 1.0) & (chunk != -1.0)
                if bad.any():
                    raise ValueError(
                        f"{self.owner}: with hypotheses='precomputed', X holds the"
                        " predictions h_i(x_t) and must contain only -1 and +1; got values"
                        f" {np.unique(chunk[bad])[:5].tolist()}. Encode classes_[1] as +1"
                        " and classes_[0] as -1."
                    )

    def predictions(self, X, rows: NDArray[np.intp]) -> NDArray[np.int8]:
        """``P[t, i] = h_i(x_t)`` in {-1, +1} as a C-contiguous int8 ``(n, N)`` array.

        ``rows`` numbers the rows of ``X`` in the caller's data, for error messages.
        """
        if self.kind == "precomputed":
            return np.ascontiguousarray(X, dtype=np.int8)  # entries checked by check_X
        if self.kind == "halfspaces":
            with np.errstate(over="ignore", invalid="ignore"):  # refused just below
                margins = safe_sparse_dot(X, self.W.T, dense_output=True) + self.offsets
            bad = np.argwhere(~np.isfinite(margins))
            if bad.size:  # an overflow: its sign (and a nan's) says nothing
                t, i = bad[0]
                raise NumericalError(self.owner, int(rows[t]),
                                     f"the margin <w_{i}, x> + offset_{i} of hypothesis {i}")
            return np.ascontiguousarray(np.where(margins >= 0.0, 1, -1), dtype=np.int8)
        n = X.shape[0]
        P = np.empty((n, len(self.functions)), dtype=np.int8)
        for i, h in enumerate(self.functions):
            values = np.asarray(h(X))
            if values.shape != (n,) or not np.all((values == 1) | (values == -1)):
                shown = np.unique(values).tolist()[:5] if values.size else []
                raise ValueError(
                    f"{self.owner}: hypothesis {i} ({h!r}) must return an array of shape"
                    f" ({n},) with values in {{-1, +1}}; got shape {values.shape} and values"
                    f" {shown}. Return +1 for classes_[1] and -1 for classes_[0]."
                )
            P[:, i] = values
        return P

    def blocks(self, X, order: NDArray[np.intp]) -> Iterator[tuple[slice, NDArray[np.int8]]]:
        """Yield ``(s, P_s)``: row blocks of the prediction matrix of ``X[order]``."""
        n = order.size
        per_row = 8 * max(1, self.size(X.shape[1]) + (0 if self.kind == "callables" else 1))
        step = max(1, min(n, _BLOCK_BYTES // per_row))
        in_order = np.array_equal(order, np.arange(n))
        for start in range(0, n, step):
            s = slice(start, min(n, start + step))
            rows = X[s] if in_order else X[order[s]]
            yield s, self.predictions(rows, order[s])


def check_hypotheses(owner: str, hypotheses: Any, offsets: Any) -> HypothesisClass:
    """Validate the ``hypotheses`` / ``offsets`` parameters; return a :class:`HypothesisClass`."""
    hint = ("Pass an (N, d) array of halfspaces w_i, a list of callables X -> {-1, +1}^n,"
            " or 'precomputed'.")
    if isinstance(hypotheses, str):
        if hypotheses != "precomputed":
            raise param_error(owner, "hypotheses", "an array, a list of callables or"
                              " 'precomputed'", hypotheses, hint)
        if offsets is not None:
            raise param_error(owner, "offsets", "None with hypotheses='precomputed'", offsets,
                              "Offsets only apply to halfspace hypotheses.")
        return HypothesisClass(owner, "precomputed")
    if hypotheses is None:
        raise param_error(owner, "hypotheses", "an array, a list of callables or"
                          " 'precomputed'", hypotheses, hint)
    if isinstance(hypotheses, (list, tuple)) and len(hypotheses) > 0 and all(
            callable(h) for h in hypotheses):
        if offsets is not None:
            raise param_error(owner, "offsets", "None when hypotheses are callables", offsets,
                              "Put the offset inside each callable.")
        return HypothesisClass(owner, "callables", functions=tuple(hypotheses))
    try:
        W = np.asarray(hypotheses, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(owner, "hypotheses", "an array, a list of callables or"
                          " 'precomputed'", hypotheses, hint) from None
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[1] == 0 or not np.all(np.isfinite(W)):
        raise param_error(owner, "hypotheses", "a finite (N, d) array with N >= 1 and d >= 1",
                          f"an array of shape {W.shape}", hint)
    if offsets is None:
        b = np.zeros(W.shape[0])
    else:
        b = np.asarray(offsets, dtype=np.float64).reshape(-1)
        if b.shape != (W.shape[0],) or not np.all(np.isfinite(b)):
            raise param_error(owner, "offsets", f"a finite array of shape ({W.shape[0]},),"
                              " one offset per hypothesis", f"shape {b.shape}")
    return HypothesisClass(owner, "halfspaces", W=np.ascontiguousarray(W), offsets=b)


#: ``hypotheses`` and ``offsets``: checked together by ``check_hypotheses``; a model file
#: holds data (halfspaces, stumps or "precomputed"), never callables.
HYPOTHESES = ByRule("an array, a list of callables or 'precomputed'", OneOf(
    Choice("precomputed"),
    Array(("float", "int", "bool"), ("n_hypotheses", "n_features"), finite=True),
    ListOf(Est("CoordinateStump"), kinds=("list", "tuple"), min_len=1),
    ListOf(ListOf(Float(), kinds=("list", "tuple"), min_len=1), kinds=("list", "tuple"),
           min_len=1)))
HYPOTHESIS_OFFSETS = ByRule("None or one offset per hypothesis", OneOf(
    NONE, Array(("float", "int"), ("n_hypotheses",), finite=True),
    ListOf(Float(), kinds=("list", "tuple"))))


def _hypotheses_and_offsets(estimator) -> None:
    """The rule of HYPOTHESES and HYPOTHESIS_OFFSETS."""
    estimator._hypothesis_class()


class ExpertsClassifier(OnlineClassifier):
    """Shell shared by Halving and Weighted Majority (binary labels, one pass per ``fit``).

    Subclasses supply ``_init_experts(N)``, ``_learn_block(P, y, scores, t0, mistakes_before,
    s) -> mistakes`` (``s`` the weights of the rounds, or None) and
    ``_vote(P) -> scores in [-1, 1]``.
    """

    _parameter_rules = (_hypotheses_and_offsets,)

    def _hypothesis_class(self) -> HypothesisClass:
        return check_hypotheses(type(self).__name__, self.hypotheses, self.offsets)

    def _start(self, X, classes: NDArray) -> None:
        if classes.size != 2:
            raise ValueError(
                f"{type(self).__name__}: Only binary classification is supported (the"
                f" hypotheses vote in {{-1, +1}}); y has {classes.size} classes"
                f" {classes.tolist()[:10]}. Train one classifier per class with its own"
                " hypotheses (one-vs-rest) instead."
            )
        super()._start(X, classes)

    def _init_state(self, X, n_models: int) -> None:
        n_hypotheses = self._hypothesis_class().size(X.shape[1])
        if n_hypotheses < 1:
            raise ValueError(f"{type(self).__name__}: the hypothesis class is empty (X has 0"
                             " columns with hypotheses='precomputed'); it needs N >= 1.")
        self.n_hypotheses_ = n_hypotheses
        self._init_experts(n_hypotheses)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Start afresh and make one online pass over the rows of ``X`` in order.

        One pass is all these algorithms make: each round is predicted, then learned, and
        ``n_mistakes_`` counts the pass's mistakes. A row of weight 0 in ``sample_weight``
        is no round; what a positive weight means is in each class's Notes.
        """
        X, y_pm = self._prepare_fit(X, y)
        s = self._example_weights("fit", sample_weight, X, y_pm)
        self._fit_epoch(X, y_pm, np.arange(X.shape[0]), s)
        return self

    def stream_fitter(self, epochs: int | None = None) -> PassesFit:
        """What :func:`~halfspaces.datasets.fit_stream` drives over the blocks of a stream
        (see :mod:`halfspaces._streaming`): ``fit``'s one pass, ``partial_fit`` on each
        block. ``epochs`` is unused."""
        return PassesFit(self, one_pass=True,
                         takes_weights=bool(getattr(self, "_takes_sample_weight", False)))

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray,
              s: NDArray | None = None) -> int:
        """The rounds ``order`` (a row of weight 0 in ``s`` is no round: not predicted,
        not learned, not counted); ``_learn_block`` is told the rounds before its block."""
        H = self._hypothesis_class()
        H.check_X(X)
        mistakes = rounds = 0
        for block, P in H.blocks(X, order):
            rows = order[block]
            if s is not None:
                P, rows = P[s[rows] > 0], rows[s[rows] > 0]
            block_scores = np.empty(rows.size, dtype=np.float64)
            mistakes += self._learn_block(P, np.ascontiguousarray(y[rows]), block_scores,
                                          rounds, mistakes, None if s is None else s[rows])
            scores[rows] = block_scores
            rounds += rows.size
        return mistakes

    def _decision(self, X) -> NDArray[np.float64]:
        H = self._hypothesis_class()
        H.check_X(X)
        order = np.arange(X.shape[0])
        out = np.empty(X.shape[0], dtype=np.float64)
        for s, P in H.blocks(X, order):
            out[s] = self._vote(P)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = not isinstance(self.hypotheses, str)
        return tags
