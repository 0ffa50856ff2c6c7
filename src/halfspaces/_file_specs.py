"""Specifications of what only model files hold: dense arrays, ``classes_``, CSR matrices,
vectorizer vocabularies and dtypes, nested objects; shapes in named dimensions (see
:mod:`halfspaces._schema`)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._specs import Int, SchemaError, Spec, _bounds, _Dims, _json_int

__all__ = ["Array", "Classes", "Sparse", "Vocabulary", "Est", "DType", "Seed"]


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

    def describe(self, value=None) -> str:
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

    def describe(self, value=None) -> str:
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

    def describe(self, value=None) -> str:
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


class Vocabulary(Spec):
    """A vectorizer vocabulary ``{term: column}`` whose columns are exactly ``0..n-1``."""

    def __init__(self, dim: str | None = None):
        self.dim = dim

    def describe(self, value=None) -> str:
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


class Est(Spec):
    """An object of one of the named registered classes (checked against its own schema)."""

    def __init__(self, *names: str):
        self.names = names

    def describe(self, value=None) -> str:
        return "a " + " or ".join(self.names)

    def fits(self, value):
        return type(value).__name__ in self.names

    def fits_node(self, node):
        return isinstance(node, dict) and "__estimator__" in node

    #: ``check_structure(node, where)`` of a nested estimator's node against its class's
    #: schema: :mod:`halfspaces._schema`'s, set there (it is built on these specs, and
    #: every check of a file's structure starts there).
    check_nested = None

    def structure(self, node, dims, where):
        super().structure(node, dims, where)
        if node["__estimator__"] not in self.names:
            raise self.fail(where, node["__estimator__"])
        Est.check_nested(node, where)

    def check(self, value, dims, where):
        if not self.fits(value):
            raise self.fail(where, value)


class DType(Spec):
    """A vectorizer's output ``dtype``: a NumPy numeric type."""

    TYPES = (np.float64, np.float32, np.int64, np.int32)

    def describe(self, value=None) -> str:
        return "one of numpy.float64, numpy.float32, numpy.int64, numpy.int32"

    def check(self, value, dims, where):
        if not any(value is t for t in self.TYPES):
            raise self.fail(where, value)


class Seed(Spec):
    """``random_state``: None, a seed in [0, 2**32) or a RandomState (``state_only``: only
    a RandomState)."""

    def __init__(self, state_only: bool = False):
        self.state_only = state_only

    def describe(self, value=None) -> str:
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
