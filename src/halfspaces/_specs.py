"""Value specifications: what a parameter or a model-file attribute may be, declared once.

A :class:`Spec` checks a value in two settings:

- a live constructor parameter: every estimator declares its parameters in a class table
  ``_parameter_constraints = {name: Spec}`` (as scikit-learn's estimators do);
  :func:`validate_params` (``self._validate_params()`` of ``_base.ParamsMixin``) checks each
  parameter, then the class's cross-parameter rules ``_parameter_rules`` (small functions
  of the estimator that raise ``ValueError``);
- a model file (:mod:`halfspaces._schema`): ``structure`` sees the metadata node before any
  array is read, ``check`` the decoded value. A file holds data, never behaviour:
  :meth:`Spec.stored` drops the alternatives that only a live value can take (a callable).

Every message is worded here, by :func:`must_be`::

    PegasosSVC: 'lam' must be a float > 0 (lambda in the Pegasos objective); got -0.1.
      Try a small positive value such as 1e-4.
    PegasosSVC.lam: must be a float > 0 (lambda in the Pegasos objective); got -0.1. ...

``spec.about(meaning, hint)`` adds the parenthesised gloss and the advice. Containers and
arrays (:class:`ListOf`, :class:`Tuple`, and :mod:`halfspaces._file_specs`) check item by item.
"""

from __future__ import annotations

import codecs
import copy
import math
import numbers
import re
from collections.abc import Callable as CallableType
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["SchemaError", "Spec", "Bool", "Int", "Float", "Choice", "Str", "Encoding", "OneOf",
           "ListOf", "Tuple", "Callable", "ByRule", "ClassWeights", "Schema",
           "POSITIVE", "NONE", "must_be", "check_param", "validate_params"]


class SchemaError(Exception):
    """A value breaks its spec; ``where`` names it (``Perceptron.coef_``, ``max_iter``)."""

    plain = False  # "must be <spec>; got <value>." and no more: see OneOf

    def __init__(self, where: str, problem: str):
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}" if where else problem)


def must_be(requirement: str, got: str, hint: str = "") -> str:
    """The one wording of a bad value: ``must be <requirement>; got <got>. <hint>``."""
    return f"must be {requirement}; got {got}." + (f" {hint}" if hint else "")


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    if sp.issparse(value):
        return f"a sparse {value.format} matrix of shape {value.shape}"
    if isinstance(value, dict) and "__array__" in value:  # a metadata node
        dtype = "object" if value.get("object") else np.dtype(value["dtype"]).name
        return f"an array of dtype {dtype} and shape {tuple(value['shape'])}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _plain(node: Any) -> bool:
    """Whether a metadata node is a scalar: JSON, or a NumPy scalar or type."""
    if node is None or isinstance(node, (bool, int, float, str)):
        return True
    return isinstance(node, dict) and bool(node) and set(node) <= {"__scalar__", "v",
                                                                   "__dtype__", "type"}


def _kind(node: Any) -> str:
    """What a metadata node stores, for messages."""
    if isinstance(node, list):
        return "a list"
    if isinstance(node, dict):
        for key, kind in (("__array__", "an array"), ("__sparse__", "a sparse matrix"),
                          ("__tuple__", "a tuple"), ("__set__", "a set"),
                          ("__random_state__", "a RandomState")):
            if key in node:
                return kind
        return f"a {node['__estimator__']}" if "__estimator__" in node else "a dict"
    return repr(node)


def _json_int(node: Any) -> int | None:
    """The int a metadata node holds (plain JSON or a NumPy scalar node), else None."""
    if type(node) is int:
        return node
    if isinstance(node, dict) and set(node) == {"__scalar__", "v"} and type(node["v"]) is int \
            and str(node["__scalar__"])[1:2] in ("i", "u"):
        return node["v"]
    return None


def _is_inf(value: Any) -> bool:
    return isinstance(value, numbers.Real) and math.isinf(value)


class _Dims:
    """Named dimensions: the first value that fixes a name binds it; later ones must agree."""

    def __init__(self):
        self.sizes: dict[str, tuple[int, str]] = {}

    def bind(self, name: str, size: int, where: str, how: str) -> None:
        if name not in self.sizes:
            self.sizes[name] = (size, where)
            return
        have, source = self.sizes[name]
        if have != size:
            raise SchemaError(where, f"{how} makes {name} = {size}, but {source} makes"
                                     f" {name} = {have}.")

    def get(self, name: str) -> int | None:
        return self.sizes[name][0] if name in self.sizes else None

    def copy(self) -> _Dims:
        out = _Dims()
        out.sizes = dict(self.sizes)
        return out


# -- the base class and the scalars ------------------------------------------------------------

class Spec:
    """One declared value. ``check`` sees a value (live, or decoded from a file);
    ``structure`` sees a file's metadata node before any array is read."""

    meaning = ""  # a gloss for messages: "lambda in the Pegasos objective"
    hint = ""  # how to fix a bad value: "Try max_iter=100."

    def describe(self, value: Any = None) -> str:  # pragma: no cover - abstract
        """The requirement, as messages word it (``value``: the one that failed)."""
        raise NotImplementedError

    def about(self, meaning: str = "", hint: str = "") -> Spec:
        """This spec with a gloss and a hint for its messages."""
        out = copy.copy(self)
        out.meaning, out.hint = meaning, hint
        return out

    def stored(self) -> Spec | None:
        """What a model file may hold of this spec (None: nothing; a callable is not data)."""
        return self

    def fits(self, value: Any) -> bool:
        """Whether ``value`` is of this spec's type (its range may still be wrong)."""
        return True

    def fits_node(self, node: Any) -> bool:
        """Whether a metadata node is of this spec's type (a scalar, unless overridden)."""
        return _plain(node)

    def fail(self, where: str, value: Any, why: str = "") -> SchemaError:
        requirement = self.describe(value)
        # a requirement worded for this value ("a finite float" for inf) says it on its own
        if self.meaning and requirement == self.describe():
            requirement += f" ({self.meaning})"
        got = _show(value) + (f" ({why})" if why else "")
        error = SchemaError(where, must_be(requirement, got, self.hint))
        error.plain = not why
        return error

    def structure(self, node: Any, dims: _Dims, where: str) -> None:
        if not self.fits_node(node):
            raise SchemaError(where, f"must be {self.describe()}; the file stores"
                                     f" {_kind(node)} there.")

    def check(self, value: Any, dims: _Dims, where: str) -> None:  # pragma: no cover
        raise NotImplementedError


def _bounds(low, high, low_open=False, high_open=False) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return " and ".join(parts)


def _in_bounds(v, low, high, low_open=False, high_open=False) -> bool:
    if low is not None and not (v > low if low_open else v >= low):
        return False
    return high is None or (v < high if high_open else v <= high)


class Bool(Spec):
    def describe(self, value=None) -> str:
        return "a bool"

    def fits(self, value):
        return isinstance(value, (bool, np.bool_))

    def check(self, value, dims, where):
        if not self.fits(value):
            raise self.fail(where, value)


@dataclass
class Int(Spec):
    """An int in ``[low, high]``; ``dim`` binds a named dimension to its value."""

    low: int | None = None
    high: int | None = None
    dim: str | None = None

    def describe(self, value=None) -> str:
        bounds = _bounds(self.low, self.high)
        return "an int" + (f" {bounds}" if bounds else "")

    def fits(self, value):
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if self.dim is not None:
            self._checked(_json_int(node), node, dims, where)

    def check(self, value, dims, where):
        self._checked(value if self.fits(value) else None, value, dims, where)

    def _checked(self, v, shown, dims, where):
        if v is None or not _in_bounds(int(v), self.low, self.high):
            raise self.fail(where, shown)
        if self.dim is not None:
            dims.bind(self.dim, int(v), where, f"its value {int(v)}")


@dataclass
class Float(Spec):
    """A real number (an int is accepted) in the given bounds, finite unless allowed."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    allow_inf: bool = False
    allow_nan: bool = False

    def describe(self, value=None) -> str:
        bounds = _bounds(self.low, self.high, self.low_open, self.high_open)
        kind = "a finite float" if _is_inf(value) and not self.allow_inf else "a float"
        return kind + (f" {bounds}" if bounds else "") + (" or nan" if self.allow_nan else "")

    def fits(self, value):
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))

    def check(self, value, dims, where):
        if not self.fits(value):
            raise self.fail(where, value)
        v = float(value)
        if math.isnan(v):
            if not self.allow_nan:
                raise self.fail(where, value)
            return
        if (math.isinf(v) and not self.allow_inf) or not _in_bounds(
                v, self.low, self.high, self.low_open, self.high_open):
            raise self.fail(where, value)


class Choice(Spec):
    """One of a few values (of the same type: ``True`` is not ``1``)."""

    def __init__(self, *values):
        self.values = values

    def describe(self, value=None) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def fits(self, value):
        value = value.item() if isinstance(value, np.generic) else value
        return any(type(value) is type(c) for c in self.values)

    def check(self, value, dims, where):
        v = value.item() if isinstance(value, np.generic) else value
        if not any(type(v) is type(c) and v == c for c in self.values):
            raise self.fail(where, value)


@dataclass
class Str(Spec):
    """A string of at most ``max_len`` characters matching ``pattern``."""

    max_len: int = 200
    pattern: str | None = None

    def describe(self, value=None) -> str:
        return f"a string of at most {self.max_len} characters" + (
            f" matching {self.pattern!r}" if self.pattern else "")

    def fits(self, value):
        return isinstance(value, str)

    def check(self, value, dims, where):
        if not self.fits(value) or len(value) > self.max_len or (
                self.pattern and not re.fullmatch(self.pattern, value)):
            raise self.fail(where, value)


class Encoding(Str):
    """A codec name that Python knows (used only to decode bytes documents)."""

    def __init__(self):
        super().__init__(max_len=40, pattern=r"[A-Za-z0-9][A-Za-z0-9_.:-]*")

    def describe(self, value=None) -> str:
        return "the name of a text encoding such as 'utf-8'"

    def check(self, value, dims, where):
        super().check(value, dims, where)
        try:
            codecs.lookup(value)
        except LookupError:
            raise self.fail(where, value, "unknown encoding") from None


class Callable(Spec):
    """A callable: a live parameter only (a model file holds data, never behaviour)."""

    def describe(self, value=None) -> str:
        return "a callable"

    def stored(self):
        return None

    def fits(self, value):
        return callable(value)

    def fits_node(self, node):
        return False

    def check(self, value, dims, where):
        if not callable(value):
            raise self.fail(where, value)


class ByRule(Spec):
    """A parameter that a cross-parameter rule checks together with the ones it depends on
    (``hypotheses`` with ``offsets``); a model file may hold what ``stored`` accepts."""

    def __init__(self, text: str, stored: Spec):
        self.text, self._stored = text, stored

    def describe(self, value=None) -> str:
        return self.text

    def stored(self):
        return self._stored

    def check(self, value, dims, where):
        """Nothing on its own: the class's ``_parameter_rules`` check it."""


class ClassWeights(Spec):
    """A dict ``{label: weight}``, as scikit-learn's ``class_weight``: labels are strings or
    numbers, weights finite numbers ``>= 0``."""

    def describe(self, value=None) -> str:
        return "a dict {label: weight >= 0}"

    def fits(self, value):
        return isinstance(value, dict)

    def fits_node(self, node):
        return isinstance(node, dict) and (isinstance(node.get("__dict__"), list)
                                           or "__strintdict__" in node)

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        for pair in node.get("__dict__", []):
            if not (isinstance(pair, list) and len(pair) == 2 and all(map(_plain, pair))):
                raise SchemaError(where, f"must be {self.describe()}; the file stores"
                                         f" {_kind(pair)} as an entry.")

    def check(self, value, dims, where):
        if not isinstance(value, dict):
            raise self.fail(where, value)
        for label, weight in value.items():
            if not isinstance(label, (str, numbers.Real, np.generic)):
                raise self.fail(where, value, f"the label {_show(label)} is not a string or"
                                              " a number")
            if not (isinstance(weight, numbers.Real) and not isinstance(weight, bool)
                    and math.isfinite(weight) and weight >= 0):
                raise self.fail(where, value, f"the weight of {label!r} is {_show(weight)}")


# -- alternatives and containers -----------------------------------------------------------------

class OneOf(Spec):
    """Any of the alternatives (the first that accepts binds its dimensions). Described as a
    list ("a float > 0, 'auto' or 'calibrate'"; "one of None, 'english' or a list ..." when
    it starts with values)."""

    def __init__(self, *alternatives: Spec):
        self.alternatives = alternatives

    def describe(self, value=None) -> str:
        parts = [p for a in self.alternatives for p in (
            [repr(v) for v in a.values] if type(a) is Choice else [a.describe(value)])]
        text = ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]
        return ("one of " if type(self.alternatives[0]) is Choice else "") + text

    def stored(self):
        stored = [a.stored() for a in self.alternatives]
        if all(s is a for s, a in zip(stored, self.alternatives, strict=True)):
            return self
        kept = [s for s in stored if s is not None]
        return kept[0] if len(kept) == 1 else OneOf(*kept).about(self.meaning, self.hint)

    def fits(self, value):
        return any(a.fits(value) for a in self.alternatives)

    def fits_node(self, node):
        return any(a.fits_node(node) for a in self.alternatives)

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        self._first(lambda a, d: a.structure(node, d, where), dims, node, where,
                    [a for a in self.alternatives if a.fits_node(node)])

    def check(self, value, dims, where):
        self._first(lambda a, d: a.check(value, d, where), dims, value, where,
                    [a for a in self.alternatives if a.fits(value)])

    def _first(self, run, dims, shown, where, candidates):
        """The first candidate (an alternative of the right type) that accepts wins."""
        errors = []
        for alt in candidates:
            trial = dims.copy()
            try:
                run(alt, trial)
            except SchemaError as exc:
                errors.append(exc)
                continue
            dims.sizes = trial.sizes
            return
        if len(errors) == 1 and (errors[0].where != where or not errors[0].plain):
            raise errors[0]  # the one alternative of the right type says what is wrong
        raise self.fail(where, shown)


def _items(node: Any) -> tuple[str, list] | None:
    """``(kind, items)`` of a metadata list, tuple or set node."""
    if isinstance(node, list):
        return "list", node
    if isinstance(node, dict) and isinstance(node.get("__tuple__"), list):
        return "tuple", node["__tuple__"]
    if isinstance(node, dict) and isinstance(node.get("__set__"), list):
        return "set", node["__set__"]
    return None


_KIND_TYPES = {"list": list, "tuple": tuple, "set": (set, frozenset)}


@dataclass
class ListOf(Spec):
    """A list (or, as ``kinds`` allows, a tuple or set) of items of one spec."""

    item: Spec
    kinds: tuple[str, ...] = ("list",)
    min_len: int = 0

    def describe(self, value=None) -> str:
        kinds = " or ".join(self.kinds)
        least = f" of at least {self.min_len}" if self.min_len else ""
        return f"a {kinds}{least} of items, each {self.item.describe()}"

    def stored(self):
        item = self.item.stored()
        return None if item is None else self if item is self.item else ListOf(
            item, self.kinds, self.min_len)

    def fits(self, value):  # a container of the right kind whose first item fits
        return isinstance(value, tuple(_KIND_TYPES[k] for k in self.kinds)) and (
            not isinstance(value, tuple) or "tuple" in self.kinds) and (
            not value or isinstance(value, (set, frozenset)) or self.item.fits(value[0]))

    def fits_node(self, node):
        found = _items(node)
        return found is not None and found[0] in self.kinds and (
            not found[1] or self.item.fits_node(found[1][0]))

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        for i, v in enumerate(_items(node)[1]):
            self.item.structure(v, dims, f"{where}[{i}]")

    def check(self, value, dims, where):
        if not self.fits(value) or len(value) < self.min_len:
            raise self.fail(where, value)
        for i, v in enumerate(value):
            self.item.check(v, dims, f"{where}[{i}]")


class Tuple(Spec):
    """A tuple of fixed length, item by item."""

    def __init__(self, *items: Spec):
        self.items = items

    def describe(self, value=None) -> str:
        return f"a tuple ({', '.join(s.describe() for s in self.items)})"

    def fits(self, value):
        return isinstance(value, tuple)

    def fits_node(self, node):
        found = _items(node)
        return found is not None and found[0] == "tuple"

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        items = _items(node)[1]
        if len(items) != len(self.items):
            raise self.fail(where, f"a tuple of {len(items)} items")
        for i, (spec, v) in enumerate(zip(self.items, items, strict=True)):
            spec.structure(v, dims, f"{where}[{i}]")

    def check(self, value, dims, where):
        if not self.fits(value) or len(value) != len(self.items):
            raise self.fail(where, value)
        for i, (spec, v) in enumerate(zip(self.items, value, strict=True)):
            spec.check(v, dims, f"{where}[{i}]")


POSITIVE = Float(low=0, low_open=True)
NONE = Choice(None)


# -- a class's declarations ------------------------------------------------------------------

Rule = CallableType[[dict, dict, str], None]


@dataclass(frozen=True)
class Schema:
    """What a model file may hold of one class: ``attrs`` in binding order (after the
    parameters); ``required``: what every fitted object has (``required_always``: also an
    unfitted one); ``rules(params, attrs, label)`` check what one spec cannot see.
    ``params``: the constructor parameters of a class that has no ``_parameter_constraints``
    of ours (None: the class's own table)."""

    attrs: dict[str, Spec] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    params: dict[str, Spec] | None = None
    required_always: bool = False


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s constructor parameters against its class's table
    ``_parameter_constraints`` ({name: Spec}), then run its ``_parameter_rules`` (functions
    of the estimator that check parameters together). Raises ``ValueError``::

        Perceptron: 'max_iter' must be an int >= 1 (number of epochs); got 0. Try max_iter=100.
    """
    cls = type(estimator)
    for name, spec in cls._parameter_constraints.items():
        check_param(cls.__name__, name, getattr(estimator, name), spec)
    for rule in getattr(cls, "_parameter_rules", ()):
        rule(estimator)


def check_param(owner: str, name: str, value: Any, spec: Spec) -> None:
    """Check one parameter (or function argument) ``name=value`` of ``owner``."""
    try:
        spec.check(value, _Dims(), name)
    except SchemaError as exc:
        raise ValueError(f"{owner}: '{exc.where}' {exc.problem}") from None
