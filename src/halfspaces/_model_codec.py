"""The JSON tree of a model file: Python objects <-> a JSON tree plus named arrays.

:mod:`halfspaces.persistence` writes and reads the file (the zip archive, its checksum and
the order of the checks); this module turns an estimator into the tree that the file's
``__meta__`` entry holds, and a checked tree back into an estimator. :class:`_Encoder`
refuses anything that is not data (code, arbitrary objects); :class:`_Decoder` builds only
the classes of :data:`REGISTRY`, each from values that its schema in
:mod:`halfspaces._schema` accepts.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _schema
from ._schema import REGISTRY, SchemaError

# Reports of how a model was fitted, not state the model needs: never written to a model
# file (halfspaces.dask.fit's per-round history holds one array per round).
_RUN_REPORTS = ("dask_history_",)
# What _Encoder._numpy stores (with SciPy's sparse matrices and NumPy's scalar types).
_NUMPY = (np.generic, np.ndarray, np.dtype, np.random.RandomState)

def _resolve(name: str):
    """The registered class called ``name`` (imports only modules named in REGISTRY)."""
    module = REGISTRY.get(name)
    if module is None:
        return None
    return getattr(importlib.import_module(module), name, None)


def _array_nodes(node: Any, where: str):
    """Every array node of a metadata tree, with the attribute it belongs to."""
    if isinstance(node, list):
        for i, v in enumerate(node):
            yield from _array_nodes(v, f"{where}[{i}]")
    elif isinstance(node, dict):
        if "__array__" in node:
            yield node, where
        elif "__estimator__" in node:
            here = _schema.label(str(node["__estimator__"]), where)
            for part in ("params", "attrs"):
                if isinstance(node.get(part), dict):
                    for k, v in node[part].items():
                        yield from _array_nodes(v, f"{here}.{k}")
        else:
            for k, v in node.items():
                yield from _array_nodes(v, where if k.startswith("__") or k == "values"
                                        else f"{where}.{k}")


# -- encoding: Python objects -> JSON tree + arrays ------------------------------------------

class _Encoder:
    def __init__(self, owner: str):
        self.owner = owner
        self.arrays: dict[str, np.ndarray] = {}

    def _array(self, a: np.ndarray) -> dict:
        node: dict[str, Any] = {}
        if a.dtype == object:
            flat = a.ravel().tolist()
            if not all(isinstance(v, str) for v in flat):
                kinds = sorted({type(v).__name__ for v in flat})
                raise ValueError(f"{self.owner}: cannot save an object array holding"
                                 f" {', '.join(kinds)}; only numbers, booleans and strings"
                                 " can be saved without pickle.")
            a = np.array(flat, dtype=str).reshape(a.shape) if flat else \
                np.zeros(a.shape, dtype="<U1")
            node["object"] = True
        elif a.dtype.kind not in "biufcU" or a.dtype.names is not None:
            raise ValueError(f"{self.owner}: cannot save an array of dtype {a.dtype}; only"
                             " numeric, boolean and string arrays can be saved without"
                             " pickle.")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
        node.update({"__array__": key, "dtype": self.arrays[key].dtype.str,
                     "shape": list(a.shape)})
        return node

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, str)) or type(value) in (int, float):
            return value
        scalar_type = isinstance(value, type) and issubclass(value, np.generic)
        if scalar_type or isinstance(value, _NUMPY) or sp.issparse(value):
            return self._numpy(value, where)
        if isinstance(value, (tuple, list, set, frozenset, dict)):
            return self._container(value, where)
        cls = type(value)
        if cls.__name__ in REGISTRY and _resolve(cls.__name__) is cls:
            return self.estimator(value)
        if callable(value):
            raise ValueError(
                f"{self.owner}: cannot save {where}={value!r}: it is code (a callable), and"
                " models are saved as data only. Use a named option instead (for example"
                " kernel='rbf' or an array of hypotheses), or pickle the model -- pickle runs"
                " code when loaded, so only load pickles you trust."
            )
        raise ValueError(f"{self.owner}: cannot save {where}={value!r} of type"
                         f" {cls.__name__}; only arrays, numbers, strings, bools, None,"
                         " lists, tuples, dicts and registered estimators can be saved.")

    def _numpy(self, value: Any, where: str) -> dict:
        """A NumPy scalar, array, dtype or RandomState, or a SciPy sparse matrix."""
        if isinstance(value, np.generic):
            if value.dtype.kind not in "biufUS":
                raise ValueError(f"{self.owner}: cannot save {where}={value!r} of dtype"
                                 f" {value.dtype}.")
            return {"__scalar__": value.dtype.str, "v": value.item() if value.dtype.kind
                    not in "S" else value.item().decode("latin-1")}
        if isinstance(value, np.ndarray):
            return self._array(value)
        if sp.issparse(value):
            if value.format != "csr":
                raise ValueError(f"{self.owner}: cannot save {where}, a sparse matrix in"
                                 f" {value.format} format; only CSR is stored.")
            return {"__sparse__": "csr", "array": isinstance(value, sp.sparray),
                    "shape": list(value.shape), "data": self._array(value.data),
                    "indices": self._array(value.indices),
                    "indptr": self._array(value.indptr), "layout": "csr"}
        if isinstance(value, np.dtype):
            return {"__dtype__": value.str, "type": False}
        if isinstance(value, type):  # a scalar type such as np.float64
            return {"__dtype__": np.dtype(value).str, "type": True}
        _, keys, pos, has_gauss, gauss = value.get_state(legacy=True)  # a RandomState
        return {"__random_state__": self._array(keys), "pos": int(pos),
                "has_gauss": int(has_gauss), "gauss": float(gauss)}

    def _container(self, value: tuple | list | set | frozenset | dict, where: str) -> Any:
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v, where) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, where) for v in value]
        if isinstance(value, (set, frozenset)):
            return {"__set__": [self.encode(v, where) for v in sorted(value, key=repr)],
                    "frozen": isinstance(value, frozenset)}
        return self._dict(value, where)

    def _dict(self, value: dict, where: str) -> dict:
        keys = list(value)
        if keys and all(type(k) is str for k in keys) and \
                all(type(v) is int for v in value.values()):
            # e.g. a vectorizer's vocabulary_: two arrays instead of a large JSON object
            return {"__strintdict__": self._array(np.array(keys, dtype=str)),
                    "values": self._array(np.array(list(value.values()), dtype=np.int64))}
        return {"__dict__": [[self.encode(k, where), self.encode(v, f"{where}[{k!r}]")]
                             for k, v in value.items()]}

    def estimator(self, est) -> dict:
        name = type(est).__name__
        if hasattr(est, "get_params"):
            params = est.get_params(deep=False)
        else:  # a plain registered object (e.g. a CoordinateStump): its __init__ arguments
            params = {}
        exclude = {name for cls in type(est).__mro__
                   for name in vars(cls).get("_persist_exclude", ())} | set(_RUN_REPORTS)
        node_params = {k: self.encode(v, f"{name}.{k}") for k, v in params.items()}
        attrs = {k: self.encode(v, f"{name}.{k}") for k, v in vars(est).items()
                 if k not in params and k not in exclude}
        return {"__estimator__": name, "params": node_params, "attrs": attrs}


# -- decoding: JSON tree + arrays -> Python objects ------------------------------------------

class _Decoder:
    """Builds objects from a tree whose structure passed ``_schema.check_structure``,
    checking each object's decoded values against its schema before building it."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays

    def _array(self, node: dict, where: str) -> np.ndarray:
        a = self.arrays[node["__array__"]]  # present, with the node's dtype and shape
        if node.get("object"):
            if a.dtype.kind != "U":
                raise SchemaError(where, f"is marked as strings but stored as {a.dtype}.")
            out = np.empty(a.shape, dtype=object)
            out[...] = a.tolist() if a.ndim else a.item()
            return out
        return a

    def _dtype(self, text: Any, where: str) -> np.dtype:
        if not isinstance(text, str) or not re.fullmatch(r"[<>|=]?[biufcUS][0-9]{0,4}", text):
            raise SchemaError(where, f"the metadata names dtype {text!r}; only numeric,"
                                     " boolean and string types are allowed.")
        return np.dtype(text)

    def decode(self, node: Any, where: str) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v, f"{where}[{i}]") for i, v in enumerate(node)]
        if not isinstance(node, dict):
            raise SchemaError(where, f"unexpected metadata entry {node!r}.")
        if "__array__" in node:
            return self._array(node, where)
        if "__scalar__" in node:
            dt = self._dtype(node["__scalar__"], where)
            v = node["v"]
            return dt.type(v.encode("latin-1") if dt.kind == "S" else v)
        if "__tuple__" in node:
            return tuple(self.decode(v, f"{where}[{i}]")
                         for i, v in enumerate(node["__tuple__"]))
        if "__set__" in node:
            items = [self.decode(v, where) for v in node["__set__"]]
            return frozenset(items) if node.get("frozen") else set(items)
        if "__dict__" in node:
            return {self.decode(k, where): self.decode(v, f"{where}[{k!r}]")
                    for k, v in node["__dict__"]}
        if "__strintdict__" in node:
            keys = self._array(node["__strintdict__"], where).tolist()
            values = self._array(node["values"], where).tolist()
            return dict(zip(keys, values, strict=True))
        if "__dtype__" in node:
            dt = self._dtype(node["__dtype__"], where)
            return dt.type if node.get("type") else dt
        if "__sparse__" in node:
            return self._csr(node, where)
        if "__random_state__" in node:
            return self._random_state(node, where)
        if "__estimator__" in node:
            return self.estimator(node, where)
        raise SchemaError(where, f"unexpected metadata entry with keys {sorted(node)}.")

    def _csr(self, node: dict, where: str):
        """A CSR matrix whose arrays are checked before SciPy sees them (the structure pass
        has checked the format, the shape and the arrays' dtypes and lengths)."""
        data, indices, indptr = (self._array(node[p], f"{where}.{p}")
                                 for p in ("data", "indices", "indptr"))
        n_rows, n_cols = node["shape"]
        if indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
            raise SchemaError(where, "is not a valid CSR matrix: indptr must rise from 0 to"
                                     " the number of stored values, one entry per row + 1.")
        if indices.size and (indices.min() < 0 or indices.max() >= n_cols):
            raise SchemaError(where, f"is not a valid CSR matrix: column indices must lie in"
                                     f" [0, {n_cols}); they range over [{indices.min()},"
                                     f" {indices.max()}].")
        make = sp.csr_array if node.get("array") else sp.csr_matrix
        return make((data, indices, indptr), shape=(n_rows, n_cols))

    def _random_state(self, node: dict, where: str) -> np.random.RandomState:
        keys = self._array(node["__random_state__"], where)  # uint32 (624,): checked
        pos, has_gauss, gauss = node.get("pos"), node.get("has_gauss"), node.get("gauss")
        if type(pos) is not int or not 0 <= pos <= 624 or has_gauss not in (0, 1) \
                or type(gauss) is not float:
            raise SchemaError(where, "is not a valid MT19937 RandomState state.")
        rs = np.random.RandomState()
        rs.set_state(("MT19937", keys, pos, has_gauss, gauss))
        return rs

    def estimator(self, node: dict, where: str = ""):
        name = node["__estimator__"]
        cls = _resolve(name)  # a registered name: check_structure refused any other
        here = _schema.label(name, where)
        params = {k: self.decode(v, f"{here}.{k}") for k, v in node["params"].items()}
        attrs = {k: self.decode(v, f"{here}.{k}") for k, v in node["attrs"].items()}
        _schema.check_values(name, params, attrs, where)
        if hasattr(cls, "get_params"):
            try:
                obj = cls(**params)
            except TypeError as exc:
                raise SchemaError(here, f"the saved parameters do not fit this version of"
                                        f" the class ({exc}).") from None
            try:
                obj._validate_params()  # the class's table (scikit-learn's, or ours)
            except (TypeError, ValueError) as exc:
                raise SchemaError(here, f"invalid parameters: {exc}") from None
        else:
            obj = cls.__new__(cls)
        obj.__dict__.update(attrs)
        return obj
