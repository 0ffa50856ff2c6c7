"""The estimator shell shared by every online learner (perceptrons, experts, Pegasos).

The shell holds the contract only: validation, labels, warm start, the one-example protocol
(``predict_one``/``score_one``/``learn_one``) and the hook of the online game. The learning
loops live in the algorithm modules. A subclass supplies three hooks:

``_init_state(X, n_models)``
    allocate the state of ``n_models`` binary problems (1, or one per class for OvR);
``_pass(k, X, y, order, scores) -> int``
    one compiled online pass of binary problem ``k`` over rows ``X[order]`` with labels
    ``y`` in {-1, +1}; writes the score of row ``t`` before its update into ``scores[t]``
    and returns the mistakes (``y_t * score_t <= 0``). A score or update that is not finite
    stops it at that row (``_primitives.check_pass``). With ``n_jobs`` the passes of
    different problems run in threads: each touches only its problem's state, without the GIL;
``_decision(X) -> scores``
    ``(n,)`` for two classes, ``(n, n_classes)`` for one-vs-rest;

optionally the one-example kernels of a binary learner, on one row ``(x, columns)`` (a dense
float64 row with ``columns`` None, or a sparse row's values at ``columns``), returning a float:

``_score_row(x, columns) -> float``
    the score ``_decision`` gives the row;
``_learn_row(x, columns, y_t) -> float``
    one round of ``_pass`` on the row: its score before the update, made only when finite;

and its own ``fit``, built from ``_prepare_fit`` (checks, labels, warm start) and
``_fit_epoch`` (one recorded pass of every binary problem). The shell gives ``partial_fit``
(one progressive pass in the given order) and the one-example protocol used by
:func:`halfspaces.online.play`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

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
from ._weights import check_every_class_weighed, example_weights

_FLOAT64, _INT64 = np.dtype(np.float64), np.dtype(np.int64)


class _OneExample(NamedTuple):
    """The one-example fast path's cache (:meth:`OnlineClassifier._fast_state`)."""

    classes: NDArray  # the learner's classes_ and width it was built for
    n_features: int
    labels: dict  # label -> its {-1, +1} encoding (encode_pm's)
    order: NDArray  # the one-row order of a pass
    base_run_pass: bool  # whether the class keeps the base _run_pass
    signs: dict | None  # label -> -1.0 or +1.0 for the one-example kernels; None: no kernels
    predictions: tuple  # (classes_[0], classes_[1]), indexed by "score >= 0"


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

    #: The one-example fast path's cache (:meth:`_fast_state`), rebuilt when needed.
    _persist_exclude: tuple[str, ...] = ("_one",)

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
        classes = self.classes_ if classes is None else classes
        y = decode_scores(y_pm.T if y_pm.ndim == 2 else y_pm, classes)
        s = example_weights(f"{name}.{method}", sample_weight, X.shape[0], y, class_weight,
                            classes)
        if method == "fit":  # a block of a stream may hold no example of a class
            check_every_class_weighed(f"{name}.fit", s, y, classes, class_weight)
        return s

    def _start(self, X, classes: NDArray) -> None:
        self.__dict__.pop("vocabulary_", None)  # learn_one names the columns of dict rows
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

    def _row(self, x, learn: bool = False) -> NDArray | sp.csr_matrix:
        """``x`` (a dense row, a sparse row or a dict) as a one-row matrix for the full path.

        A dict is read by :meth:`_dict_row`; with ``learn`` its new features widen the
        learner first."""
        if isinstance(x, dict):
            return self._dict_row(x, learn)
        if sp.issparse(x):
            return x.tocsr().reshape(1, -1)
        return np.asarray(x, dtype=np.float64).reshape(1, -1)

    def _dict_row(self, x: dict, learn: bool) -> NDArray[np.float64]:
        """A dict row ``{feature: value}`` as a dense one-row matrix, every value checked.

        The keys are all names (``str``: columns from ``vocabulary_``, a new name given the
        next column when learning) or all column indices (``int >= 0``, as a sparse row's
        indices). A learner started on names keeps to names, one started on arrays or
        indices to indices. A feature the learner has not seen adds nothing to a score (its
        weight is 0), so predicting drops it; learning widens the learner to it
        (:meth:`_widen`). Before the learner is started, the row fixes its columns.
        """
        name = type(self).__name__
        started = hasattr(self, "classes_")
        vocabulary = getattr(self, "vocabulary_", None)
        named = [k for k in x if isinstance(k, str)]
        for k in x:
            if not (isinstance(k, str) or isinstance(k, numbers.Integral)
                    and not isinstance(k, bool)):
                raise TypeError(f"{name}: the dict row's key {k!r} is a {type(k).__name__};"
                                " the keys must be feature names (str) or column indices"
                                " (int >= 0).")
        if named and len(named) != len(x):
            raise TypeError(f"{name}: the dict row mixes feature names ({named[0]!r}) with"
                            " column indices; use one kind of key for the whole stream.")
        if named and started and vocabulary is None:
            raise TypeError(f"{name}: the dict row has feature names ({named[0]!r}), but"
                            " this learner's columns have none (it was started on arrays or"
                            " on dicts of column indices); pass its columns' indices as keys.")
        if not named and x and vocabulary is not None:
            raise TypeError(f"{name}: the dict row has column indices as keys, but this"
                            " learner's columns are named (vocabulary_); pass the names.")
        values = {}
        for k, v in x.items():
            try:
                value = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"{name}: the dict row's value for feature {k!r} is {v!r},"
                                 " not a number; pass numbers (float or int) as values.")\
                    from None
            if not math.isfinite(value):
                raise ValueError(f"{name}: the dict row's value for feature {k!r} is {v!r};"
                                 " the values must be finite (drop or impute the feature).")
            values[k] = value
        width = self.n_features_in_ if started else 0
        new: list = []
        if named:
            vocabulary = {} if vocabulary is None else vocabulary
            columns = {}
            for k in x:
                if k in vocabulary:
                    columns[k] = vocabulary[k]
                elif learn:
                    columns[k] = len(vocabulary) + len(new)
                    new.append(k)
                else:
                    columns[k] = -1
            width = max(width, len(vocabulary) + len(new))
        else:
            for k in x:
                if k < 0:
                    raise ValueError(f"{name}: the dict row's column index {k} is negative;"
                                     " the indices count from 0.")
            if learn and x:
                width = max(width, max(int(k) for k in x) + 1)
            columns = {k: int(k) if k < width else -1 for k in x}
        if learn and started:
            self._grow(width, new)
        row = np.zeros((1, width), dtype=np.float64)
        for k, j in columns.items():
            if j >= 0:
                row[0, j] = values[k]
        return row

    def _grow(self, width: int, new_names) -> None:
        """Widen the started learner to ``width`` columns and name the new ones
        ``new_names`` (in order, the last columns)."""
        if width > self.n_features_in_:
            if not self._per_feature:
                raise ValueError(
                    f"{type(self).__name__}: the dict row has features beyond the learner's"
                    f" {self.n_features_in_} columns, and this learner cannot widen; start it"
                    " on rows that name every feature.")
            self._widen(width)
        if new_names:
            vocabulary = self.vocabulary_
            for k in new_names:
                vocabulary[k] = len(vocabulary)

    def _fast_state(self):
        """The one-example fast path's cached state, or None where the path does not apply.

        It applies to a started learner whose class keeps the base ``partial_fit`` and
        ``decision_function``, with no ``feature_names_in_``: then scikit-learn's per-call
        validation (most of the cost of a ``learn_one``) would find nothing in a checked row.
        The cache (labels in {-1, +1} per class, the one-row order and score buffer; for
        the one-example kernels, each label's -1.0 or +1.0) is kept for the learner's
        ``classes_`` and width, and rebuilt when they change.
        """
        cache = self.__dict__.get("_one")
        classes = self.__dict__.get("classes_")
        if (cache is not None and cache.classes is classes
                and cache.n_features == self.n_features_in_):
            return cache
        cls = type(self)
        if (classes is None or hasattr(self, "feature_names_in_")
                or cls.partial_fit is not OnlineClassifier.partial_fit
                or cls.decision_function is not OnlineClassifier.decision_function):
            return None
        labels = {}
        for c in classes.tolist():
            y_pm = encode_pm(np.asarray([c], dtype=classes.dtype), classes)
            labels[c] = y_pm
        # the one-example kernels: a binary learner whose class defines them itself (a
        # subclass may learn or score otherwise)
        signs = (None if classes.size != 2 or "_learn_row" not in vars(cls) else
                 {c: float(y_pm[0]) for c, y_pm in labels.items()})
        cache = _OneExample(classes, self.n_features_in_, labels, np.zeros(1, dtype=np.intp),
                            cls._run_pass is OnlineClassifier._run_pass, signs,
                            tuple(classes[:2]))
        self._one = cache
        return cache

    def _kernel_row(self, x) -> tuple | None:
        """``(x, columns, cache)``: ``x`` as the one-example kernels take it (see the module
        docstring) and :meth:`_fast_state`'s cache; None where they do not apply (then the
        full path takes ``x``).

        A float64 1-D row of the learner's width, or a dict whose keys are the learner's
        names (``vocabulary_``) or, for a learner without names, ints. What the kernels
        check themselves is not checked here: values that are not finite (the score is
        not), columns outside the learner's (the score is nan).
        """
        state = self.__dict__
        cache = state.get("_one")  # _fast_state's, without the call where it is valid
        if not (cache is not None and cache.classes is state.get("classes_")
                and cache.n_features == state.get("n_features_in_")):
            cache = self._fast_state()
        if cache is None or cache.signs is None:
            return None
        if type(x) is np.ndarray:
            if (x.dtype is _FLOAT64 and x.ndim == 1 and x.shape[0] == cache.n_features
                    and x.flags.c_contiguous):
                return x, None, cache
            return None
        if type(x) is not dict:
            return None
        vocabulary = state.get("vocabulary_")
        n = len(x)
        try:
            if vocabulary is None:  # int keys: their sum is an int (a float or a str is not)
                if type(sum(x)) is not int:
                    return None
                columns = np.fromiter(x, _INT64, n)
            else:
                columns = np.fromiter(map(vocabulary.__getitem__, x), _INT64, n)
            return np.fromiter(x.values(), _FLOAT64, n), columns, cache
        except (KeyError, TypeError, ValueError, OverflowError):
            return None

    def _fast_row(self, x) -> NDArray[np.float64] | sp.csr_matrix | None:
        """``x`` as a checked one-row matrix when the one-example fast path applies (see
        :meth:`_fast_state`), else None: the full path then takes it and words the errors.

        A float64 row of the learner's width, a dict whose keys the learner knows, or a
        1 x d CSR row. Finiteness is checked by the row's squared norm: it is finite only if
        every value is (a row whose norm overflows takes the full path).
        """
        d = self.n_features_in_
        if type(x) is np.ndarray:
            if not (x.dtype == np.float64 and x.shape == (d,) and x.flags.c_contiguous):
                return self._as_float_row(x, d)
            return x.reshape(1, -1) if math.isfinite(x.dot(x)) else None
        if isinstance(x, dict):
            return self._fast_dict_row(x, d)
        if sp.issparse(x):  # a 1 x d CSR row, as play hands out for sparse data
            if not (x.format == "csr" and x.shape == (1, d)
                    and x.dtype in (np.float32, np.float64)):
                return None
            fault, _, _, canonical = _csr.csr_fault(x)  # the compiled passes need valid indices
            return x if fault == _csr.OK and canonical else None
        return self._as_float_row(x, d)

    def _as_float_row(self, x, d: int) -> NDArray[np.float64] | None:
        try:
            row = np.ascontiguousarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        if row.shape not in ((d,), (1, d)) or not np.isfinite(row).all():
            return None
        return row.reshape(1, -1)

    def _fast_dict_row(self, x: dict, d: int) -> NDArray[np.float64] | None:
        vocabulary = self.__dict__.get("vocabulary_")
        try:
            if vocabulary is not None:
                columns = [vocabulary[k] for k in x]
            else:
                columns = list(x)
                if columns and (min(columns) < 0 or max(columns) >= d):
                    return None
            values = np.fromiter(x.values(), dtype=np.float64, count=len(x))
            if not math.isfinite(values.dot(values)):
                return None
            row = np.zeros((1, d), dtype=np.float64)
            row[0, columns] = values
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        return row

    def _fast_block(self, X, y, classes) -> tuple | None:
        """``(X, y)`` checked, when a later ``partial_fit`` may skip scikit-learn's checks.

        The case of a stream's blocks (a cache's memory-mapped ones, ``fit_stream``, Dask):
        a fitted learner of the base ``partial_fit``, given a CSR block of float32/float64
        data with its ``n_features_in_`` columns and at least one row, a 1-D array of
        labels that are all in ``classes_``, and ``classes`` None or ``classes_``. Then
        scikit-learn's checks (which cost more than the pass on a small block) would find
        nothing; the
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

    def score_one(self, x) -> float:
        """The learner's score for one example (its sign is the prediction): ``x`` a dense
        row, a sparse row or a dict (see :meth:`learn_one`)."""
        kernel_row = self._kernel_row(x)
        if kernel_row is not None:
            score = self._score_row(kernel_row[0], kernel_row[1])
            if math.isfinite(score):
                return score
        row = self._fast_row(x) if self._fast_state() is not None else None
        scores = self.decision_function(self._row(x)) if row is None else self._decision(row)
        if scores.ndim == 2:
            return float(scores.max())
        return float(scores[0])

    def predict_one(self, x):
        """Predict the label of one example: ``x`` as in :meth:`learn_one`."""
        kernel_row = self._kernel_row(x)
        if kernel_row is not None:
            row, columns, cache = kernel_row
            score = self._score_row(row, columns)
            if math.isfinite(score):
                return cache.predictions[1 if score >= 0.0 else 0]  # ties go positive
        row = self._fast_row(x) if self._fast_state() is not None else None
        if row is None:
            return self.predict(self._row(x))[0]
        scores = self._decision(row)
        if scores.ndim == 1:  # ties go positive
            return self.classes_[1] if scores[0] >= 0.0 else self.classes_[0]
        return decode_scores(scores, self.classes_)[0]

    def learn_one(self, x, y, classes: ArrayLike | None = None):
        """Learn from one labelled example (``classes`` is required on the first call).

        ``x`` is a dense row (a 1-D array or a list), a sparse row (1 x d, or a sparse
        vector) or a dict ``{feature: value}``, River's form. A dict's keys are feature
        names or column indices (:meth:`_dict_row`): names are given columns in the order
        they arrive (a vocabulary, ``vocabulary_``, saved with the model), not hashed, so
        the model is exactly the one of the dense rows in that column order, no two features
        share a weight, and a reloaded model reads the same dicts. A new feature widens the
        learner (its weight starts at 0, as if it had been there from the start).
        """
        unweighted = classes is None and getattr(self, "class_weight", None) is None
        kernel_row = self._kernel_row(x) if unweighted else None
        if kernel_row is not None:
            row, columns, cache = kernel_row
            try:
                y_t = cache.signs.get(y)
            except TypeError:  # an unhashable label: the full path words it
                y_t = None
            if y_t is not None:
                score = self._learn_row(row, columns, y_t)
                if math.isfinite(score):
                    if y_t * score <= 0.0:  # a mistake, as the pass counts it
                        self.n_mistakes_ += 1
                    self.t_ += 1
                    self.n_iter_ += 1
                    return self
        cache = self._fast_state() if unweighted else None
        if cache is not None:
            row = self._fast_row(x)
            try:
                y_pm = cache.labels.get(y)
            except TypeError:  # an unhashable label: the full path words it
                y_pm = None
            if row is not None and y_pm is not None:
                if cache.base_run_pass:  # the base _run_pass, for one row in this thread
                    scores = np.empty(1, dtype=np.float64)
                    mistakes = 0
                    for k, y_k in enumerate(self._y_rows(y_pm)):
                        mistakes += self._pass(k, row, y_k, cache.order, scores)
                    self.t_ += 1
                else:
                    mistakes = self._run_pass(row, y_pm, cache.order)
                self.n_mistakes_ += mistakes
                self.n_iter_ += 1
                return self
        started = hasattr(self, "classes_")
        row = self._row(x, learn=True)
        self.partial_fit(row, np.asarray([y]), classes=classes)
        if not started and isinstance(x, dict) and any(isinstance(k, str) for k in x):
            self.vocabulary_ = {k: j for j, k in enumerate(x)}  # the columns _dict_row gave
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
