"""The estimator shell shared by every online learner (perceptrons, experts, Pegasos).

The shell holds the contract only: validation, labels, warm start, the one-example protocol
(``predict_one``/``score_one``/``learn_one``) and the hook of the online game. The learning
loops live in the algorithm modules. A subclass supplies three hooks:

``_init_state(X, n_models)``
    allocate the state of ``n_models`` binary problems (1, or one per class for OvR);
``_pass(k, X, y, order, scores) -> int``
    one online pass of binary problem ``k`` over rows ``X[order]`` with labels ``y`` in
    {-1, +1}; writes into ``scores[t]`` the score of row ``t`` *before* its update and
    returns the number of mistakes (``y_t * score_t <= 0``). This is where the compiled
    pass is called: no Python per row. A pass whose score or update is not finite stops at
    that row and says so (``_primitives.check_pass`` raises NumericalError). With the
    parameter ``n_jobs`` (one-vs-rest in threads, :mod:`halfspaces._parallel`), the passes
    of different problems run at the same time: a pass touches only problem ``k``'s state,
    and its compiled kernel releases the GIL (``nogil=True``).
``_decision(X) -> scores``
    ``(n,)`` for two classes, ``(n, n_classes)`` for one-vs-rest.

and its own ``fit`` (the batch perceptron's passes until a clean one in
``linear/perceptron.py``, one pass for the experts), built from ``_prepare_fit`` (checks,
labels, warm start) and ``_fit_epoch`` (one recorded pass of every binary problem). The
shell gives ``partial_fit`` (one progressive pass in the given order) and the one-example
protocol used by :func:`halfspaces.online.play`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from . import _csr
from ._base import ClassifierBase, ParamsMixin, SaveMixin, check_is_fitted
from ._labels import check_classes, decode_scores, encode_pm
from ._parallel import map_groups
from ._params import EPOCHS  # noqa: F401 - where the learners import it from
from ._primitives import as_rows, check_pass
from ._validation import check_csr, param_error, validate_X, validate_X_y


def keep_params(estimator, arguments: dict) -> None:
    """scikit-learn's constructor: store each argument unchanged as the attribute of its name
    (the checks happen in fit). ``__init__`` calls ``keep_params(self, locals())`` first."""
    for name, value in arguments.items():
        if name != "self":
            setattr(estimator, name, value)


class OnlineClassifier(SaveMixin, ParamsMixin, ClassifierBase):
    """Base class: see the module docstring. Not part of the public API."""

    #: Whether ``fit``'s first pass proves ``X`` finite (it scores every row with a sum that
    #: has a term for each stored value, and stops on an inf or nan score): then a fresh
    #: ``fit`` leaves the scan for inf and nan to that pass, and calls
    #: ``_validation.check_finite`` when it stops (see ``BatchPerceptronMixin.fit``).
    _first_pass_checks_finite = False

    #: The state's arrays of one column per feature, ``(n_models, n_features_in_)`` (an
    #: array kept empty until it is needed has 0 columns), for :meth:`_widen`.
    _per_feature: tuple[str, ...] = ()

    # -- hooks -----------------------------------------------------------------------------
    def _init_state(self, X, n_models: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _widen(self, n_features: int) -> None:
        """Give a started learner ``n_features`` columns (at least ``n_features_in_``), the
        new ones zero: for a stream whose columns are found as it goes (``halfspaces train``
        reads a svmlight file once, its later blocks reaching larger indices). Learning a
        row touches only its stored columns, so the state is what it would be had it started
        that wide. Only for the classes that list their ``_per_feature`` arrays."""
        if not self._per_feature:  # pragma: no cover - only the perceptrons' streams widen
            raise NotImplementedError(f"{type(self).__name__} cannot widen its state")
        old = self.n_features_in_
        for name in self._per_feature:
            a = getattr(self, name)
            if a.shape[1] == old:
                setattr(self, name, np.pad(a, ((0, 0), (0, n_features - old))))
        self.n_features_in_ = n_features

    def _pass(self, k: int, X, y: NDArray, order: NDArray, scores: NDArray) -> int:
        raise NotImplementedError  # pragma: no cover - abstract

    def _decision(self, X) -> NDArray:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- helpers ---------------------------------------------------------------------------
    @property
    def _n_models(self) -> int:
        return 1 if self.classes_.size == 2 else self.classes_.size

    def _y_rows(self, y_pm: NDArray) -> list[NDArray]:
        return [y_pm] if y_pm.ndim == 1 else list(y_pm)

    def _n_jobs(self, n_rows: int) -> int | None:
        """``n_jobs`` of a pass over ``n_rows`` rows: the class's parameter (None where it
        has none); a pass over one row (``learn_one``) stays in the calling thread, as
        starting threads costs more than it."""
        return getattr(self, "n_jobs", None) if n_rows > 1 else None

    def _run_pass(self, X, y_pm: NDArray, order: NDArray, s: NDArray | None = None) -> int:
        problems = self._y_rows(y_pm)
        weights = () if s is None else (s,)

        def solve(group: range) -> int:  # a group of problems in one thread, one buffer
            scores = np.empty(X.shape[0], dtype=np.float64)
            return sum(self._pass(k, X, problems[k], order, scores, *weights) for k in group)

        mistakes = sum(map_groups(solve, len(problems), self._n_jobs(order.size)))
        # a row of weight 0 is not a round
        self.t_ += order.size if s is None else int(np.count_nonzero(s[order]))
        return mistakes

    #: Whether ``fit`` and ``partial_fit`` take ``sample_weight`` (``_pass`` then takes the
    #: weights ``s`` as a sixth argument).
    _takes_sample_weight = False

    def _example_weights(self, method: str, sample_weight, X, y_pm: NDArray,
                         classes: NDArray | None = None) -> NDArray | None:
        """``sample_weight`` checked against validated ``X``, times the class weight of each
        row's label (``y_pm`` encoded over ``classes``, by default ``classes_``) where the
        class has a ``class_weight``; None when neither is given (the unweighted path)."""
        class_weight = getattr(self, "class_weight", None)
        if sample_weight is None and class_weight is None:
            return None
        name = type(self).__name__
        if sample_weight is not None and not self._takes_sample_weight:
            raise TypeError(f"{name}.{method}: sample_weight is not supported by"
                            f" {name}.{method} (its online steps are unweighted); {name}.fit"
                            " takes it.")
        if isinstance(class_weight, str) and method != "fit":  # as SGDClassifier.partial_fit
            raise param_error(
                f"{name}.{method}", "class_weight", "None or a dict {label: weight} in"
                f" {method} ('balanced' needs the class frequencies of the whole stream, which"
                " one block does not give)", class_weight, "Compute them on a sample of the"
                " labels, weights = sklearn.utils.class_weight.compute_class_weight("
                "'balanced', classes=classes, y=y_sample), and pass"
                " class_weight=dict(zip(classes, weights)).")
        from ._weights import check_every_class_weighed, example_weights

        classes = self.classes_ if classes is None else classes
        y = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, classes)
        s = example_weights(f"{name}.{method}", sample_weight, X.shape[0], y, class_weight,
                            classes)
        if method == "fit":  # a block of a stream may hold no example of a class
            check_every_class_weighed(f"{name}.fit", s, y, classes, class_weight)
        return s

    def _start(self, X, classes: NDArray) -> None:
        self.classes_ = classes
        self.t_ = 0
        self.n_mistakes_ = 0
        self.n_iter_ = 0
        self.mistakes_per_epoch_ = []
        self._init_state(X, self._n_models)

    def _prepare_fit(self, X: ArrayLike, y: ArrayLike) -> tuple:
        """fit's preamble: check the parameters, validate ``X`` and ``y``, start afresh (or,
        with ``warm_start`` and the same classes, continue), and encode ``y`` in {-1, +1}.
        Returns the validated ``X`` and the encoded labels."""
        self._validate_params()
        warm = getattr(self, "warm_start", False) and hasattr(self, "classes_")
        # A warm start scans X first: bad input must not change the model it continues.
        X, y = validate_X_y(self, X, y, reset=not warm,
                            finite=warm or not self._first_pass_checks_finite)
        classes = check_classes(type(self).__name__, y, None)
        if not (warm and np.array_equal(classes, self.classes_)):
            self._start(X, classes)
        return X, encode_pm(y, self.classes_)

    def _compiled(self, compiled_pass, X, *args, what: str | None = None) -> int:
        """Run ``compiled_pass(rows of X, *args)`` on validated ``X``; its mistakes, or the
        NumericalError (naming this estimator and the row) of a pass that stopped."""
        return check_pass(type(self).__name__, compiled_pass(as_rows(X), *args), what)

    def _fit_epoch(self, X, y_pm: NDArray, order: NDArray, s: NDArray | None = None) -> int:
        """One epoch of ``fit``: a pass of every binary problem over ``X[order]`` (with
        example weights ``s``), recorded in ``mistakes_per_epoch_``, ``n_mistakes_`` and
        ``n_iter_``; returns its mistakes."""
        mistakes = self._run_pass(X, y_pm, order) if s is None else self._run_pass(
            X, y_pm, order, s)
        self.mistakes_per_epoch_.append(mistakes)
        self.n_mistakes_ += mistakes
        self.n_iter_ += 1
        return mistakes

    # -- scikit-learn API ------------------------------------------------------------------
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None):
        """One online pass over ``X`` in the given order: each row is predicted, then learned.

        ``classes`` is required on the first call. Adds the pass's mistakes to
        ``n_mistakes_``. ``sample_weight`` (where the class takes it, as ``fit``; times the
        row's class weight where the class has a ``class_weight``) scales each row's update;
        a row of weight 0 is skipped. A ``class_weight`` must be a dict here: ``"balanced"``
        needs the class frequencies of the whole stream.
        """
        unweighted = sample_weight is None and getattr(self, "class_weight", None) is None
        block = self._fast_block(X, y, classes) if unweighted else None
        if block is not None:
            X, y = block
            self.n_mistakes_ += self._run_pass(X, encode_pm(y, self.classes_),
                                               np.arange(X.shape[0]))
            self.n_iter_ += 1
            return self
        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError(
                    f"{type(self).__name__}.partial_fit: 'classes' is required on the first"
                    " call; pass every label that can appear, e.g. classes=np.unique(y_all)."
                )
        X, y = validate_X_y(self, X, y, reset=first)
        if first:
            all_classes = check_classes(type(self).__name__, y, classes)
        else:
            check_classes(type(self).__name__, y, self.classes_ if classes is None else classes)
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(
                    f"{type(self).__name__}.partial_fit: classes={np.unique(classes).tolist()}"
                    f" differs from the first call's {self.classes_.tolist()}."
                )
            all_classes = self.classes_
        y_pm = encode_pm(y, all_classes)
        s = self._example_weights("partial_fit", sample_weight, X, y_pm, all_classes)
        if first:  # once the weights are checked: bad ones leave the learner unstarted
            self._start(X, all_classes)
        order = np.arange(X.shape[0])
        self.n_mistakes_ += (self._run_pass(X, y_pm, order) if s is None
                             else self._run_pass(X, y_pm, order, s))
        self.n_iter_ += 1
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores: ``(n,)`` for two classes (positive means ``classes_[1]``), else ``(n, K)``."""
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        return self._decision(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """Labels: ``classes_[1]`` when the score is ``>= 0`` (ties go positive)."""
        return decode_scores(self.decision_function(X), self.classes_)

    # -- the one-example protocol of the online game --------------------------------------
    def _prepare_online(self, classes: ArrayLike, n_features: int) -> None:
        """Start an unfitted learner for the online game (a fitted one is left as it is)."""
        if hasattr(self, "classes_"):
            return
        self._validate_params()
        self.n_features_in_ = n_features
        self._start(sp.csr_matrix((0, n_features)), check_classes(type(self).__name__,
                                                                  np.asarray(classes), classes))

    def _row(self, x) -> NDArray | sp.csr_matrix:
        if sp.issparse(x):
            return x.tocsr().reshape(1, -1)
        return np.asarray(x, dtype=np.float64).reshape(1, -1)

    def _fast_row(self, x) -> NDArray[np.float64] | sp.csr_matrix | None:
        """``x`` as a checked one-row matrix when the one-example fast path applies.

        The fast path skips scikit-learn's per-call validation (most of the cost of a
        ``learn_one``); it applies to a fitted learner given a dense 1-D row of the right
        length or a 1 x d CSR row, whose class keeps the base ``partial_fit`` and
        ``decision_function``. Anything else returns None and takes the full path, which
        also words the errors.
        """
        cls = type(self)
        if (not hasattr(self, "classes_") or hasattr(self, "feature_names_in_")
                or cls.partial_fit is not OnlineClassifier.partial_fit
                or cls.decision_function is not OnlineClassifier.decision_function):
            return None
        if sp.issparse(x):  # a 1 x d CSR row, as play hands out for sparse data
            if not (x.format == "csr" and x.shape == (1, self.n_features_in_)
                    and x.dtype in (np.float32, np.float64)):
                return None
            fault, _, _, canonical = _csr.csr_fault(x)  # the compiled passes need valid indices
            return x if fault == _csr.OK and canonical else None
        try:
            row = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        if row.shape != (self.n_features_in_,) or not np.isfinite(row).all():
            return None
        return row.reshape(1, -1)

    def _fast_block(self, X, y, classes) -> tuple | None:
        """``(X, y)`` checked, when a later ``partial_fit`` may skip scikit-learn's checks.

        The case of a stream's blocks (a cache's memory-mapped ones, ``fit_stream``, Dask):
        a fitted learner of the base ``partial_fit``, given a CSR block of float32/float64
        data with its ``n_features_in_`` columns and at least one row, a 1-D array of
        labels that are all in ``classes_``, and ``classes`` None or ``classes_``. Then
        scikit-learn's checks (about 1.5 ms a block, more than the pass on a block of 4,000
        rows) would find nothing; the
        compiled sweep of :func:`~halfspaces._validation.check_csr` still runs (the passes
        index with X.indices). Anything else returns None and takes the full path, which
        also words the errors.
        """
        if (not hasattr(self, "classes_") or hasattr(self, "feature_names_in_")
                or type(self).partial_fit is not OnlineClassifier.partial_fit
                or not (sp.issparse(X) and X.format == "csr" and X.ndim == 2
                        and X.shape[0] >= 1 and X.shape[1] == self.n_features_in_
                        and X.dtype in (np.float32, np.float64))
                or not (isinstance(y, np.ndarray) and y.shape == (X.shape[0],)
                        and np.isin(y, self.classes_).all())
                or not (classes is None
                        or np.array_equal(np.unique(np.asarray(classes)), self.classes_))):
            return None
        return check_csr(type(self).__name__, X), y

    def score_one(self, x: ArrayLike) -> float:
        """The learner's score for one example (its sign is the prediction)."""
        row = self._fast_row(x)
        scores = self.decision_function(self._row(x)) if row is None else self._decision(row)
        if scores.ndim == 2:
            return float(scores.max())
        return float(scores[0])

    def predict_one(self, x: ArrayLike):
        """Predict the label of one example."""
        row = self._fast_row(x)
        if row is None:
            return self.predict(self._row(x))[0]
        return decode_scores(self._decision(row), self.classes_)[0]

    def learn_one(self, x: ArrayLike, y, classes: ArrayLike | None = None):
        """Learn from one labelled example (``classes`` is required on the first call)."""
        fast = classes is None and getattr(self, "class_weight", None) is None
        row = self._fast_row(x) if fast else None
        if row is None or not np.any(self.classes_ == y):
            return self.partial_fit(self._row(x), np.asarray([y]), classes=classes)
        y_pm = encode_pm(np.asarray([y]), self.classes_)
        self.n_mistakes_ += self._run_pass(row, y_pm, np.zeros(1, dtype=np.intp))
        self.n_iter_ += 1
        return self

    def _play(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        """The whole game on a fixed binary sequence in one compiled pass; returns scores."""
        if getattr(self, "class_weight", None) is not None:
            return self._play_rounds(X, y_pm)
        scores = np.empty(X.shape[0], dtype=np.float64)
        self.n_mistakes_ += self._play_pass(X, y_pm, scores)
        self.t_ += X.shape[0]
        return scores

    def _play_rounds(self, X, y_pm: NDArray) -> NDArray[np.float64]:
        """The game of a learner with a ``class_weight``, round by round: ``score_one``, then
        ``learn_one`` (a ``partial_fit`` of one row, its class weight applied), as the
        generic game plays any learner (the compiled game passes are unweighted)."""
        scores = np.empty(X.shape[0], dtype=np.float64)
        labels, n_iter = decode_scores(y_pm, self.classes_), self.n_iter_
        for t in range(X.shape[0]):
            row = X[t : t + 1]
            scores[t] = self.score_one(row)
            self.learn_one(row, labels[t])
        self.n_iter_ = n_iter  # the game is no partial_fit call (as the compiled one)
        return scores

    def _play_pass(self, X, y_pm: NDArray, scores: NDArray) -> int:
        """The compiled pass of the game: by default binary problem 0's pass in order (a
        learner that predicts with something else than what it updates overrides it)."""
        return self._pass(0, X, y_pm, np.arange(X.shape[0]), scores)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
