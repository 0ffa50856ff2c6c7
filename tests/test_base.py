"""Our estimator base against scikit-learn's: the same parameters, nested names, repr,
clone, score and tags, on twin classes that differ only in their base."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.utils import get_tags

from halfspaces._base import (
    ClassifierBase,
    ConvergenceWarning,
    check_random_state,
    convergence_warning,
)


class _Toy:
    def __init__(self, a=1, inner=None, *, c=np.nan, d="x"):
        self.a, self.inner, self.c, self.d = a, inner, c, d

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.where(np.asarray(X)[:, 0] >= 0, self.classes_[1], self.classes_[0])


class Ours(_Toy, ClassifierBase):
    pass


class Theirs(_Toy, ClassifierMixin, BaseEstimator):
    pass


def _pair(**params):
    inner = params.pop("inner", None)
    return (Ours(inner=None if inner is None else Ours(**inner), **params),
            Theirs(inner=None if inner is None else Theirs(**inner), **params))


@pytest.mark.parametrize("params", [{}, {"a": 2, "d": "y"}, {"c": 0.5},
                                    {"inner": {"a": 3}, "a": 0}])
def test_parameters_and_repr_as_sklearn(params):
    ours, theirs = _pair(**params)
    assert ours.get_params(deep=False).keys() == theirs.get_params(deep=False).keys()
    assert list(ours.get_params()) == list(theirs.get_params())
    assert repr(ours).replace("Ours", "T") == repr(theirs).replace("Theirs", "T")
    ours.set_params(a=7, d="z")
    theirs.set_params(a=7, d="z")
    if params.get("inner"):
        ours.set_params(inner__a=9, inner__d="w")
        theirs.set_params(inner__a=9, inner__d="w")
        assert (ours.inner.a, ours.inner.d) == (theirs.inner.a, theirs.inner.d) == (9, "w")
    plain = [{k: v for k, v in est.get_params().items() if k != "inner" and k != "c"}
             for est in (ours, theirs)]
    assert plain[0] == plain[1]
    assert ours.set_params() is ours
    for bad in ({"b": 1}, {"b__a": 1}):
        with pytest.raises(ValueError, match="Invalid parameter 'b' for estimator"):
            ours.set_params(**bad)


def test_clone_score_and_tags_as_sklearn():
    X = np.array([[1.0], [-1.0], [2.0], [-3.0]])
    y = np.array([1, 0, 0, 0])
    ours, theirs = _pair(a=5, inner={"a": 2})
    copy = clone(ours)
    assert type(copy) is Ours and copy is not ours and copy.inner is not ours.inner
    assert copy.get_params(deep=False).keys() == ours.get_params(deep=False).keys()
    assert copy.a == 5 and copy.inner.a == 2
    ours.fit(X, y)
    theirs.fit(X, y)
    assert ours.score(X, y) == theirs.score(X, y) == 0.75
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    assert ours.score(X, y, weights) == theirs.score(X, y, weights)
    for est in (ours, theirs):  # labels of another type: scikit-learn's check says so
        with pytest.raises(ValueError, match="Mix of label input types"):
            est.score(X, y.astype(str).astype(object))
    assert is_classifier(ours) and get_tags(ours) == get_tags(theirs)


def test_check_random_state_and_convergence_warning():
    assert check_random_state(None) is np.random.mtrand._rand
    rs = np.random.RandomState(3)
    assert check_random_state(rs) is rs
    assert check_random_state(4).randint(100) == np.random.RandomState(4).randint(100)
    with pytest.raises(ValueError, match="cannot be used to seed"):
        check_random_state("seed")
    # scikit-learn is imported here: its class, so that its filters and pytest.warns see it
    assert convergence_warning() is SkConvergenceWarning
    assert issubclass(ConvergenceWarning, UserWarning)
