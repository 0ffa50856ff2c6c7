"""Save and load models in a safe, versioned format: arrays + JSON, never pickle.

A model file is a NumPy ``.npz`` archive (a zip of ``.npy`` arrays) holding

``__meta__``
    UTF-8 JSON: the format name (``"halfspaces-model"``) and version, the halfspaces,
    NumPy and scikit-learn versions that wrote it, the estimator's class name, the
    estimator itself as a JSON tree, and the caller's ``metadata``. The tree holds the
    constructor parameters (``get_params(deep=False)``) and every instance attribute -- the
    fitted ``*_`` attributes and the private state that lets ``partial_fit`` continue (a
    class can leave transient attributes out by listing them in ``_persist_exclude``).
    Arrays in the tree are references to the archive's other entries, with their dtype and
    shape.
``__sha256__``
    The SHA-256 of the JSON and of every array (name, dtype, shape, bytes).
``a0``, ``a1``, ...
    The arrays, numeric, boolean or unicode (object arrays of strings, such as string
    ``classes_``, are stored as unicode arrays and turned back into object arrays). Sparse
    attributes are stored as the three arrays of a CSR matrix.

The checksum detects accidental damage (a truncated download, a flipped bit), not
tampering: anyone can edit a file and recompute it. What protects the compiled kernels from
a crafted file is the schema of :mod:`halfspaces._schema`: every parameter and attribute a
class may hold, with its dtype, its shape in named dimensions (``n_features``,
``n_models``, ...), its value range, and the rules that tie them together. Loading

1. reads the zip directory and refuses entries that are not ours, or whose decompressed
   sizes add up to more than ``max_bytes``;
2. reads the JSON (at most 64 MiB) and every ``.npy`` header, and refuses an object
   (pickled) array, or a header whose dtype, shape or size disagrees with the JSON or with
   the zip entry;
3. checks the tree against the schemas from those dtypes and shapes, before any array is
   decompressed;
4. decompresses the arrays and checks the checksum;
5. decodes each object, checks every value against its schema (finite weights,
   non-negative counts, indices in range, valid CSR structure, a known vectorizer
   configuration), and only then builds it.

It builds objects only from the classes in :data:`REGISTRY` (our estimators, and the
scikit-learn Pipeline and text vectorizers of raw-text models), never imports a name found
in the file, and never unpickles. Every refusal is a :class:`ModelFormatError` (a
ValueError) naming the file, the attribute and the problem. :func:`save` runs the same
checks on what it writes, so it never writes a file that :func:`load` refuses. Files are
written atomically (temporary file in the same directory, then :func:`os.replace`): a crash
leaves the old file intact.

A parameter that is code (a callable kernel, callable hypotheses, a custom tokenizer)
cannot be saved this way; :func:`save` says so. Such models can still be pickled, which
executes code on load: only unpickle files you trust.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import re
import zipfile
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _schema
from ._schema import SchemaError
from .datasets._io import atomic_write

__all__ = ["save", "load", "ModelFormatError", "REGISTRY", "FORMAT_VERSION", "MAX_BYTES"]

FORMAT_NAME = "halfspaces-model"
FORMAT_VERSION = 1

#: Default cap of ``load``: the total decompressed size of a file's arrays (2 GiB).
MAX_BYTES = 2 * 2**30
_MAX_META_BYTES = 64 * 2**20
#: ``save``'s metadata: at most this many bytes of JSON.
_MAX_METADATA_BYTES = 64 * 2**10
# Reports of how a model was fitted, not state the model needs: never written to a model
# file (halfspaces.dask.fit's per-round history holds one array per round).
_RUN_REPORTS = ("dask_history_",)
_ENTRY = re.compile(r"(__meta__|__sha256__|a[0-9]{1,9})\.npy")

#: Every class a model file may name, mapped to the module that defines it. Loading
#: resolves names through this table only (and checks each against its schema in
#: :mod:`halfspaces._schema`).
REGISTRY: dict[str, str] = {
    "Perceptron": "halfspaces.linear.perceptron",
    "AveragedPerceptron": "halfspaces.linear.averaged_perceptron",
    "VotedPerceptron": "halfspaces.linear.voted_perceptron",
    "PegasosSVC": "halfspaces.linear.pegasos",
    "SVC": "halfspaces.linear.svm",
    "LogisticRegression": "halfspaces.linear.logistic",
    "LPSeparator": "halfspaces.linear.lp",
    "KernelPerceptron": "halfspaces.kernel.kernel_perceptron",
    "KernelPegasosSVC": "halfspaces.kernel.kernel_pegasos",
    "HalvingClassifier": "halfspaces.experts.halving",
    "WeightedMajorityClassifier": "halfspaces.experts.weighted_majority",
    "CoordinateStump": "halfspaces.experts._hypotheses",
    "Pipeline": "sklearn.pipeline",
    "HashingVectorizer": "sklearn.feature_extraction.text",
    "TfidfVectorizer": "sklearn.feature_extraction.text",
    "TfidfTransformer": "sklearn.feature_extraction.text",
    "CountVectorizer": "sklearn.feature_extraction.text",
}


class ModelFormatError(ValueError):
    """A model file cannot be loaded: not our format, corrupted, crafted, or from a newer
    version. The message names the file, the attribute and the problem."""

    def __init__(self, path, message: str):
        self.path = str(path)
        super().__init__(f"{self.path}: {message}")


def _resolve(name: str):
    """The registered class called ``name`` (imports only modules named in REGISTRY)."""
    module = REGISTRY.get(name)
    if module is None:
        return None
    return getattr(importlib.import_module(module), name, None)


def _check_metadata(metadata: Any, where: str) -> None:
    """``metadata``: a dict of JSON scalars, strings and (nested) lists of them, small."""
    def plain(v, depth=0) -> bool:
        if v is None or isinstance(v, (bool, str)) or type(v) in (int, float):
            return True
        return isinstance(v, list) and depth < 8 and all(plain(x, depth + 1) for x in v)

    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and plain(v) for k, v in metadata.items()):
        raise SchemaError(where, "must be a dict of str keys to None, bools, numbers, strings"
                                 " or lists of them.")
    size = len(json.dumps(metadata))
    if size > _MAX_METADATA_BYTES:
        raise SchemaError(where, f"takes {size:,} bytes of JSON, more than"
                                 f" {_MAX_METADATA_BYTES:,}.")


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
            if value.format != "csr":
                raise ValueError(f"{self.owner}: cannot save {where}, a sparse matrix in"
                                 f" {value.format} format; only CSR is stored.")
            return {"__sparse__": "csr", "array": isinstance(value, sp.sparray),
                    "shape": list(value.shape), "data": self._array(value.data),
                    "indices": self._array(value.indices),
                    "indptr": self._array(value.indptr), "layout": "csr"}
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
        exclude = set(getattr(est, "_persist_exclude", ())) | set(_RUN_REPORTS)
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


# -- the file ------------------------------------------------------------------------------

def _digest(meta_bytes: bytes, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    h.update(meta_bytes)
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"\0{key}\0{a.dtype.str}\0{list(a.shape)}\0".encode())
        h.update(a)  # the buffer itself: no copy of a large array
    return h.hexdigest()


def _write_npz(stream, entries: dict[str, np.ndarray]) -> None:
    np.savez_compressed(stream, **entries)


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


class _Archive:
    """A model file's zip archive, read entry by entry, every size checked before it is
    decompressed. ``zipfile`` never inflates an entry past the size its directory gives."""

    def __init__(self, path, zf: zipfile.ZipFile, max_bytes: int):
        self.path, self.zf = path, zf
        infos = zf.infolist()
        names = [info.filename for info in infos]
        if "__meta__.npy" not in names or "__sha256__.npy" not in names:
            raise ModelFormatError(path, "not a halfspaces model file (no __meta__ entry).")
        self.entries: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            key = info.filename[:-4]
            if not _ENTRY.fullmatch(info.filename) or key in self.entries:
                raise ModelFormatError(path, f"unexpected entry {info.filename!r} in the"
                                             " archive.")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) \
                    or info.flag_bits & 0x1:
                raise ModelFormatError(path, f"entry {info.filename!r} is encrypted or uses"
                                             " a compression method other than deflate.")
            self.entries[key] = info
        total = sum(info.file_size for info in infos)
        if total > max_bytes:
            raise ModelFormatError(path, f"its arrays take {total:,} bytes once decompressed,"
                                         f" more than max_bytes={max_bytes:,}. If you trust"
                                         " this file, pass a larger max_bytes to load.")

    def header(self, key: str, where: str) -> tuple[np.dtype, tuple[int, ...]]:
        """The dtype and shape of an entry, from its ``.npy`` header alone."""
        info = self.entries[key]
        with self.zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            read = {(1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read is None:
                raise ModelFormatError(self.path, f"array {key!r} ({where}) has an .npy"
                                                  f" header of version {version}.")
            shape, fortran_order, dtype = read(fp)
            offset = fp.tell()
        if dtype.hasobject:
            raise ModelFormatError(self.path, f"{where}: array {key!r} holds Python objects (a"
                                              " pickle); model files hold only numbers and"
                                              " strings. Refusing to unpickle it.")
        if dtype.kind not in "biufcU" or dtype.names is not None or dtype.subdtype is not None \
                or fortran_order or any(s < 0 for s in shape):
            raise ModelFormatError(self.path, f"{where}: array {key!r} has dtype {dtype}"
                                              f"{' in Fortran order' if fortran_order else ''}"
                                              f" and shape {shape}, which halfspaces never"
                                              " writes.")
        size = offset + math.prod(shape) * dtype.itemsize
        if size != info.file_size:
            raise ModelFormatError(self.path, f"{where}: array {key!r} has dtype {dtype} and"
                                              f" shape {shape} ({size:,} bytes with its"
                                              " header), but its archive entry holds"
                                              f" {info.file_size:,} bytes.")
        return dtype, shape

    def read(self, key: str) -> np.ndarray:
        with self.zf.open(self.entries[key]) as fp:
            return np.lib.format.read_array(fp, allow_pickle=False)


def _open_meta(path, archive: _Archive) -> tuple[bytes, dict]:
    dtype, shape = archive.header("__meta__", "__meta__")
    if dtype != np.uint8 or len(shape) != 1 or shape[0] > _MAX_META_BYTES:
        raise ModelFormatError(path, "not a halfspaces model file (its __meta__ entry is not"
                                     f" UTF-8 JSON of at most {_MAX_META_BYTES:,} bytes).")
    meta_bytes = archive.read("__meta__").tobytes()
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
                                     f" halfspaces reads versions 1 to {FORMAT_VERSION}. The"
                                     " file was written by halfspaces"
                                     f" {meta.get('halfspaces_version')}; upgrade halfspaces"
                                     " to load it.")
    tree = meta.get("tree")
    if not isinstance(tree, dict) or tree.get("__estimator__") != meta.get("estimator"):
        raise ModelFormatError(path, "the metadata's estimator entry is malformed.")
    return meta_bytes, meta


def _check_headers(path, archive: _Archive, tree: dict) -> None:
    """Each array node agrees with its entry's ``.npy`` header; each entry is used once."""
    used = set()
    for node, where in _array_nodes(tree, ""):
        key, dtype, shape = node.get("__array__"), node.get("dtype"), node.get("shape")
        if not (isinstance(key, str) and key.startswith("a") and key in archive.entries):
            raise ModelFormatError(path, f"{where}: array {key!r} named in the metadata is"
                                         " missing from the file.")
        if key in used:
            raise ModelFormatError(path, f"{where}: array {key!r} is used twice.")
        used.add(key)
        h_dtype, h_shape = archive.header(key, where)
        if dtype != h_dtype.str or shape != list(h_shape):
            raise ModelFormatError(path, f"array {key!r} has dtype {h_dtype.str} and shape"
                                         f" {list(h_shape)}, but the metadata says {dtype}"
                                         f" and {shape} ({where}).")
    unused = sorted(set(archive.entries) - used - {"__meta__", "__sha256__"})
    if unused:
        raise ModelFormatError(path, f"array {unused[0]!r} is not used by the metadata.")
    dtype, shape = archive.header("__sha256__", "__sha256__")
    if dtype != np.dtype("<U64") or shape != ():
        raise ModelFormatError(path, "its __sha256__ entry is not a SHA-256 hex digest.")


def save(estimator, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Save ``estimator`` (fitted or not) to ``path``, atomically, as arrays + JSON.

    Parameters
    ----------
    estimator : a halfspaces estimator, or a scikit-learn Pipeline of a registered text
        vectorizer and a halfspaces estimator (see :data:`REGISTRY`).
    path : str or path-like
        The file to write (``.npz`` is a good extension; the name is used as given).
    metadata : dict, optional
        Facts about how the model was made that are not estimator state, such as the input
        format the command line read: str keys to None, bools, numbers, strings or lists of
        them, at most 64 KiB as JSON (``load(path, with_metadata=True)`` returns them).

    Raises
    ------
    ValueError
        When the estimator's class is not registered, a parameter or attribute cannot be
        stored as data (a callable, an arbitrary object), or the model holds something
        :func:`load` would refuse (e.g. a vectorizer with a custom ``token_pattern``).

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
    metadata = {} if metadata is None else dict(metadata)
    try:  # never write what load would refuse
        _check_metadata(metadata, "metadata")
        _schema.check_structure(tree)
        _Decoder(encoder.arrays).estimator(tree)
    except SchemaError as exc:
        raise ValueError(f"save({name}): cannot save {exc}") from None
    import sklearn

    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "halfspaces_version": __version__,
        "numpy_version": np.__version__,
        "sklearn_version": sklearn.__version__,
        "estimator": name,
        "tree": tree,
        "metadata": metadata,
    }
    meta_bytes = json.dumps(meta, sort_keys=True, allow_nan=True).encode("utf-8")
    entries = dict(encoder.arrays)
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    entries["__sha256__"] = np.array(_digest(meta_bytes, encoder.arrays))
    with atomic_write(path, compress=False) as f:
        _write_npz(f, entries)


def load(path: str | os.PathLike, *, with_metadata: bool = False,
         max_bytes: int = MAX_BYTES):
    """Load a model written by :func:`save` (or ``Estimator.save``).

    With ``with_metadata=True`` returns ``(model, metadata)``, the dict given to
    :func:`save` (empty when none was).

    Nothing in the file is executed or imported by name: only classes of :data:`REGISTRY`
    are built, arrays are read without pickle, and every parameter and attribute is checked
    against its class's schema (dtype, shape, consistency, value range) before any object
    is built, so a crafted file is refused rather than handed to the compiled kernels. The
    SHA-256 checksum in the file detects accidental damage, not tampering: anyone can
    recompute it. See the module docstring for the steps.

    Parameters
    ----------
    path : str or path-like
    with_metadata : bool, default=False
    max_bytes : int, default=MAX_BYTES (2 GiB)
        The most bytes the file's arrays may take once decompressed, checked from the zip
        directory before anything is decompressed.

    Raises
    ------
    ModelFormatError
        A ValueError with ``.path``: the file is not a halfspaces model, is truncated or
        corrupted (checksum), comes from a newer format version, names an unknown class, or
        holds a parameter or attribute that its schema refuses; the message names the
        attribute and the problem.
    FileNotFoundError
        When ``path`` does not exist.

    Examples
    --------
    See :func:`save`.
    """
    try:
        f = open(path, "rb")
    except IsADirectoryError:
        raise ModelFormatError(path, "is a directory, not a model file.") from None
    with f:
        if f.read(2) != b"PK":
            raise ModelFormatError(path, "not a halfspaces model file (expected a .npz"
                                         " archive written by halfspaces' save).")
        f.seek(0)
        try:
            with zipfile.ZipFile(f) as zf:
                archive = _Archive(path, zf, max_bytes)
                meta_bytes, meta = _open_meta(path, archive)
                tree = meta["tree"]
                _check_headers(path, archive, tree)
                _schema.check_structure(tree)
                arrays = {key: archive.read(key) for key in sorted(archive.entries)
                          if not key.startswith("__")}
                digest = archive.read("__sha256__")
        except ModelFormatError:
            raise
        except SchemaError as exc:
            raise ModelFormatError(path, str(exc)) from None
        except RecursionError:
            raise ModelFormatError(path, "the metadata is nested too deeply.") from None
        except Exception as exc:  # zipfile, zlib and the npy reader each have their own errors
            raise ModelFormatError(path, f"the file is corrupted or truncated"
                                         f" ({type(exc).__name__}: {exc}).") from None
    if str(digest) != _digest(meta_bytes, arrays):
        raise ModelFormatError(path, "checksum mismatch: the file is corrupted or was"
                                     " modified after it was saved.")
    metadata = meta.get("metadata", {})
    try:
        _check_metadata(metadata, "metadata")
        model = _Decoder(arrays).estimator(tree)
    except SchemaError as exc:
        raise ModelFormatError(path, str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelFormatError(path, f"the metadata is malformed ({type(exc).__name__}:"
                                     f" {exc}).") from None
    return (model, metadata) if with_metadata else model
