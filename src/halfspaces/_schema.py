"""What a model file may hold: one schema per class that :mod:`halfspaces.persistence` loads.

A model file is data that anyone can write. Its SHA-256 checksum detects accidental damage,
not tampering (anyone can recompute it), so what keeps a crafted file away from the compiled
kernels is this table. For every class of ``persistence.REGISTRY`` it declares

- each constructor parameter: its type and the values allowed. The text vectorizers and the
  Pipeline accept only values that are data, never behaviour: ``input="content"`` (never a
  file name to open), no callables, a ``token_pattern`` from a short list of linear-time
  patterns, no Pipeline ``memory`` folder;
- each attribute that a fitted model (and ``partial_fit``) keeps: type and dtype, shape in
  named dimensions, value ranges (finite weights, non-negative counts, indices in range);
- rules across attributes (support indices below the rows seen, the voted perceptron's
  pointers, a vocabulary that maps onto ``0..n-1``, a Pipeline whose steps agree on the
  number of features, ...).

Anything not declared is refused. :func:`check_structure` checks the metadata tree of a
file, whose dtypes and shapes match the ``.npy`` headers, before any array is decompressed;
:func:`check_values` checks the decoded parameters and attributes of each object before it
is built.

Adding an attribute or a parameter
----------------------------------
One line in the class's table below, e.g. ``"converged_": Bool()``,
``"n_updates_": Int(low=0)`` or, for an array,
``"coef_": Array(F8, ("n_models", "n_features"), finite=True)``. Shapes use named
dimensions: the first value that fixes a name binds it (``n_features_in_`` binds
``n_features``; ``classes_`` binds ``n_classes`` and ``n_models``, which is 1 for two
classes and ``n_classes`` otherwise), in the order of the table (parameters first), and
every later use must agree; ``"n_models+1"`` is one more than ``n_models``. Attributes that
every fitted model has go in ``required``. ``tests/test_model_files.py`` fails for a
constructor parameter that is not declared, and its round trips for an attribute that is not.
"""

from __future__ import annotations

import codecs
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["SchemaError", "SCHEMAS", "check_structure", "check_values", "label"]


class SchemaError(Exception):
    """A value breaks its schema; ``where`` names the attribute (``Perceptron.coef_``)."""

    def __init__(self, where: str, problem: str):
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}" if where else problem)


def label(name: str, where: str) -> str:
    """How messages name an object: ``Perceptron``, or ``Pipeline.steps[1][1] (Perceptron)``."""
    return f"{where} ({name})" if where else name


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


# -- value specifications ----------------------------------------------------------------------

class Spec:
    """One declared value. ``structure`` sees the metadata node before any array is read;
    ``check`` sees the decoded value."""

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def fits(self, value: Any) -> bool:
        """Whether ``value`` is of this spec's type (its range may still be wrong)."""
        return True

    def fits_node(self, node: Any) -> bool:
        """Whether a metadata node is of this spec's type (a scalar, unless overridden)."""
        return _plain(node)

    def fail(self, where: str, value: Any, why: str = "") -> SchemaError:
        return SchemaError(where, f"must be {self.describe()}; got {_show(value)}"
                                  f"{' (' + why + ')' if why else ''}.")

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
    def describe(self) -> str:
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

    def describe(self) -> str:
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

    def describe(self) -> str:
        bounds = _bounds(self.low, self.high, self.low_open, self.high_open)
        kind = "a float" if self.allow_inf else "a finite float"
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

    def describe(self) -> str:
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

    def describe(self) -> str:
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

    def describe(self) -> str:
        return "the name of a text encoding such as 'utf-8'"

    def check(self, value, dims, where):
        super().check(value, dims, where)
        try:
            codecs.lookup(value)
        except LookupError:
            raise self.fail(where, value, "unknown encoding") from None


class OneOf(Spec):
    """Any of the alternatives (the first that accepts binds its dimensions)."""

    def __init__(self, *alternatives: Spec):
        self.alternatives = alternatives

    def describe(self) -> str:
        return " or ".join(a.describe() for a in self.alternatives)

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
        if len(errors) == 1:  # the one alternative of the right type says what is wrong
            raise errors[0]
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

    def describe(self) -> str:
        kinds = " or ".join(self.kinds)
        least = f" of at least {self.min_len}" if self.min_len else ""
        return f"a {kinds}{least} of items, each {self.item.describe()}"

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

    def describe(self) -> str:
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


def _dtype_ok(dt: np.dtype, token: str) -> bool:
    """``token``: an exact native dtype ("f8", "i4", "bool"), a family ("int", "float"), "U"
    (a unicode array) or "O" (an object array, which a file only holds as strings)."""
    if token == "int":
        return dt.kind in "iu" and dt.isnative
    if token == "float":
        return dt.kind == "f" and dt.isnative
    if token == "U":
        return dt.kind == "U" and dt.isnative
    if token == "O":
        return dt == np.dtype(object)
    return dt == np.dtype(token)


def _dim_expr(expr: str) -> tuple[str, int]:
    name, _, plus = expr.partition("+")
    return name, int(plus or 0)


@dataclass
class Array(Spec):
    """A dense array: allowed dtypes, shape in named dimensions (or fixed ints), values.

    Float arrays never hold nan; ``finite`` also refuses inf. ``low``/``high`` bound the
    values, ``below`` names a dimension that every value must be smaller than (indices),
    ``increasing`` asks for strictly increasing values (sorted, unique indices).
    """

    dtypes: tuple[str, ...]
    shape: tuple[str | int, ...]
    finite: bool = False
    low: float | None = None
    high: float | None = None
    below: str | None = None
    increasing: bool = False

    def describe(self) -> str:
        return f"an array of dtype {' or '.join(self.dtypes)} and shape {self._declared()}"

    def fits(self, value):
        return isinstance(value, np.ndarray)

    def fits_node(self, node):
        return isinstance(node, dict) and "__array__" in node

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        dt = np.dtype(object) if node.get("object") else np.dtype(node["dtype"])
        self._dtype_and_shape(dt, tuple(node["shape"]), node, dims, where)

    def _dtype_and_shape(self, dt, shape, shown, dims, where):
        if not any(_dtype_ok(dt, t) for t in self.dtypes):
            raise self.fail(where, shown, f"dtype {dt} is not allowed")
        if len(shape) != len(self.shape):
            raise self.fail(where, shown, f"{len(shape)} dimensions instead of {len(self.shape)}")
        for expr, size in zip(self.shape, shape, strict=True):
            if isinstance(expr, int):
                if size != expr:
                    raise self.fail(where, shown)
                continue
            name, plus = _dim_expr(expr)
            if size < plus:
                raise self.fail(where, shown)
            dims.bind(name, size - plus, where,
                      f"its shape {tuple(shape)} (declared as {self._declared()})")

    def _declared(self) -> str:
        return "(" + ", ".join(map(str, self.shape)) + ("," * (len(self.shape) == 1)) + ")"

    def check(self, value, dims, where):
        if not isinstance(value, np.ndarray):
            raise self.fail(where, value)
        self._dtype_and_shape(value.dtype, value.shape, value, dims, where)
        if value.size == 0:
            return
        if value.dtype == object:
            if not all(isinstance(v, str) for v in value.flat):
                raise self.fail(where, value, "an object array may only hold strings")
            return
        if value.dtype.kind == "f":
            bad = ~np.isfinite(value) if self.finite else np.isnan(value)
            if bad.any():
                what = "non-finite values" if self.finite else "nan"
                raise self.fail(where, value, f"it holds {what} at {np.argwhere(bad)[0].tolist()}")
        if value.dtype.kind not in "biuf":
            return
        if (self.low is not None and value.min() < self.low) or (
                self.high is not None and value.max() > self.high):
            raise self.fail(where, value, f"values must be {_bounds(self.low, self.high)};"
                                          f" they range over [{value.min()}, {value.max()}]")
        limit = dims.get(self.below) if self.below else None
        if limit is not None and value.max() >= limit:
            raise self.fail(where, value, f"values must be < {self.below} = {limit}; the"
                                          f" largest is {value.max()}")
        if self.increasing and np.any(np.diff(value) <= 0):
            raise self.fail(where, value, "values must be strictly increasing")


class Classes(Array):
    """``classes_``: sorted, unique labels, at least two; binds n_classes and n_models."""

    def __init__(self):
        super().__init__(("bool", "int", "float", "U", "O"), ("n_classes",))

    def describe(self) -> str:
        return "a 1-d array of at least 2 sorted, unique labels"

    def _dtype_and_shape(self, dt, shape, shown, dims, where):
        super()._dtype_and_shape(dt, shape, shown, dims, where)
        if shape[0] < 2:
            raise self.fail(where, shown)
        dims.bind("n_models", 1 if shape[0] == 2 else shape[0], where,
                  f"its {shape[0]} classes")

    def check(self, value, dims, where):
        super().check(value, dims, where)
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise self.fail(where, value, "labels must be finite")
        try:
            ok = np.array_equal(np.unique(value), value)
        except TypeError:  # labels that cannot be compared with each other
            ok = False
        if not ok:
            raise self.fail(where, value, "they are not sorted and unique")


_INDEX = ("i4", "i8")


@dataclass
class Sparse(Spec):
    """A CSR matrix of the given data dtypes and 2-d shape (the only sparse format stored)."""

    dtypes: tuple[str, ...]
    shape: tuple[str, str]
    finite: bool = True

    def describe(self) -> str:
        return (f"a CSR matrix of dtype {' or '.join(self.dtypes)} and shape"
                f" ({', '.join(self.shape)})")

    def fits(self, value):
        return sp.issparse(value)

    def fits_node(self, node):
        return isinstance(node, dict) and "__sparse__" in node

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if node.get("__sparse__") != "csr" or node.get("layout") != "csr":
            raise SchemaError(where, f"is a {node.get('__sparse__')} matrix; halfspaces stores"
                                     " sparse attributes in CSR format only.")
        shape = node.get("shape")
        if not (isinstance(shape, list) and len(shape) == 2
                and all(type(s) is int and s >= 0 for s in shape)):
            raise self.fail(where, node, "malformed shape")
        parts = {p: node.get(p) for p in ("data", "indices", "indptr")}
        if not all(isinstance(p, dict) and "__array__" in p for p in parts.values()):
            raise self.fail(where, node, "malformed parts")
        local = _Dims()  # the CSR arrays: data and indices (nnz,), indptr (n_rows + 1,)
        local.bind("n_rows", shape[0], where, f"its shape {tuple(shape)}")
        for p, spec in (("data", Array(self.dtypes, ("nnz",))),
                        ("indices", Array(_INDEX, ("nnz",))),
                        ("indptr", Array(_INDEX, ("n_rows+1",)))):
            spec.structure(parts[p], local, f"{where}.{p}")
        self._bind(tuple(shape), node, dims, where)

    def _bind(self, shape, shown, dims, where):
        for name, size in zip(self.shape, shape, strict=True):
            dims.bind(name, size, where, f"its shape {shape} (declared as"
                                         f" ({', '.join(self.shape)}))")

    def check(self, value, dims, where):
        if not sp.issparse(value) or value.format != "csr":
            raise self.fail(where, value)
        if not any(_dtype_ok(value.dtype, t) for t in self.dtypes):
            raise self.fail(where, value, f"dtype {value.dtype} is not allowed")
        if self.finite and not np.isfinite(value.data).all():
            raise self.fail(where, value, "it holds non-finite values")
        self._bind(value.shape, value, dims, where)


class Est(Spec):
    """An object of one of the named registered classes (checked against its own schema)."""

    def __init__(self, *names: str):
        self.names = names

    def describe(self) -> str:
        return "a " + " or ".join(self.names)

    def fits(self, value):
        return type(value).__name__ in self.names

    def fits_node(self, node):
        return isinstance(node, dict) and "__estimator__" in node

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if node["__estimator__"] not in self.names:
            raise self.fail(where, node["__estimator__"])
        check_structure(node, where)

    def check(self, value, dims, where):
        if not self.fits(value):
            raise self.fail(where, value)


class Vocabulary(Spec):
    """A vectorizer vocabulary ``{term: column}`` whose columns are exactly ``0..n-1``."""

    def __init__(self, dim: str | None = None):
        self.dim = dim

    def describe(self) -> str:
        return "a non-empty dict mapping strings onto the columns 0..n-1, one each"

    def fits(self, value):
        return isinstance(value, dict)

    def fits_node(self, node):
        return isinstance(node, dict) and ("__strintdict__" in node or "__dict__" in node)

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if "__strintdict__" in node:
            keys, values = node["__strintdict__"], node.get("values")
            ok = (isinstance(keys, dict) and isinstance(values, dict)
                  and np.dtype(keys.get("dtype", "|V1")).kind == "U"
                  and np.dtype(values.get("dtype", "|V1")) == np.int64
                  and len(keys.get("shape", ())) == 1
                  and keys.get("shape") == values.get("shape"))
            if not ok:
                raise self.fail(where, node)
            self._bind(keys["shape"][0], dims, where)
        elif isinstance(node["__dict__"], list):
            self._bind(len(node["__dict__"]), dims, where)
        else:
            raise self.fail(where, node)

    def _bind(self, n, dims, where):
        if self.dim is not None:
            dims.bind(self.dim, n, where, f"its {n} terms")

    def check(self, value, dims, where):
        if not isinstance(value, dict) or not value:
            raise self.fail(where, value)
        if not all(isinstance(k, str) for k in value) or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool)
                for v in value.values()):
            raise self.fail(where, value, "terms must be strings and columns ints")
        columns = np.sort(np.fromiter(value.values(), dtype=np.int64, count=len(value)))
        if not np.array_equal(columns, np.arange(len(value))):
            raise self.fail(where, value, "the columns are not 0..n-1, each once")
        self._bind(len(value), dims, where)


class Seed(Spec):
    """``random_state``: None, a seed in [0, 2**32) or a RandomState (``state_only``: only
    a RandomState)."""

    def __init__(self, state_only: bool = False):
        self.state_only = state_only

    def describe(self) -> str:
        return "a RandomState" if self.state_only else "None, an int seed or a RandomState"

    def fits(self, value):
        return True

    def fits_node(self, node):
        return node is None or _json_int(node) is not None or (
            isinstance(node, dict) and "__random_state__" in node)

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if isinstance(node, dict) and "__random_state__" in node:
            Array(("u4",), (624,)).structure(node["__random_state__"], _Dims(), where)

    def check(self, value, dims, where):
        if isinstance(value, np.random.RandomState):
            return
        if self.state_only or not (value is None or (
                Int().fits(value) and 0 <= value < 2**32)):
            raise self.fail(where, value)


class DType(Spec):
    """A vectorizer's output ``dtype``: a NumPy numeric type."""

    TYPES = (np.float64, np.float32, np.int64, np.int32)

    def describe(self) -> str:
        return "one of numpy.float64, numpy.float32, numpy.int64, numpy.int32"

    def check(self, value, dims, where):
        if not any(value is t for t in self.TYPES):
            raise self.fail(where, value)


# -- schemas -----------------------------------------------------------------------------------

Rule = Callable[[dict, dict, str], None]


@dataclass(frozen=True)
class Schema:
    """``params`` and ``attrs`` in binding order; ``required``: what every fitted object has
    (``required_always``: also an unfitted one); ``rules(params, attrs, label)`` check
    what one spec cannot see."""

    params: dict[str, Spec]
    attrs: dict[str, Spec] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    required_always: bool = False


F8 = ("f8",)
F48 = ("f8", "f4")
I8 = ("i8",)
COUNT = Int(low=0)
WEIGHTS = Array(F8, ("n_models", "n_features"), finite=True)
OFFSETS = Array(F8, ("n_models",), finite=True)
KERNEL = Choice("linear", "poly", "rbf")
GAMMA = OneOf(Choice("scale", "auto"), Float(low=0, low_open=True))
POSITIVE = Float(low=0, low_open=True)
NONE = Choice(None)
SUPPORT_VECTORS = OneOf(Array(F48, ("n_support", "n_features"), finite=True),
                        Sparse(F48, ("n_support", "n_features")))
SUPPORT = Array(I8, ("n_support",), low=0, increasing=True)

_FEATURES = {
    "n_features_in_": Int(low=1, dim="n_features"),
    "feature_names_in_": Array(("O",), ("n_features",)),
}
_CLASSIFIER = {**_FEATURES, "classes_": Classes()}
_ONLINE = {
    **_CLASSIFIER,
    "t_": COUNT, "n_mistakes_": COUNT, "n_iter_": COUNT,
    "mistakes_per_epoch_": ListOf(COUNT), "converged_": Bool(),
}
_ONLINE_REQUIRED = ("n_features_in_", "classes_", "t_", "n_mistakes_", "n_iter_",
                    "mistakes_per_epoch_")
_PERCEPTRON_PARAMS = {"fit_intercept": Bool(), "max_iter": Int(low=1), "shuffle": Bool(),
                      "random_state": Seed(), "warm_start": Bool()}
_KERNEL_PARAMS = {"kernel": KERNEL, "gamma": GAMMA, "degree": Int(low=0), "coef0": Float()}
_PEGASOS_PARAMS = {
    "lam": POSITIVE, "max_iter": Int(low=1), "n_iter": OneOf(NONE, Int(low=1)),
    "batch_size": Int(low=1), "learning_rate": Choice("pegasos", "notes", "constant", "offset"),
    "eta0": OneOf(Choice("auto", "calibrate"), POSITIVE),
    "t0": OneOf(Choice("auto"), Float(low=0)), "projection": Bool(), "fit_intercept": Bool(),
    "intercept_decay": OneOf(Choice("auto"), POSITIVE),
    "average": OneOf(Bool(), Choice("weighted", "suffix"), Int(low=0)),
    "sampling": Choice("permutation", "uniform", "cyclic"), "random_state": Seed(),
    "tol": OneOf(NONE, Float(low=0)), "record_objective": Bool()}
_PEGASOS_ATTRS = {
    "intercept_": OFFSETS, "_suffix_start": Float(low=0), "intercept_decay_": POSITIVE,
    "eta0_": POSITIVE,
    "objective_history_": OneOf(Array(F8, ("n_epochs",)), Array(F8, ("n_epochs", "n_models")))}


def _together(*groups: tuple[str, ...]) -> Rule:
    """Each group of attributes is stored whole or not at all, and a fitted model has one."""
    def rule(params, attrs, where):
        present = [g for g in groups if any(a in attrs for a in g)]
        for g in present:
            missing = [a for a in g if a not in attrs]
            if missing:
                raise SchemaError(f"{where}.{missing[0]}", f"is missing, while"
                                  f" {', '.join(a for a in g if a in attrs)} are stored.")
        if attrs and not present:
            raise SchemaError(f"{where}.{groups[0][0]}", "is missing from a fitted model.")
    return rule


def _binary(params, attrs, where):
    classes = attrs.get("classes_")
    if classes is not None and classes.size != 2:
        raise SchemaError(f"{where}.classes_", f"holds {classes.size} classes; this learner is"
                                               " binary.")


def _hypotheses(params, attrs, where):
    """The hypothesis class agrees with n_hypotheses_ and n_features_in_."""
    h, offsets = params.get("hypotheses"), params.get("offsets")
    d, n = attrs.get("n_features_in_"), attrs.get("n_hypotheses_")
    if h is None:  # the constructor will say that it is missing
        return
    if isinstance(h, str):  # "precomputed": the columns of X are the hypotheses
        if offsets is not None:
            raise SchemaError(f"{where}.offsets", "must be None with hypotheses='precomputed'.")
        size = d
    elif isinstance(h, np.ndarray) or (h and not Est("CoordinateStump").fits(h[0])):
        try:
            W = np.asarray(h, dtype=np.float64)
        except ValueError:  # ragged lists
            raise SchemaError(f"{where}.hypotheses", "must be a rectangular (n_hypotheses,"
                              " n_features) table of numbers.") from None
        if W.ndim != 2 or (d is not None and W.shape[1] != d):
            raise SchemaError(f"{where}.hypotheses", f"has shape {W.shape}; it must be"
                              f" (n_hypotheses, n_features) with n_features = {d}.")
        size = W.shape[0]
    else:
        size = len(h)
        for i, stump in enumerate(h):
            if d is not None and not -d <= stump.feature < d:
                raise SchemaError(f"{where}.hypotheses[{i}].feature", f"is {stump.feature},"
                                  f" outside the {d} features.")
    if offsets is not None and len(offsets) != size:
        raise SchemaError(f"{where}.offsets", f"holds {len(offsets)} offsets for {size}"
                                              " hypotheses.")
    if n is not None and size is not None and n != size:
        raise SchemaError(f"{where}.n_hypotheses_", f"is {n}, but the hypotheses parameter"
                                                    f" gives {size} hypotheses.")


def _version_space(params, attrs, where):
    V = attrs.get("version_space_")
    if V is not None and not V.any():
        raise SchemaError(f"{where}.version_space_", "is empty; Halving never stores an empty"
                                                     " version space.")


def _voted_storage(params, attrs, where):
    """The voted perceptron's stored mistakes: model k owns rows ptr[k]:ptr[k+1] and counts
    ptr[k]+k .. ptr[k+1]+k; the rows are CSR (indptr from 0 to nnz)."""
    if "mistake_ptr_" not in attrs:
        return
    n_stored, nnz = attrs["mistake_y_"].size, attrs["mistake_data_"].size
    for name, end in (("mistake_ptr_", n_stored), ("mistake_indptr_", nnz)):
        p = attrs[name]
        if p[0] != 0 or p[-1] != end or np.any(np.diff(p) < 0):
            raise SchemaError(f"{where}.{name}", f"must rise from 0 to {end} without"
                                                 " decreasing.")
    n_models = attrs["mistake_ptr_"].size - 1
    if attrs["vote_counts_"].size != n_stored + n_models:
        raise SchemaError(f"{where}.vote_counts_", f"holds {attrs['vote_counts_'].size}"
                          f" counts; {n_stored} stored mistakes and n_models = {n_models} need"
                          f" {n_stored + n_models}.")
    if not np.all(np.abs(attrs["mistake_y_"]) == 1.0):
        raise SchemaError(f"{where}.mistake_y_", "must hold labels -1 and +1 only.")
    if not np.all(np.isin(attrs["mistake_b_"], (-1.0, 0.0, 1.0))):
        raise SchemaError(f"{where}.mistake_b_", "must hold offset steps -1, 0 and +1 only.")


def _pegasos_state(params, attrs, where):
    """The state of every binary problem; without averaging the sums ``_u`` are empty."""
    _together(("_v", "_u", "_scalars", "coef_"))(params, attrs, where)
    if "_u" in attrs:
        average = params.get("average", "suffix")
        averaging = not (isinstance(average, (bool, np.bool_)) and not average)
        width = attrs["_v"].shape[1] if averaging else 0
        if attrs["_u"].shape[1] != width:
            raise SchemaError(f"{where}._u", f"has shape {attrs['_u'].shape}; with"
                              f" average={average!r} it must have {width} columns.")


def _svc_kernel(params, attrs, where):
    """A linear SVC keeps coef_, a kernel one gamma_ (and no coef_); the support vectors
    and dual coefficients are kept unless halfspaces.dask.fit trained it by CoCoA+ (whose
    dual variables stay on the workers)."""
    if not attrs:
        return
    linear = params.get("kernel", "linear") == "linear"
    local = attrs.get("solver_") != "cocoa+"
    for name, wanted in (("coef_", linear), ("gamma_", not linear), ("support_", local),
                         ("support_vectors_", local), ("dual_coef_", local)):
        if (name in attrs) != wanted:
            what = "is missing" if wanted else "must not be stored"
            raise SchemaError(f"{where}.{name}", f"{what} with kernel={params.get('kernel')!r}"
                                                 f" and solver_={attrs.get('solver_')!r}.")


def _ngram_range(params, attrs, where):
    lo, hi = params.get("ngram_range", (1, 1))
    if lo > hi:
        raise SchemaError(f"{where}.ngram_range", f"is {(lo, hi)}; the first must not exceed"
                                                  " the second.")


def _tfidf_width(params, attrs, where):
    tfidf, vocabulary = attrs.get("_tfidf"), attrs.get("vocabulary_")
    width = getattr(tfidf, "n_features_in_", None)
    if vocabulary is not None and width is not None and width != len(vocabulary):
        raise SchemaError(f"{where}._tfidf", f"was fitted on {width} features but the"
                                             f" vocabulary has {len(vocabulary)} terms.")


_VECTORIZERS = ("HashingVectorizer", "CountVectorizer", "TfidfVectorizer")
_ESTIMATORS = ("Perceptron", "AveragedPerceptron", "VotedPerceptron", "PegasosSVC", "SVC",
               "LogisticRegression", "LPSeparator", "KernelPerceptron", "KernelPegasosSVC",
               "HalvingClassifier", "WeightedMajorityClassifier")


def _pipeline_steps(params, attrs, where):
    """A text vectorizer, optional TfidfTransformers, then one of our estimators, agreeing
    on the number of features."""
    steps = params.get("steps", [])
    names = [name for name, _ in steps]
    for i, name in enumerate(names):
        if "__" in name or not name or names.index(name) != i:
            raise SchemaError(f"{where}.steps[{i}][0]", f"{name!r} is not a unique step name"
                                                        " without '__'.")
    roles = [_VECTORIZERS] + [("TfidfTransformer",)] * (len(steps) - 2) + [_ESTIMATORS]
    width = None
    for i, ((_, step), allowed) in enumerate(zip(steps, roles, strict=True)):
        here = f"{where}.steps[{i}][1]"
        if type(step).__name__ not in allowed:
            raise SchemaError(here, f"is a {type(step).__name__}; a saved Pipeline is a text"
                                    " vectorizer, optional TfidfTransformers, then a"
                                    " halfspaces estimator.")
        seen = getattr(step, "n_features_in_", None)
        if i > 0 and None not in (seen, width) and seen != width:
            raise SchemaError(f"{here}.n_features_in_", f"is {seen}, but the step before it"
                                                        f" outputs {width} features.")
        if i == 0:
            width = step.n_features if hasattr(step, "n_features") else (
                len(step.vocabulary_) if hasattr(step, "vocabulary_") else None)


#: The token patterns a saved vectorizer may use: scikit-learn's default (words of 2+
#: characters) and words of 1+ characters. Both run in linear time.
TOKEN_PATTERNS = (r"(?u)\b\w\w+\b", r"(?u)\b\w+\b")
#: Longest n-gram: the n-grams of a document grow with n times its length.
MAX_NGRAM = 10

_TEXT_PARAMS = {
    "input": Choice("content"),
    "encoding": Encoding(),
    "decode_error": Choice("strict", "ignore", "replace"),
    "strip_accents": Choice(None, "ascii", "unicode"),
    "lowercase": Bool(),
    "preprocessor": NONE,
    "tokenizer": NONE,
    "analyzer": Choice("word", "char", "char_wb"),
    "stop_words": OneOf(Choice(None, "english"),
                        ListOf(Str(max_len=100), kinds=("list", "tuple", "set"))),
    "token_pattern": Choice(*TOKEN_PATTERNS),
    "ngram_range": Tuple(Int(low=1, high=MAX_NGRAM), Int(low=1, high=MAX_NGRAM)),
    "binary": Bool(),
    "dtype": DType(),
}
_COUNT_PARAMS = {
    **_TEXT_PARAMS,
    "max_df": OneOf(Float(low=0, high=1), Int(low=1)),
    "min_df": OneOf(Float(low=0, high=1), Int(low=1)),
    "max_features": OneOf(NONE, Int(low=1)),
    "vocabulary": OneOf(NONE, Vocabulary(), ListOf(Str(max_len=1000), kinds=("list", "tuple",
                                                                          "set"))),
}
_TFIDF_PARAMS = {"norm": Choice("l1", "l2", None), "use_idf": Bool(), "smooth_idf": Bool(),
                 "sublinear_tf": Bool()}
_VOCABULARY_ATTRS = {"vocabulary_": Vocabulary(dim="n_features"), "fixed_vocabulary_": Bool(),
                     "_stop_words_id": Int()}
_HYPOTHESES = OneOf(
    Choice("precomputed"),
    Array(("float", "int", "bool"), ("n_hypotheses", "n_features"), finite=True),
    ListOf(Est("CoordinateStump"), kinds=("list", "tuple"), min_len=1),
    ListOf(ListOf(Float(), kinds=("list", "tuple"), min_len=1), kinds=("list", "tuple"),
           min_len=1),
)
_OFFSETS = OneOf(NONE, Array(("float", "int"), ("n_hypotheses",), finite=True),
                 ListOf(Float(), kinds=("list", "tuple")))
_EXPERTS = {**_ONLINE, "n_hypotheses_": Int(low=1, dim="n_hypotheses")}

SCHEMAS: dict[str, Schema] = {
    "Perceptron": Schema(
        _PERCEPTRON_PARAMS,
        {**_ONLINE, "coef_": WEIGHTS, "intercept_": OFFSETS},
        _ONLINE_REQUIRED + ("coef_", "intercept_")),
    "AveragedPerceptron": Schema(
        _PERCEPTRON_PARAMS,
        {**_ONLINE, "coef_": WEIGHTS, "intercept_": OFFSETS,
         "current_coef_": WEIGHTS, "current_intercept_": OFFSETS,
         "weighted_coef_sum_": WEIGHTS, "weighted_intercept_sum_": OFFSETS},
        _ONLINE_REQUIRED + ("coef_", "intercept_", "current_coef_", "current_intercept_",
                            "weighted_coef_sum_", "weighted_intercept_sum_")),
    "VotedPerceptron": Schema(
        _PERCEPTRON_PARAMS,
        {**_ONLINE, "current_coef_": WEIGHTS, "current_intercept_": OFFSETS,
         "vote_counts_": Array(F8, ("n_votes",), finite=True, low=0),
         "mistake_ptr_": Array(I8, ("n_models+1",)),
         "mistake_data_": Array(F8, ("nnz",), finite=True),
         "mistake_indices_": Array(("i4", "i8"), ("nnz",), low=0, below="n_features"),
         "mistake_indptr_": Array(I8, ("n_stored+1",)),
         "mistake_y_": Array(F8, ("n_stored",)),
         "mistake_b_": Array(F8, ("n_stored",))},
        _ONLINE_REQUIRED + ("current_coef_", "current_intercept_", "vote_counts_",
                            "mistake_ptr_", "mistake_data_", "mistake_indices_",
                            "mistake_indptr_", "mistake_y_", "mistake_b_"),
        (_voted_storage,)),
    "KernelPerceptron": Schema(
        {**_KERNEL_PARAMS, "fit_intercept": Bool(), "max_iter": Int(low=1), "shuffle": Bool(),
         "random_state": Seed()},
        {**_ONLINE, "gamma_": OneOf(NONE, POSITIVE),
         "n_rows_seen_": Int(low=0, dim="n_rows"),
         "support_vectors_": SUPPORT_VECTORS,
         "support_": Array(I8, ("n_support",), low=0, below="n_rows", increasing=True),
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True),
         "alpha_": Array(I8, ("n_models", "n_support"), low=0),
         "intercept_": OFFSETS},
        _ONLINE_REQUIRED + ("gamma_", "n_rows_seen_", "support_vectors_", "support_",
                            "dual_coef_", "alpha_", "intercept_")),
    "PegasosSVC": Schema(
        {**_PEGASOS_PARAMS, "kernel": NONE, "warm_start": Bool()},
        {**_ONLINE, **_PEGASOS_ATTRS,
         "_v": WEIGHTS, "_u": Array(F8, ("n_models", "n_averaged"), finite=True),
         "_scalars": Array(F8, ("n_models", 6), finite=True),  # PegasosState after t
         "coef_": WEIGHTS},
        _ONLINE_REQUIRED + ("intercept_",),
        (_pegasos_state,)),
    "KernelPegasosSVC": Schema(
        {**_PEGASOS_PARAMS, **_KERNEL_PARAMS},
        {**_CLASSIFIER, **_PEGASOS_ATTRS,
         "t_": COUNT, "n_mistakes_": COUNT, "n_iter_": COUNT,
         "mistakes_per_epoch_": ListOf(COUNT),
         "gamma_": Float(low=0, low_open=True, allow_nan=True),  # nan: the linear kernel
         "alpha_": Array(I8, ("n_models", "n_train"), low=0),
         "support_vectors_": SUPPORT_VECTORS,
         "support_": Array(I8, ("n_support",), low=0, below="n_train", increasing=True),
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True)},
        _ONLINE_REQUIRED + ("intercept_", "gamma_", "alpha_", "support_vectors_", "support_",
                            "dual_coef_")),
    "SVC": Schema(
        {"C": Float(low=0, low_open=True, allow_inf=True), "lam": OneOf(NONE, POSITIVE),
         **_KERNEL_PARAMS, "fit_intercept": Bool(), "solver": Choice("auto", "qp", "dcd"),
         "loss": Choice("hinge", "squared_hinge"), "tol": POSITIVE, "max_iter": Int(low=1),
         "shrinking": Bool(), "random_state": Seed(), "verbose": Bool()},
        {**_CLASSIFIER, "C_": Float(low=0, low_open=True, allow_inf=True),
         "solver_": Choice("qp", "dcd", "cocoa+"), "coef_": WEIGHTS, "gamma_": POSITIVE,
         "intercept_": OFFSETS, "support_": SUPPORT, "support_vectors_": SUPPORT_VECTORS,
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True),
         **dict.fromkeys(("margin_", "objective_", "duality_gap_"),
                         OneOf(Float(low=0, allow_inf=True), Array(F8, ("n_models",), low=0))),
         "n_iter_": COUNT},
        ("n_features_in_", "classes_", "C_", "solver_", "intercept_", "margin_", "objective_",
         "duality_gap_", "n_iter_"),
        (_svc_kernel,)),
    "LogisticRegression": Schema(
        {"C": POSITIVE, "lam": OneOf(NONE, POSITIVE), "fit_intercept": Bool(),
         "max_iter": Int(low=1), "tol": POSITIVE, "solver": Choice("lbfgs"),
         "eta0": OneOf(Choice("auto"), POSITIVE), "warm_start": Bool()},
        {**_ONLINE, "coef_": WEIGHTS, "intercept_": OFFSETS, "eta0_": POSITIVE,
         "objective_": OneOf(Float(low=0), Array(F8, ("n_models",), finite=True, low=0))},
        _ONLINE_REQUIRED + ("coef_", "intercept_")),
    "LPSeparator": Schema(
        {"fit_intercept": Bool(), "on_infeasible": Choice("raise", "least_violation")},
        {**_CLASSIFIER, "coef_": WEIGHTS, "intercept_": OFFSETS,
         "separable_": Array(("bool",), ("n_models",)),
         "certificates_": Sparse(F8, ("n_models", "n_samples"))},
        ("n_features_in_", "classes_", "coef_", "intercept_", "separable_", "certificates_")),
    "HalvingClassifier": Schema(
        {"hypotheses": _HYPOTHESES, "offsets": _OFFSETS},
        {**_EXPERTS, "version_space_": Array(("bool",), ("n_hypotheses",))},
        _ONLINE_REQUIRED + ("n_hypotheses_", "version_space_"),
        (_binary, _hypotheses, _version_space)),
    "WeightedMajorityClassifier": Schema(
        {"hypotheses": _HYPOTHESES, "beta": Float(low=0, high=1, high_open=True),
         "randomized": Bool(), "eta": OneOf(NONE, POSITIVE), "random_state": Seed(),
         "offsets": _OFFSETS},
        {**_EXPERTS, "beta_": Float(low=0, high=1, high_open=True),
         "expert_mistakes_": Array(I8, ("n_hypotheses",), low=0),
         "expected_mistakes_": Float(low=0), "_rng": Seed(state_only=True),
         "log_weights_": Array(F8, ("n_hypotheses",), high=0),
         "weights_": Array(F8, ("n_hypotheses",), finite=True, low=0, high=1)},
        _ONLINE_REQUIRED + ("n_hypotheses_", "beta_", "expert_mistakes_", "expected_mistakes_",
                            "_rng", "log_weights_", "weights_"),
        (_binary, _hypotheses)),
    "CoordinateStump": Schema(
        {}, {"feature": Int(), "threshold": Float(), "sign": Choice(1, -1)},
        ("feature", "threshold", "sign"), required_always=True),
    "Pipeline": Schema(
        {"steps": ListOf(Tuple(Str(max_len=100), Est(*_VECTORIZERS, "TfidfTransformer",
                                                     *_ESTIMATORS)), min_len=2),
         "memory": NONE, "transform_input": NONE, "verbose": Bool()},
        rules=(_pipeline_steps,)),
    "HashingVectorizer": Schema(
        {**_TEXT_PARAMS, "n_features": Int(low=1, high=2**31 - 1), "alternate_sign": Bool(),
         "norm": Choice("l1", "l2", None)},
        {"_stop_words_id": Int()}, rules=(_ngram_range,)),
    "CountVectorizer": Schema(
        _COUNT_PARAMS, _VOCABULARY_ATTRS, ("vocabulary_", "fixed_vocabulary_"),
        (_ngram_range,)),
    "TfidfVectorizer": Schema(
        {**_COUNT_PARAMS, **_TFIDF_PARAMS},
        {**_VOCABULARY_ATTRS, "_tfidf": Est("TfidfTransformer")},
        ("vocabulary_", "fixed_vocabulary_", "_tfidf"), (_ngram_range, _tfidf_width)),
    "TfidfTransformer": Schema(
        _TFIDF_PARAMS,
        {**_FEATURES, "idf_": Array(F8, ("n_features",), finite=True)},
        ("n_features_in_",)),
}


# -- the two passes ------------------------------------------------------------------------------

def _schema_of(node: Any, where: str) -> tuple[str, Schema, dict, dict]:
    name = node.get("__estimator__") if isinstance(node, dict) else None
    if not isinstance(name, str) or name not in SCHEMAS:
        raise SchemaError(where, f"unknown estimator {name!r}; a model file may only name one"
                                 f" of {', '.join(sorted(SCHEMAS))}. Refusing to import"
                                 " anything else.")
    params, attrs = node.get("params"), node.get("attrs")
    if not isinstance(params, dict) or not isinstance(attrs, dict):
        raise SchemaError(label(name, where), "the metadata's estimator entry is malformed.")
    return name, SCHEMAS[name], params, attrs


def _unknown(name: str, schema: Schema, params: dict, attrs: dict, here: str) -> None:
    for key in params:
        if key not in schema.params:
            raise SchemaError(f"{here}.{key}", f"is not a parameter of {name}.")
    for key in attrs:
        if key not in schema.attrs:
            raise SchemaError(f"{here}.{key}", f"is not an attribute that a saved {name}"
                                               " holds; a model file holds only the declared"
                                               " ones.")


def check_structure(node: dict, where: str = "") -> None:
    """Check an estimator node of a file's metadata (and those inside it) against the
    schemas, from the dtypes and shapes the metadata records: before any array is read."""
    name, schema, params, attrs = _schema_of(node, where)
    here = label(name, where)
    _unknown(name, schema, params, attrs, here)
    dims = _Dims()
    for values, specs in ((params, schema.params), (attrs, schema.attrs)):
        for key, spec in specs.items():
            if key in values:
                spec.structure(values[key], dims, f"{here}.{key}")


def check_values(name: str, params: dict, attrs: dict, where: str = "") -> None:
    """Check the decoded parameters and attributes of one object before it is built."""
    schema = SCHEMAS[name]
    here = label(name, where)
    _unknown(name, schema, params, attrs, here)
    if attrs or schema.required_always:
        for key in schema.required:
            if key not in attrs:
                raise SchemaError(f"{here}.{key}", f"is missing: every fitted {name} has it.")
    dims = _Dims()
    for values, specs in ((params, schema.params), (attrs, schema.attrs)):
        for key, spec in specs.items():
            if key in values:
                spec.check(values[key], dims, f"{here}.{key}")
    for rule in schema.rules:
        rule(params, attrs, here)
