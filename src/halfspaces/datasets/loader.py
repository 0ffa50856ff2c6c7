"""One entry point for every data format: ``load(path, format=None, **options)``.

The format is ``format`` when given, else the one the file name's extension names (after
stripping ``.gz``, ``.bz2`` or ``.xz``):

    .tsv        ``label<TAB>text`` lines: raw texts and labels (:func:`load_text_tsv`)
    .csv        numeric features with the label in one column (:func:`load_csv`)
    .vw         Vowpal Wabbit text format (:func:`load_vw`)
    otherwise   svmlight / libsvm, ``label index:value ...`` (:func:`load_svmlight`)

Options go to the format's reader; an option the format does not take is an error, and an
option set to None counts as not given.

The name of a bundled data set (:data:`halfspaces.datasets.bundled.BUNDLED`: ``a9a``,
``sms``, ...) is read where no file of that name exists; ``bundled:NAME`` always reads the
bundled set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._io import DataFormatError, _is_stream, check_readable, compression_of
from .bundled import BUNDLED, bundled_name, no_such_file, open_bundled

__all__ = ["FORMATS", "Dataset", "detect_format", "load"]

FORMATS = ("svmlight", "vw", "tsv", "csv")
_EXTENSIONS = {".tsv": "tsv", ".csv": "csv", ".vw": "vw"}
# The options each format's reader takes (besides the file).
_OPTIONS = {
    "svmlight": ("n_features", "zero_based", "dtype"),
    "vw": ("n_features", "zero_based", "hash_features", "seed", "dtype", "interactions"),
    "csv": ("label_column", "weight_column", "encoding", "delimiter", "n_features"),
    "tsv": ("encoding", "header"),
}


@dataclass(frozen=True)
class Dataset:
    """What :func:`load` read; unpacks as ``X, y = load(path)``.

    Attributes
    ----------
    X : csr_matrix, ndarray of shape (n_samples, n_features), or list of str (``tsv``)
    y : ndarray of shape (n_samples,)
    path : str
        The file's name (a stream's ``name``).
    format : {"svmlight", "vw", "tsv", "csv"}
    zero_based : bool or None
        svmlight: whether the indices were read as 0-based (what ``"auto"`` decided).
    sample_weight : ndarray of float64 or None
        The examples' weights (``>= 0``) when the file gives any other than 1: VW's
        importance weights, a CSV's ``weight_column``; None when every weight is 1.
    layout : CSVLayout or None
        csv: the header (or None), the label's and the weight's columns
        (:class:`~halfspaces.datasets.csv_format.CSVLayout`); None for other formats.
    """

    X: Any
    y: NDArray
    path: str
    format: str
    zero_based: bool | None = None
    sample_weight: NDArray | None = None
    layout: Any = None

    @property
    def is_text(self) -> bool:
        """True for raw texts (``tsv``), which a vectorizer must featurize."""
        return self.format == "tsv"

    @property
    def n_samples(self) -> int:
        return int(len(self.y))

    def __iter__(self):
        return iter((self.X, self.y))


def detect_format(path, format: str | None = None, default: str = "svmlight") -> str:
    """``format`` if given, else a bundled set's format (for its name, when no file of that
    name exists), else the format the extension names (compression suffix stripped), else
    ``default``.

    Examples
    --------
    >>> detect_format("sms.tsv.gz"), detect_format("points.csv"), detect_format("a9a.t")
    ('tsv', 'csv', 'svmlight')
    >>> detect_format("-", default="csv"), detect_format("bundled:sms")
    ('csv', 'tsv')
    """
    if format:
        return format
    bundled = bundled_name(path)
    if bundled is not None:
        return BUNDLED[bundled].format
    name = os.path.basename(str(getattr(path, "name", path))).lower()
    suffix = compression_of(name)
    if suffix:
        name = name[: -len(suffix)]
    return _EXTENSIONS.get(os.path.splitext(name)[1], default)


def load(path, format: str | None = None, **options) -> Dataset:
    """Read a data file in any supported format (see the module docstring).

    Parameters
    ----------
    path : str, path-like or binary file object
        A file (decompressed by extension), a stream read once to its end, or the name of a
        bundled data set (``"a9a"``, read as :func:`load_a9a` reads it, when no file of that
        name exists; ``"bundled:a9a"`` even when one does).
    format : {"svmlight", "vw", "tsv", "csv"} or None, default=None
        None: a bundled set's format, else by the extension, svmlight when it names no other
        format.
    **options
        The reader's options: ``n_features`` (svmlight, vw; csv: the number of feature
        columns it must have), ``zero_based`` (svmlight, vw; default "auto"),
        ``label_column``, ``weight_column``, ``delimiter`` (csv), ``encoding`` (csv, tsv),
        ``dtype``,
        ``hash_features``,
        ``seed``, ``interactions`` (vw).

    Returns
    -------
    Dataset
        ``X`` (features, or the texts of a tsv file), ``y`` and how the file was read.

    Examples
    --------
    An open binary file is read as a stream (here a CSV with the label last):

    >>> import io
    >>> X, y = load(io.BytesIO(b"0.5,1,1\\n-1,2e-1,-1\\n"), "csv", label_column=-1)
    >>> X.tolist(), y.tolist()
    ([[0.5, 1.0], [-1.0, 0.2]], [1.0, -1.0])

    A bundled set by name (a file ``heart_scale`` in the working directory would win):

    >>> load("heart_scale").X.shape
    (270, 13)
    """
    from .._validation import check_choice

    bundled = bundled_name(path)
    if bundled is not None:
        return _load_bundled(path, bundled, format, options)

    format = check_choice("load", "format", detect_format(path, format), FORMATS)
    given = {name: value for name, value in options.items() if value is not None}
    wrong = sorted(set(given) - set(_OPTIONS[format]))
    if wrong:
        raise ValueError(f"load: {', '.join(map(repr, wrong))} does not apply to {format} files;"
                         f" {format} takes {', '.join(_OPTIONS[format])}.")
    name = getattr(path, "name", "<stream>") if _is_stream(path) else os.fspath(path)
    if not _is_stream(path):
        if not os.path.lexists(path):
            raise no_such_file(name)
        check_readable(path)
    X, y, zero_based, w, *layout = _READERS[format](path, **given)
    unit = w is None or bool(np.all(w == 1.0))
    return Dataset(X, np.asarray(y), str(name), format, zero_based, None if unit else w,
                   *layout)


def _load_bundled(path: str, name: str, format: str | None, options: dict) -> Dataset:
    """The bundled set ``name`` (asked for as ``path``), read as its loader reads it (its
    number of features, 1-based) unless ``format`` or ``options`` say otherwise."""
    entry = BUNDLED[name]
    format = format or entry.format
    if format == "svmlight" == entry.format:
        options = {"n_features": entry.n_features, "zero_based": False,
                   **{key: value for key, value in options.items() if value is not None}}
    with open_bundled(name) as source:
        data = load(source, format, **options)
    return Dataset(data.X, data.y, path, data.format, data.zero_based, data.sample_weight,
                   data.layout)


def _svmlight(path, *, n_features=None, zero_based="auto", dtype=np.float64):
    from .svmlight import _load

    X, y, _, zero_based = _load(path, n_features, dtype, zero_based, False)
    return X, y, zero_based, None


def _vw(path, **options):
    from .vw import load_vw

    X, y, w = load_vw(path, **options, return_weights=True)
    return X, y, None, w


def _csv(path, *, label_column=0, weight_column=None, encoding="utf-8", delimiter=",",
         n_features=None):
    from .csv_format import read_csv

    table = read_csv(path, label_column, weight_column=weight_column, encoding=encoding,
                     delimiter=delimiter)
    check_csv_features(path, table.X, n_features)
    return table.X, table.y, None, table.sample_weight, table.layout


def check_csv_features(path, X, n_features: int | None) -> None:
    """A CSV's features must be ``n_features`` columns, when that is given."""
    if n_features is not None and X.shape[1] != n_features:
        raise DataFormatError(path, None, f"has {X.shape[1]} feature columns, not"
                              f" n_features={n_features}", reason="n_features")


def _tsv(path, **options):
    from .text import load_text_tsv

    texts, labels = load_text_tsv(path, **options)
    return list(texts), labels, None, None


_READERS = {"svmlight": _svmlight, "vw": _vw, "csv": _csv, "tsv": _tsv}
