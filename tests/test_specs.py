"""The value specifications (``halfspaces._specs``) on live parameters: each spec accepts
and refuses what its docstring says, with the one wording of ``must_be``; the tables of the
estimators accept their defaults and refuse a value of a foreign type."""

import re

import numpy as np
import pytest

import halfspaces
from halfspaces import _schema, persistence
from halfspaces._file_specs import Seed
from halfspaces._schema_estimators import ESTIMATOR_SCHEMAS
from halfspaces._specs import (
    NONE,
    Bool,
    ByRule,
    Callable,
    Choice,
    Float,
    Int,
    ListOf,
    OneOf,
    Str,
    Tuple,
    check_param,
    validate_params,
)
from halfspaces._validation import param_error
from halfspaces.kernels import Kernel


def _check(spec, value, name="p"):
    check_param("Owner", name, value, spec)


@pytest.mark.parametrize("spec, value", [
    (Bool(), True), (Bool(), np.bool_(False)),
    (Int(low=1), 1), (Int(low=1, high=3), np.int64(3)),
    (Float(low=0, low_open=True), 1), (Float(low=0, low_open=True), np.float32(0.5)),
    (Float(low=0, allow_inf=True), np.inf), (Float(allow_nan=True), np.nan),
    (Float(low=0, high=1, high_open=True), 0.0),
    (Choice("a", "b"), "b"), (Choice("a", "b"), np.str_("a")), (Choice(1, -1), -1),
    (Str(max_len=3), "abc"), (Str(pattern="[a-z]+"), "word"),
    (OneOf(Float(low=0, low_open=True), NONE), None),
    (OneOf(Float(low=0, low_open=True), Choice("auto")), "auto"),
    (OneOf(Int(low=0), Bool()), True),
    (ListOf(Int(low=0)), [0, 1]), (Tuple(Int(), Int()), (1, 2)),
    (Callable(), len), (Kernel(), "rbf"), (Kernel(), lambda X, Z: X @ Z.T),
    (Seed(), None), (Seed(), 2**32 - 1), (Seed(), np.random.RandomState(0)),
    (ByRule("anything its rule allows", NONE), object()),
])
def test_a_spec_accepts_what_it_declares(spec, value):
    _check(spec, value)


@pytest.mark.parametrize("spec, value, message", [
    (Bool(), 1, "must be a bool; got 1."),
    (Bool(), "yes", "must be a bool; got 'yes'."),
    (Int(low=1), 0, "must be an int >= 1; got 0."),
    (Int(low=1), 2.0, "must be an int >= 1; got 2.0."),
    (Int(low=1), True, "must be an int >= 1; got True."),
    (Int(low=1, high=5), 6, "must be an int >= 1 and <= 5; got 6."),
    (Float(low=0, low_open=True), -1, "must be a float > 0; got -1."),
    (Float(low=0, low_open=True), np.nan, "must be a float > 0; got nan."),
    (Float(low=0, low_open=True), np.inf, "must be a finite float > 0; got inf."),
    (Float(low=0, high=1, high_open=True), 1.0, "must be a float >= 0 and < 1; got 1.0."),
    (Float(), "1.0", "must be a float; got '1.0'."),
    (Choice("auto", "qp"), "smo", "must be one of 'auto', 'qp'; got 'smo'."),
    (Choice(1, -1), True, "must be one of 1, -1; got True."),
    (Str(max_len=3), "abcd", "must be a string of at most 3 characters; got 'abcd'."),
    (OneOf(Float(low=0, low_open=True), NONE), -1.0, "must be a float > 0 or None; got -1.0."),
    (OneOf(Float(low=0, low_open=True), Choice("auto", "calibrate")), np.inf,
     "must be a finite float > 0, 'auto' or 'calibrate'; got inf."),
    (OneOf(Int(low=0), Bool(), Choice("weighted", "suffix")), "median",
     "must be an int >= 0, a bool, 'weighted' or 'suffix'; got 'median'."),
    (OneOf(Choice(None, "english"), ListOf(Str())), 3,
     "must be one of None, 'english' or a list of items, each a string of at most 200"
     " characters; got 3."),
    (Kernel(), "sigmoid", "must be 'linear', 'poly', 'rbf' or a callable; got 'sigmoid'. A"
                          " callable takes (X, Z) and returns the Gram matrix."),
    (Callable(), 3, "must be a callable; got 3."),
    (Seed(), -1, "must be None, an int seed or a RandomState; got -1."),
    (Seed(), 2**32, "must be None, an int seed or a RandomState; got 4294967296."),
])
def test_a_spec_refuses_with_the_one_wording(spec, value, message):
    with pytest.raises(ValueError, match=f"^Owner: 'p' {re.escape(message)}$"):
        _check(spec, value)


def test_a_bad_item_is_named_by_its_position():
    with pytest.raises(ValueError, match=r"^Owner: 'p\[1\]' must be an int >= 0; got -2\.$"):
        _check(ListOf(Int(low=0)), [1, -2])
    with pytest.raises(ValueError, match=r"^Owner: 'p\[0\]' must be an int >= 1 and <= 10;"
                                         r" got 0\.$"):
        _check(OneOf(NONE, Tuple(Int(low=1, high=10), Int())), (0, 1))


def test_about_adds_a_gloss_and_a_hint_to_a_copy():
    lam = Float(low=0, low_open=True)
    glossed = lam.about("lambda in the Pegasos objective", "Try 1e-4.")
    with pytest.raises(ValueError, match=re.escape(
            "Owner: 'p' must be a float > 0 (lambda in the Pegasos objective); got -0.1."
            " Try 1e-4.")):
        _check(glossed, -0.1)
    # an infinite value: the requirement, worded for it, says what is wrong on its own
    with pytest.raises(ValueError, match=re.escape(
            "Owner: 'p' must be a finite float > 0; got inf. Try 1e-4.")):
        _check(glossed, np.inf)
    with pytest.raises(ValueError, match=r"^Owner: 'p' must be a float > 0; got -0\.1\.$"):
        _check(lam, -0.1)


def test_param_error_words_a_message_as_the_specs_do():
    with pytest.raises(ValueError) as from_spec:
        _check(Int(low=1).about("number of epochs", "Try 100."), 0)
    made = param_error("Owner", "p", "an int >= 1 (number of epochs)", 0, "Try 100.")
    assert str(made) == str(from_spec.value)


def test_rules_run_after_every_parameter_passes():
    calls = []

    def rule(estimator):
        calls.append(estimator.a)
        if estimator.a > estimator.b:
            raise ValueError("Owner: 'a' must not exceed 'b'.")

    cls = type("Owner", (), {"_parameter_constraints": {"a": Int(), "b": Int()},
                             "_parameter_rules": (rule,)})
    est = cls()
    est.a, est.b = 1, "x"
    with pytest.raises(ValueError, match="'b' must be an int; got 'x'"):
        validate_params(est)
    assert calls == []
    est.b = 0
    with pytest.raises(ValueError, match="'a' must not exceed 'b'"):
        validate_params(est)
    est.b = 2
    validate_params(est)
    assert calls == [1, 1]


def test_a_file_holds_no_behaviour():
    assert Callable().stored() is None
    assert ListOf(Callable()).stored() is None
    assert isinstance(Kernel().stored(), Choice)
    kernel_or_none = OneOf(Kernel(), NONE).stored()
    assert kernel_or_none.fits("rbf") and kernel_or_none.fits(None)
    assert not kernel_or_none.fits(len)
    lam = OneOf(Float(low=0), NONE)
    assert lam.stored() is lam
    hypotheses = ByRule("an array or callables", ListOf(Int()))
    assert hypotheses.stored() is hypotheses._stored


def _tables() -> list:
    """Each estimator class with its parameter table."""
    tables = []
    for name in ESTIMATOR_SCHEMAS:
        cls = persistence._resolve(name)
        if hasattr(cls, "get_params"):
            tables.append(pytest.param(cls, cls._parameter_constraints, id=name))
    return tables


@pytest.mark.parametrize("cls, table", _tables())
def test_every_estimator_table_accepts_the_defaults(cls, table):
    defaults = cls(**({"hypotheses": np.eye(2)} if "hypotheses" in table else {}))
    assert set(table) == set(defaults.get_params())
    for name, spec in table.items():
        _check(spec, getattr(defaults, name), name)


@pytest.mark.parametrize("cls, table", _tables())
def test_every_estimator_table_refuses_a_foreign_type(cls, table):
    foreign = type("Foreign", (), {"__repr__": lambda self: "<Foreign>"})()
    for name, spec in table.items():
        if isinstance(spec, ByRule):  # its rule says what is wrong
            continue
        with pytest.raises(ValueError, match=rf"^Owner: '{name}' must be .*; got <Foreign>\."):
            _check(spec, foreign, name)


def test_a_file_may_hold_every_parameter_but_callables():
    specs = _schema.param_specs("SVC")
    assert set(specs) == set(persistence._resolve("SVC")().get_params())
    assert not specs["kernel"].fits(len)


@pytest.mark.parametrize("make, name, value", [
    (lambda: halfspaces.SVC(kernel="rbf"), "gamma", np.inf),
    (lambda: halfspaces.SVC(), "coef0", np.inf),
    (lambda: halfspaces.SVC(), "tol", np.inf),
    (lambda: halfspaces.LogisticRegression(), "tol", np.inf),
    (lambda: halfspaces.LogisticRegression(), "eta0", np.inf),
    (lambda: halfspaces.PegasosSVC(), "tol", np.inf),
    (lambda: halfspaces.WeightedMajorityClassifier("precomputed"), "eta", np.inf),
    (lambda: halfspaces.Perceptron(), "random_state", -1),
])
def test_fit_refuses_what_a_model_file_would_refuse(make, name, value):
    # One table checks both: a value that fit accepted but save then refused is refused
    # by fit, in the parameter's words.
    X, y = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0]]), [1, 1, -1, -1]
    est = make().set_params(**{name: value})
    with pytest.raises(ValueError, match=rf"^{type(est).__name__}: '{name}' must be"
                                         rf" .*; got {value!r}\."):
        est.fit(X, y)
