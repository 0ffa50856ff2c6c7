"""Save and load models in a safe, versioned format: arrays + JSON, never pickle.

A model file is a NumPy ``.npz`` archive: ``__meta__`` (UTF-8 JSON: the format and its
version, the versions that wrote it, the class name, the estimator as a JSON tree of its
parameters and attributes, the caller's ``metadata``), ``__sha256__`` (the checksum of the
JSON and of every array) and the arrays ``a0``, ``a1``, ... that the tree refers to
(numeric, boolean or unicode; a sparse attribute as the three arrays of a CSR matrix).

The checksum detects accidental damage, not tampering. What protects the compiled kernels
from a crafted file is the schema of :mod:`halfspaces._schema`: every parameter and
attribute a class may hold, its dtype, its shape in named dimensions, its range and the
rules that tie them together. Loading checks the zip directory and its sizes, the JSON and
every ``.npy`` header, the tree against the schemas before any array is decompressed, the
checksum, then every value, and only then builds objects, only from the classes of
:data:`REGISTRY`; it never imports a name found in the file and never unpickles. Every
refusal is a :class:`ModelFormatError` naming the file, the attribute and the problem.
:func:`save` runs the same checks on what it writes (it never writes a file that
:func:`load` refuses) and writes atomically.

:func:`read_linear` checks a linear model's file the same way and returns its arrays
without building the estimator (whose module imports numba), for ``halfspaces predict``. A
parameter that is code (a callable kernel, hypotheses, a tokenizer) cannot be saved this
way; such models can still be pickled, which executes code on load.

The format and the checks in full: docs/internals.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import zipfile
from typing import Any, NamedTuple

import numpy as np

from . import __version__, _schema
from ._model_codec import REGISTRY, _array_nodes, _Decoder, _Encoder, _resolve
from ._schema import SchemaError
from .datasets._io import atomic_write

__all__ = ["save", "load", "read_linear", "LinearModel", "ModelFormatError", "REGISTRY",
           "FORMAT_VERSION", "MAX_BYTES"]

FORMAT_NAME = "halfspaces-model"
#: The newest file format version; a file is written with the lowest that holds its classes
#: (:data:`halfspaces._schema.SINCE`: version 2 added the feature scalers).
FORMAT_VERSION = 2

#: Default cap of ``load``: the total decompressed size of a file's arrays (2 GiB).
MAX_BYTES = 2 * 2**30
_MAX_META_BYTES = 64 * 2**20
#: ``save``'s metadata: at most this many bytes of JSON.
_MAX_METADATA_BYTES = 64 * 2**10
_ENTRY = re.compile(r"(__meta__|__sha256__|a[0-9]{1,9})\.npy")


class ModelFormatError(ValueError):
    """A model file cannot be loaded: not our format, corrupted, crafted, or from a newer
    version. The message names the file, the attribute and the problem."""

    def __init__(self, path, message: str):
        self.path = str(path)
        super().__init__(f"{self.path}: {message}")


def _check_metadata(metadata: Any, where: str) -> None:
    """``metadata``: a dict of JSON scalars, strings and (nested) lists and dicts of them,
    small."""
    def plain(v, depth=0) -> bool:
        if v is None or isinstance(v, (bool, str)) or type(v) in (int, float):
            return True
        if isinstance(v, dict):
            return depth < 8 and all(isinstance(k, str) and plain(x, depth + 1)
                                     for k, x in v.items())
        return isinstance(v, list) and depth < 8 and all(plain(x, depth + 1) for x in v)

    if not isinstance(metadata, dict) or not plain(metadata):
        raise SchemaError(where, "must be a dict of str keys to None, bools, numbers,"
                                 " strings, or lists and dicts of them.")
    size = len(json.dumps(metadata))
    if size > _MAX_METADATA_BYTES:
        raise SchemaError(where, f"takes {size:,} bytes of JSON, more than"
                                 f" {_MAX_METADATA_BYTES:,}.")


# -- the file ------------------------------------------------------------------------------

def _digest(meta_bytes: bytes, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    h.update(meta_bytes)
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"\0{key}\0{a.dtype.str}\0{list(a.shape)}\0".encode())
        h.update(a)  # the buffer itself: no copy of a large array
    return h.hexdigest()


def _too_large(total: int, max_bytes: int | None) -> str | None:
    """Why a file whose entries take ``total`` bytes decompressed is refused (None when it
    is not): more than ``max_bytes`` (None: :data:`MAX_BYTES`). Both :func:`save` and
    :func:`load` ask this, so save never writes what load refuses."""
    limit = MAX_BYTES if max_bytes is None else max_bytes
    if total <= limit:
        return None
    return (f"its arrays take {total:,} bytes once decompressed, more than"
            f" max_bytes={limit:,}.")


def _npy_bytes(a: np.ndarray) -> int:
    """The bytes of ``a`` as a ``.npy`` entry of the archive: its header, then its data."""
    header = np.lib.format.header_data_from_array_1_0(a)
    buf = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buf, header)
    except ValueError:  # too long for version 1.0: np.save writes 2.0
        buf = io.BytesIO()
        np.lib.format.write_array_header_2_0(buf, header)
    return buf.tell() + a.nbytes


def _write_npz(stream, entries: dict[str, np.ndarray]) -> None:
    np.savez_compressed(stream, **entries)


class _Archive:
    """A model file's zip archive, read entry by entry, every size checked before it is
    decompressed. ``zipfile`` never inflates an entry past the size its directory gives."""

    def __init__(self, path, zf: zipfile.ZipFile, max_bytes: int | None):
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
        too_large = _too_large(sum(info.file_size for info in infos), max_bytes)
        if too_large:
            raise ModelFormatError(path, f"{too_large} If you trust this file, pass a larger"
                                         " max_bytes to load.")

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


def _check_headers(path, archive: _Archive, tree: dict, extra: Any = None) -> None:
    """Each array node agrees with its entry's ``.npy`` header; each entry is used once.
    ``extra``: the nodes of ``save``'s ``arrays`` (a dict of plain numeric arrays)."""
    used = set()
    if extra is not None and not (isinstance(extra, dict) and all(
            isinstance(node, dict) and set(node) == {"__array__", "dtype", "shape"}
            and isinstance(node["dtype"], str) and node["dtype"][-2:-1] in "biuf"
            for node in extra.values())):
        raise ModelFormatError(path, "the metadata's arrays entry is malformed (it names"
                                     " numeric arrays only).")
    for node, where in [*_array_nodes(tree, ""), *_array_nodes(extra or {}, "arrays")]:
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


def save(estimator, path: str | os.PathLike, *, metadata: dict | None = None,
         arrays: dict[str, np.ndarray] | None = None) -> None:
    """Save ``estimator`` (fitted or not) to ``path``, atomically, as arrays + JSON.

    Parameters
    ----------
    estimator : a halfspaces estimator, or a scikit-learn Pipeline of a registered text
        vectorizer or scaler (or both) and a halfspaces estimator (see :data:`REGISTRY`).
    path : str or path-like
        The file to write (``.npz`` is a good extension; the name is used as given).
    metadata : dict, optional
        Facts about how the model was made that are not estimator state, such as the input
        format the command line read: str keys to None, bools, numbers, strings, or lists
        and dicts of them, at most 64 KiB as JSON (``load(path, with_metadata=True)`` returns them).
    arrays : dict, optional
        Numeric arrays stored beside the estimator, by name (a checkpoint's solver state,
        :mod:`halfspaces._checkpoint`); ``load(path, with_arrays=True)`` returns them. No
        schema checks their values: their reader does.

    Raises
    ------
    ValueError
        When the estimator's class is not registered, a parameter or attribute cannot be
        stored as data (a callable, an arbitrary object), or the model holds something
        :func:`load` would refuse (e.g. a vectorizer with a custom ``token_pattern``, or
        arrays of more than :data:`MAX_BYTES` in all).

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
    name = type(estimator).__name__
    if name not in REGISTRY or _resolve(name) is not type(estimator):
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"save: cannot save a {type(estimator).__module__}.{name}; only"
                         f" registered classes can be saved: {known}.")
    encoder = _Encoder(f"save({name})")
    tree = encoder.estimator(estimator)
    extra = {key: encoder._array(np.asarray(a)) for key, a in (arrays or {}).items()}
    metadata = {} if metadata is None else dict(metadata)
    try:  # never write what load would refuse
        _check_metadata(metadata, "metadata")
        _schema.check_structure(tree)
        _Decoder(encoder.arrays).estimator(tree)
    except SchemaError as exc:
        raise ValueError(f"save({name}): cannot save {exc}") from None
    from importlib.metadata import version  # scikit-learn's, without importing it

    meta = {
        "format": FORMAT_NAME,
        "format_version": _schema.format_version(tree),
        "halfspaces_version": __version__,
        "numpy_version": np.__version__,
        "sklearn_version": version("scikit-learn"),
        "estimator": name,
        "tree": tree,
        "metadata": metadata,
    }
    if extra:
        meta["arrays"] = extra
    meta_bytes = json.dumps(meta, sort_keys=True, allow_nan=True).encode("utf-8")
    entries = dict(encoder.arrays)
    entries["__meta__"] = np.frombuffer(meta_bytes, dtype=np.uint8)
    entries["__sha256__"] = np.array(_digest(meta_bytes, encoder.arrays))
    too_large = _too_large(sum(_npy_bytes(a) for a in entries.values()), None)
    if too_large:
        raise ValueError(f"save({name}): cannot save the model: {too_large[:-1]} (load's"
                         f" limit, MAX_BYTES), so load would refuse the file. A weight vector"
                         f" that wide comes from the data's largest feature index: train on"
                         f" fewer features (e.g. hash them into fewer buckets)")
    with atomic_write(path, compress=False) as f:
        _write_npz(f, entries)


def load(path: str | os.PathLike, *, with_metadata: bool = False,
         max_bytes: int | None = None, with_arrays: bool = False):
    """Load a model written by :func:`save` (or ``Estimator.save``).

    With ``with_metadata=True`` returns ``(model, metadata)``, the dict given to
    :func:`save` (empty when none was); with ``with_arrays=True`` also the ``arrays`` given
    to it, last (a dict, empty when none were: numeric arrays, values unchecked).

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
    max_bytes : int or None, default=None
        The most bytes the file's arrays may take once decompressed, checked from the zip
        directory before anything is decompressed; None: :data:`MAX_BYTES` (2 GiB), the
        limit :func:`save` keeps to.

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
    meta, arrays = _read(path, max_bytes)
    model, metadata = _build(path, meta, arrays)  # 5. values and parameters, then objects
    if with_arrays:
        extra = {key: arrays[node["__array__"]] for key, node in meta.get("arrays", {}).items()}
        return (model, metadata, extra) if with_metadata else (model, extra)
    return (model, metadata) if with_metadata else model


def _read(path, max_bytes: int | None, accept=None):
    """Steps 1 to 4 of :func:`load`: the metadata and the arrays, checked. ``accept(tree)``
    may refuse a file by returning False before its schemas are checked; then None."""
    with _zip_archive(path) as zf:
        archive = _Archive(path, zf, max_bytes)  # 1. entries and their sizes
        meta_bytes, meta = _open_meta(path, archive)  # 2. the JSON
        if accept is not None and not accept(meta["tree"]):
            return None
        _check_headers(path, archive, meta["tree"], meta.get("arrays"))  # 2. .npy headers
        # 3. the schemas, from dtypes and shapes
        _schema.check_structure(meta["tree"])
        arrays = {key: archive.read(key) for key in sorted(archive.entries)
                  if not key.startswith("__")}  # 4. decompressed
        digest = archive.read("__sha256__")
    _check_digest(path, str(digest), _digest(meta_bytes, arrays))  # 4. the checksum
    return meta, arrays


class LinearModel(NamedTuple):
    """What a saved linear model predicts with (see :func:`read_linear`)."""

    estimator: str  # the class name
    coef: np.ndarray  # float64 (n_models, n_features)
    intercept: np.ndarray  # float64 (n_models,)
    classes: np.ndarray
    n_features: int
    metadata: dict


#: The classes whose model is ``sign(<w, x> + b)`` (one-vs-rest: the argmax), saved with
#: ``coef_`` and ``intercept_``; a kernel SVC has no ``coef_``.
LINEAR = ("Perceptron", "AveragedPerceptron", "PegasosSVC", "LogisticRegression",
          "LPSeparator", "SVC")


def read_linear(path: str | os.PathLike, *,
                max_bytes: int | None = None) -> LinearModel | None:
    """The arrays of a fitted linear model in ``path``, without building the estimator.

    The estimator's module imports numba, which a process that only predicts
    (``halfspaces predict``) need not pay for. The file passes the checks of :func:`load`
    (entries, sizes, headers, JSON, checksum, each constructor parameter against its
    class's table in :mod:`halfspaces._params` and each attribute against its schema, with
    the rules between attributes), and what they refuse raises the ModelFormatError that
    :func:`load` raises. The checks of parameters together (a class's
    ``_parameter_rules``, which need the estimator) are left to :func:`load`. Returns None
    for any other file: another class, an unfitted model, a model fitted with feature names
    or with a parameter that is not a plain value (a RandomState), or a file that fails in
    another way (then :func:`load` says why, in its words).
    """
    def linear(tree: dict) -> bool:
        attrs, params = tree.get("attrs"), tree.get("params")
        # feature names: the estimator warns on arrays; parameters that are not plain
        # values (a RandomState, anything crafted) are for load's checks to judge
        return tree.get("__estimator__") in LINEAR and isinstance(attrs, dict) \
            and "coef_" in attrs and "feature_names_in_" not in attrs \
            and isinstance(params, dict) and all(
                v is None or isinstance(v, (bool, int, float, str)) for v in params.values())

    try:
        read = _read(path, max_bytes, linear)
        if read is None:
            return None
        meta, arrays = read
        tree, metadata = meta["tree"], meta.get("metadata", {})
        _check_metadata(metadata, "metadata")
        decoder, name = _Decoder(arrays), tree["__estimator__"]
        params = {k: decoder.decode(v, f"{name}.{k}") for k, v in tree["params"].items()}
        attrs = {k: decoder.decode(v, f"{name}.{k}") for k, v in tree["attrs"].items()}
        _schema.check_values(name, params, attrs)
        return LinearModel(name, attrs["coef_"], attrs["intercept_"], attrs["classes_"],
                           int(attrs["n_features_in_"]), metadata)
    except ModelFormatError:
        raise  # load's check, and load's message
    except SchemaError as exc:  # as load's _build words it
        raise ModelFormatError(path, str(exc)) from None
    except Exception:  # noqa: BLE001 - load reports every other problem, in its own words
        return None


@contextlib.contextmanager
def _zip_archive(path):
    """The model file's zip archive, open; an error reading it is a ModelFormatError."""
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
                yield zf
        except ModelFormatError:
            raise
        except SchemaError as exc:
            raise ModelFormatError(path, str(exc)) from None
        except RecursionError:
            raise ModelFormatError(path, "the metadata is nested too deeply.") from None
        except Exception as exc:  # zipfile, zlib and the npy reader each have their own errors
            raise ModelFormatError(path, f"the file is corrupted or truncated"
                                         f" ({type(exc).__name__}: {exc}).") from None


def _check_digest(path, stored: str, computed: str) -> None:
    if stored != computed:
        raise ModelFormatError(path, "checksum mismatch: the file is corrupted or was"
                                     " modified after it was saved.")


def _build(path, meta: dict, arrays: dict[str, np.ndarray]) -> tuple[Any, dict]:
    """The model and the caller's metadata, each value checked against its schema first."""
    metadata = meta.get("metadata", {})
    try:
        _check_metadata(metadata, "metadata")
        model = _Decoder(arrays).estimator(meta["tree"])
    except SchemaError as exc:
        raise ModelFormatError(path, str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelFormatError(path, f"the metadata is malformed ({type(exc).__name__}:"
                                     f" {exc}).") from None
    return model, metadata
