"""The estimator contract, without importing scikit-learn.

scikit-learn's tools (``clone``, ``Pipeline``, ``GridSearchCV``, ``cross_val_score``,
``is_classifier``, ``check_estimator``) need from an estimator what its developer guide
lists: the constructor parameters as attributes of the same names, ``get_params`` and
``set_params`` (nested ``step__param`` names), a ``__repr__``, ``score``, and its tags
(``__sklearn_tags__``). :class:`ClassifierBase` gives them in a few lines, so that importing
an estimator, or training one from a file, costs no import of scikit-learn (seconds and
memory): scikit-learn is imported where it is used (the tags, ``score``, dense input
checks), never by ``from halfspaces import Perceptron``.

The small scikit-learn utilities the estimators use on every fit (:func:`check_is_fitted`,
:func:`check_random_state`, :func:`safe_sparse_dot`, :func:`available_if`) are here too,
with scikit-learn's documented behaviour; their errors are scikit-learn's own classes.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import sys
import types
from typing import Any

import numpy as np

from ._labels import is_discrete
from ._specs import validate_params


class SaveMixin:
    """Gives every estimator ``save(path)``; see :mod:`halfspaces.persistence`."""

    def save(self, path: str | os.PathLike) -> None:
        """Save the fitted estimator to ``path`` (versioned arrays + JSON, no pickle)."""
        from .persistence import save  # importing an estimator loads no model schema

        save(self, path)


class ParamsMixin:
    """Checks the constructor parameters against the class's table
    ``_parameter_constraints`` (``{name: Spec}``) and its ``_parameter_rules`` (functions of
    the estimator that check parameters together); see :mod:`halfspaces._specs`. It takes
    the place of scikit-learn's ``_validate_params``, whose constraint lists these tables
    are not."""

    _parameter_rules: tuple = ()

    def _validate_params(self) -> None:
        validate_params(self)


def _same(value: Any, default: Any) -> bool:
    """Whether a parameter still has its default (for the repr): the same object, equal
    reprs, or both nan."""
    if value is default:
        return True
    if isinstance(value, numbers.Real) and isinstance(default, numbers.Real) \
            and not isinstance(value, bool) and math.isnan(value) and math.isnan(default):
        return True
    return type(value) is type(default) and repr(value) == repr(default)


class ClassifierBase:
    """What scikit-learn needs of a classifier (its developer guide's API): parameters,
    repr, ``score`` and tags. The constructor stores each argument unchanged as the
    attribute of its name and takes no ``*args``."""

    _estimator_type = "classifier"

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The constructor's parameter names, sorted."""
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__}.__init__ takes *{p.name}: a scikit-learn"
                                   " estimator's constructor names each of its parameters.")
            if p.name != "self" and p.kind != p.VAR_KEYWORD:
                names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, ``{name: value}``; with ``deep``, also those of the
        estimators among them, as ``name__param``."""
        params = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner)
                              for key, inner in value.get_params(deep=True).items())
            params[name] = value
        return params

    def set_params(self, **params: Any):
        """Set parameters, ``name=value`` or ``name__param=value`` for a parameter of an
        estimator that is itself a parameter. Returns ``self``."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, split, inner = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self!r}. Valid"
                                 f" parameters are: {self._get_param_names()!r}.")
            if split:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, inner_params in nested.items():
            valid[name].set_params(**inner_params)
        return self

    def __repr__(self) -> str:
        """``Name(param=value, ...)`` with the parameters that differ from their defaults."""
        defaults = {name: p.default for name, p in
                    inspect.signature(type(self).__init__).parameters.items()}
        changed = [f"{name}={value!r}" for name, value in self.get_params(deep=False).items()
                   if not _same(value, defaults.get(name, inspect.Parameter.empty))]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __getstate__(self) -> dict[str, Any]:
        """The estimator's state: every attribute (parameters, fitted attributes and what a
        fit carries between calls), in the order they were set. What pickling, a checkpoint
        (:mod:`halfspaces._checkpoint`) and :mod:`halfspaces.dask` save and give back."""
        return dict(vars(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Become the estimator whose :meth:`__getstate__` was ``state``: every attribute
        replaced, in ``state``'s order (a saved model numbers its arrays in that order)."""
        attrs = vars(self)
        attrs.clear()
        attrs.update(state)

    def __dir__(self) -> list[str]:
        # without the methods that available_if hides (predict_proba without probability)
        return [name for name in super().__dir__() if hasattr(self, name)]

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``self.predict(X)`` against ``y`` (weighted by
        ``sample_weight``), as scikit-learn's classifiers score (its ``accuracy_score``,
        which checks the labels; plain numeric labels need no check)."""
        predicted = self.predict(X)
        if sample_weight is None and is_discrete(y) and is_discrete(predicted) \
                and y.shape == predicted.shape:
            return float(np.mean(y == predicted))
        from sklearn.metrics import accuracy_score

        return float(accuracy_score(y, predicted, sample_weight=sample_weight))

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags())


def check_is_fitted(estimator: Any, attributes: str | None = None) -> None:
    """Raise scikit-learn's ``NotFittedError`` (its message) unless ``estimator`` is fitted:
    it has the attribute ``attributes`` if given, else an attribute ending in ``_`` set by
    ``fit``, or says so by ``__sklearn_is_fitted__``."""
    if attributes is not None:
        fitted = hasattr(estimator, attributes)
    elif hasattr(estimator, "__sklearn_is_fitted__"):
        fitted = estimator.__sklearn_is_fitted__()
    else:
        fitted = any(name.endswith("_") and not name.startswith("__") for name in vars(estimator))
    if not fitted:
        from sklearn.utils.validation import check_is_fitted as sklearn_check

        sklearn_check(estimator, attributes)


def check_random_state(seed: Any) -> np.random.RandomState:
    """``random_state`` as a RandomState: None gives NumPy's global one, an int a new one
    seeded with it, and a RandomState is returned as it is (scikit-learn's rule)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance;"
                     " pass None, an int or a RandomState.")


def safe_sparse_dot(a, b, *, dense_output: bool = False):
    """``a @ b`` for dense or sparse operands (a dense array when either is dense); with
    ``dense_output``, a dense array always."""
    product = a @ b
    return product.toarray() if dense_output and hasattr(product, "toarray") else product


class ConvergenceWarning(UserWarning):
    """Stands in for scikit-learn's ConvergenceWarning in a process that has not imported
    scikit-learn (see :func:`convergence_warning`)."""


def convergence_warning() -> type[Warning]:
    """The category of the warning of a fit that stopped before it converged.

    scikit-learn's ``ConvergenceWarning`` once scikit-learn is imported: every warnings
    filter, ``pytest.warns`` or ``except`` that names that class has imported it. Before
    that nothing can name it, and :class:`ConvergenceWarning` (a UserWarning, as
    scikit-learn's) stands in, so that a fit from the command line warns without importing
    scikit-learn.
    """
    module = sys.modules.get("sklearn.exceptions")
    return ConvergenceWarning if module is None else module.ConvergenceWarning


class _ConditionalMethod:
    """The descriptor of :func:`available_if`."""

    def __init__(self, fn, check):
        self.fn, self.check = fn, check
        functools.update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        absent = AttributeError(f"This {type(obj).__name__!r} has no attribute"
                                f" {self.fn.__name__!r}")
        try:
            available = self.check(obj)
        except Exception as why:  # the check's own reason, as the cause
            raise absent from why
        if not available:
            raise absent
        return types.MethodType(self.fn, obj)


def available_if(check):
    """Decorator: the method exists on an instance (``hasattr`` is true) only when
    ``check(instance)`` is true; otherwise reading it raises ``AttributeError("This 'Name'
    has no attribute 'method'")``, whose cause is the error ``check`` raised, if any."""
    return functools.partial(_ConditionalMethod, check=check)
