"""Save and load models in a safe, versioned format: arrays + JSON, never pickle.

A model file is a NumPy ``.npz`` archive (a zip of ``.npy`` arrays) holding

``__meta__``
    UTF-8 JSON: the format name (``"halfspaces-model"``) and version, the halfspaces,
    NumPy and scikit-learn versions that wrote it, the estimator's class name, and the
    estimator itself as a JSON tree: its constructor parameters (``get_params(deep=False)``)
    and every instance attribute -- the fitted ``*_`` attributes and the private state that
    lets ``partial_fit`` continue (a class can leave transient attributes out by listing
    them in ``_persist_exclude``). Arrays in the tree are references to the archive's
    other entries; the tree also records each array's dtype and shape.
``__sha256__``
    The SHA-256 of the JSON and of every array (name, dtype, shape, bytes).
``a0``, ``a1``, ...
    The arrays, numeric, boolean or unicode (object arrays of strings, such as string
    ``classes_``, are stored as unicode arrays and turned back into object arrays).

Loading reads the archive with ``allow_pickle=False`` and builds objects only from classes
in a fixed registry (:data:`REGISTRY`: our estimators, and the scikit-learn Pipeline and
text vectorizers used for raw-text models); it never imports a name found in the file. It
checks the format name and version, the checksum, the registry, and every array's dtype
and shape, and raises :class:`ModelFormatError` (a ValueError) naming the file and the
problem when any of it is off. Files are written atomically (temporary file in the same
directory, then :func:`os.replace`): a crash leaves the old file intact.

A parameter that is code (a callable kernel, callable hypotheses, a custom tokenizer)
cannot be saved this way; :func:`save` says so. Such models can still be pickled, which
executes code on load: only unpickle files you trust.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from .datasets._io import atomic_write

__all__ = ["save", "load", "ModelFormatError", "REGISTRY", "FORMAT_VERSION"]

FORMAT_NAME = "halfspaces-model"
FORMAT_VERSION = 1

#: Every class a model file may name, mapped to the module that defines it. Loading
#: resolves names through this table only.
REGISTRY: dict[str, str] = {
    "Perceptron": "halfspaces.linear.perceptron",
    "AveragedPerceptron": "halfspaces.linear.averaged_perceptron",
    "VotedPerceptron": "halfspaces.linear.voted_perceptron",
    "PegasosSVC": "halfspaces.linear.pegasos",
    "SVC": "halfspaces.linear.svm",
    "LogisticRegression": "halfspaces.linear.logistic",
    "LPSeparator": "halfspaces.linear.lp",
    "KernelPerceptron": "halfspaces.kernel.kernel_perceptron",
    "HalvingClassifier": "halfspaces.experts.halving",
    "WeightedMajorityClassifier": "halfspaces.experts.weighted_majority",
    "CoordinateStump": "halfspaces.experts._hypotheses",
    "Pipeline": "sklearn.pipeline",
    "HashingVectorizer": "sklearn.feature_extraction.text",
    "TfidfVectorizer": "sklearn.feature_extraction.text",
    "TfidfTransformer": "sklearn.feature_extraction.text",
    "CountVectorizer": "sklearn.feature_extraction.text",
}

_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class ModelFormatError(ValueError):
    """A model file cannot be loaded: not our format, corrupted, or from a newer version."""

    def __init__(self, path, message: str):
        self.path = str(path)
        super().__init__(f"{self.path}: {message}")


def _resolve(name: str):
    """The registered class called ``name`` (imports only modules named in REGISTRY)."""
    module = REGISTRY.get(name)
    if module is None:
        return None
    return getattr(importlib.import_module(module), name, None)


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
        elif a.dtype.kind not in "biufcUS":
            raise ValueError(f"{self.owner}: cannot save an array of dtype {a.dtype}; only"
                             " numeric, boolean and string arrays can be saved without"
                             " pickle.")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(a)
        node.update({"__array__": key, "dtype": a.dtype.str, "shape": list(a.shape)})
        return node

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int) and type(value) is int:
            return value
        if type(value) is float:
            return value
        if isinstance(value, np.generic):
            if value.dtype.kind not in "biufUS":
                raise ValueError(f"{self.owner}: cannot save {where}={value!r} of dtype"
                                 f" {value.dtype}.")
            return {"__scalar__": value.dtype.str, "v": value.item() if value.dtype.kind
                    not in "S" else value.item().decode("latin-1")}
        if isinstance(value, np.ndarray):
            return self._array(value)
        if sp.issparse(value):
            fmt = value.format
            m = value.tocsr() if fmt not in ("csr", "csc") else value
            return {"__sparse__": fmt, "array": isinstance(value, sp.sparray),
                    "shape": list(m.shape), "data": self._array(m.data),
                    "indices": self._array(m.indices), "indptr": self._array(m.indptr),
                    "layout": m.format}
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v, where) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, where) for v in value]
        if isinstance(value, (set, frozenset)):
            return {"__set__": [self.encode(v, where) for v in sorted(value, key=repr)],
                    "frozen": isinstance(value, frozenset)}
        if isinstance(value, dict):
            return self._dict(value, where)
        if isinstance(value, np.dtype):
            return {"__dtype__": value.str, "type": False}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"__dtype__": np.dtype(value).str, "type": True}
        if isinstance(value, np.random.RandomState):
            _, keys, pos, has_gauss, gauss = value.get_state(legacy=True)
            return {"__random_state__": self._array(keys), "pos": int(pos),
                    "has_gauss": int(has_gauss), "gauss": float(gauss)}
        if isinstance(value, np.random.Generator):
            state = value.bit_generator.state
            if state.get("bit_generator") not in _BIT_GENERATORS:
                raise ValueError(f"{self.owner}: cannot save {where}: unknown bit generator.")
            return {"__generator__": self.encode(state, where)}
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
        exclude = set(getattr(est, "_persist_exclude", ()))
        node_params = {k: self.encode(v, f"{name}.{k}") for k, v in params.items()}
        attrs = {k: self.encode(v, f"{name}.{k}") for k, v in vars(est).items()
                 if k not in params and k not in exclude}
        return {"__estimator__": name, "params": node_params, "attrs": attrs}


# -- decoding: JSON tree + arrays -> Python objects ------------------------------------------

class _Decoder:
    def __init__(self, path, arrays):
        self.path = path
        self.arrays = arrays

    def fail(self, message: str):
        return ModelFormatError(self.path, message)

    def _array(self, node: dict) -> np.ndarray:
        key = node.get("__array__")
        if key not in self.arrays:
            raise self.fail(f"array {key!r} named in the metadata is missing from the file.")
        a = self.arrays[key]
        if a.dtype.str != node.get("dtype") or list(a.shape) != node.get("shape"):
            raise self.fail(f"array {key!r} has dtype {a.dtype.str} and shape"
                            f" {list(a.shape)}, but the metadata says {node.get('dtype')}"
                            f" and {node.get('shape')}.")
        if node.get("object"):
            out = np.empty(a.shape, dtype=object)
            out[...] = a.tolist() if a.ndim else a.item()
            return out
        return a

    def _dtype(self, text: Any) -> np.dtype:
        dt = np.dtype(str(text))
        if dt.kind not in "biufcUS":
            raise self.fail(f"the metadata names dtype {text!r}; only numeric, boolean and"
                            " string types are allowed.")
        return dt

    def decode(self, node: Any) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise self.fail(f"unexpected metadata entry {node!r}.")
        if "__array__" in node:
            return self._array(node)
        if "__scalar__" in node:
            dt = self._dtype(node["__scalar__"])
            v = node["v"]
            return dt.type(v.encode("latin-1") if dt.kind == "S" else v)
        if "__tuple__" in node:
            return tuple(self.decode(v) for v in node["__tuple__"])
        if "__set__" in node:
            items = [self.decode(v) for v in node["__set__"]]
            return frozenset(items) if node.get("frozen") else set(items)
        if "__dict__" in node:
            return {self.decode(k): self.decode(v) for k, v in node["__dict__"]}
        if "__strintdict__" in node:
            keys = self._array(node["__strintdict__"]).tolist()
            values = self._array(node["values"]).tolist()
            return dict(zip(keys, values, strict=True))
        if "__dtype__" in node:
            dt = self._dtype(node["__dtype__"])
            return dt.type if node.get("type") else dt
        if "__sparse__" in node:
            parts = (self._array(node["data"]), self._array(node["indices"]),
                     self._array(node["indptr"]))
            shape = tuple(node["shape"])
            make = {"csr": (sp.csr_array, sp.csr_matrix), "csc": (sp.csc_array, sp.csc_matrix)}
            m = make[node["layout"]][0 if node["array"] else 1](parts, shape=shape)
            return m.asformat(node["__sparse__"])
        if "__random_state__" in node:
            rs = np.random.RandomState()
            rs.set_state(("MT19937", self._array(node["__random_state__"]), node["pos"],
                          node["has_gauss"], node["gauss"]))
            return rs
        if "__generator__" in node:
            state = self.decode(node["__generator__"])
            name = state.get("bit_generator")
            if name not in _BIT_GENERATORS:
                raise self.fail(f"unknown bit generator {name!r}.")
            bitgen = getattr(np.random, name)()
            bitgen.state = state
            return np.random.Generator(bitgen)
        if "__estimator__" in node:
            return self.estimator(node)
        raise self.fail(f"unexpected metadata entry with keys {sorted(node)}.")

    def estimator(self, node: dict):
        name = node["__estimator__"]
        cls = _resolve(name) if isinstance(name, str) else None
        if cls is None:
            known = ", ".join(sorted(REGISTRY))
            raise self.fail(f"unknown estimator {name!r}; a model file may only name one of"
                            f" {known}. Refusing to import anything else.")
        params = {k: self.decode(v) for k, v in node["params"].items()}
        attrs = {k: self.decode(v) for k, v in node["attrs"].items()}
        if hasattr(cls, "get_params"):
            try:
                obj = cls(**params)
            except TypeError as exc:
                raise self.fail(f"the saved parameters of {name} do not fit this version of"
                                f" the class ({exc}).") from None
        else:
            obj = cls.__new__(cls)
        obj.__dict__.update(attrs)
        return obj


# -- the file ------------------------------------------------------------------------------

def _digest(meta_bytes: bytes, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    h.update(meta_bytes)
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"\0{key}\0{a.dtype.str}\0{list(a.shape)}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _write_npz(stream, entries: dict[str, np.ndarray]) -> None:
    np.savez_compressed(stream, **entries)


def save(estimator, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Save ``estimator`` (fitted or not) to ``path``, atomically, as arrays + JSON.

    Parameters
    ----------
    estimator : a halfspaces estimator, or a scikit-learn Pipeline of a registered text
        vectorizer and a halfspaces estimator (see :data:`REGISTRY`).
    path : str or path-like
        The file to write (``.npz`` is a good extension; the name is used as given).
    metadata : dict, optional
        JSON-serializable facts about how the model was made that are not estimator state,
        such as the input format the command line read (``load(path, with_metadata=True)``
        returns them).

    Raises
    ------
    ValueError
        When the estimator's class is not registered, or a parameter or attribute cannot
        be stored as data (a callable, an arbitrary object).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from halfspaces import Perceptron, load
    >>> X = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 0.5], [-2.0, -0.5]])
    >>> y = np.array(["spam", "ham", "spam", "ham"])
    >>> clf = Perceptron().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> clf.save(path)
    >>> again = load(path)
    >>> again.predict(X).tolist(), bool(np.array_equal(again.coef_, clf.coef_))
    (['spam', 'ham', 'spam', 'ham'], True)
    """
    from . import __version__

    name = type(estimator).__name__
    if name not in REGISTRY or _resolve(name) is not type(estimator):
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"save: cannot save a {type(estimator).__module__}.{name}; only"
                         f" registered classes can be saved: {known}.")
    encoder = _Encoder(f"save({name})")
    tree = encoder.estimator(estimator)
    import sklearn

    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "halfspaces_version": __version__,
        "numpy_version": np.__version__,
        "sklearn_version": sklearn.__version__,
        "estimator": name,
        "tree": tree,
        "metadata": {} if metadata is None else dict(metadata),
    }
    meta_bytes = json.dumps(meta, sort_keys=True, allow_nan=True).encode("utf-8")
    entries = dict(encoder.arrays)
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    entries["__sha256__"] = np.array(_digest(meta_bytes, encoder.arrays))
    with atomic_write(path, compress=False) as f:
        _write_npz(f, entries)


def load(path: str | os.PathLike, *, with_metadata: bool = False):
    """Load a model written by :func:`save` (or ``Estimator.save``).

    With ``with_metadata=True`` returns ``(model, metadata)``, the dict given to
    :func:`save` (empty when none was).

    Nothing in the file is executed or imported by name: only classes of :data:`REGISTRY`
    are built, and arrays are read with ``allow_pickle=False``.

    Raises
    ------
    ModelFormatError
        A ValueError with ``.path``: the file is not a halfspaces model, is truncated or
        corrupted (checksum), comes from a newer format version, or names an unknown class.
    FileNotFoundError
        When ``path`` does not exist.

    Examples
    --------
    See :func:`save`.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except IsADirectoryError:
        raise ModelFormatError(path, "is a directory, not a model file.") from None
    if not raw.startswith(b"PK"):
        raise ModelFormatError(path, "not a halfspaces model file (expected a .npz archive"
                               " written by halfspaces' save).")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as exc:  # zipfile, zlib and the npy reader each have their own errors
        raise ModelFormatError(path, f"the file is corrupted or truncated"
                               f" ({type(exc).__name__}: {exc}).") from None
    if "__meta__" not in arrays or "__sha256__" not in arrays:
        raise ModelFormatError(path, "not a halfspaces model file (no __meta__ entry).")
    meta_arr = arrays.pop("__meta__")
    digest = arrays.pop("__sha256__")
    meta_bytes = meta_arr.tobytes() if meta_arr.dtype == np.uint8 else b""
    try:
        meta = json.loads(meta_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(path, "not a halfspaces model file (its metadata does not name"
                               f" the format {FORMAT_NAME!r}).")
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
        raise ModelFormatError(path, f"format version {version!r} is not supported: this"
                               f" halfspaces reads versions 1 to {FORMAT_VERSION}. The file was"
                               f" written by halfspaces {meta.get('halfspaces_version')};"
                               " upgrade halfspaces to load it.")
    if digest.dtype.kind != "U" or digest.shape != () or \
            str(digest) != _digest(meta_bytes, arrays):
        raise ModelFormatError(path, "checksum mismatch: the file is corrupted or was"
                               " modified after it was saved.")
    tree = meta.get("tree")
    if not isinstance(tree, dict) or tree.get("__estimator__") != meta.get("estimator"):
        raise ModelFormatError(path, "the metadata's estimator entry is malformed.")
    metadata = meta.get("metadata", {})
    if not isinstance(metadata, dict):
        raise ModelFormatError(path, "the metadata's 'metadata' entry is not a JSON object.")
    decoder = _Decoder(path, arrays)
    try:
        model = decoder.estimator(tree)
        return (model, metadata) if with_metadata else model
    except ModelFormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelFormatError(path, f"the metadata is malformed ({type(exc).__name__}:"
                               f" {exc}).") from None
