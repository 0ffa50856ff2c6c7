"""Small real datasets shipped with the package (see ``data/PROVENANCE.md``).

=====================  ========  ==========  =======================================
loader                 rows      features    labels
=====================  ========  ==========  =======================================
load_heart_scale()     270       13          +1: 120, -1: 150
load_a9a("train")      32,561    123         +1: 7,841, -1: 24,720
load_a9a("test")       16,281    123         +1: 3,846, -1: 12,435
load_mushrooms(...)    6,513 /   126         1 (poisonous): 3,140 / 776,
                       1,611                 0 (edible): 3,373 / 835
load_sms_spam()        5,574     raw text    "spam": 747, "ham": 4,827
=====================  ========  ==========  =======================================

svmlight files come back as a CSR float64 matrix and a float64 label vector, with the
labels exactly as the file writes them.

Their names (``BUNDLED``) are accepted wherever a data file is, by
:func:`halfspaces.datasets.load` and the ``halfspaces`` command: ``"a9a"`` reads the bundled
a9a when no file of that name exists (a real file always wins), ``"bundled:a9a"`` always
reads the bundled set.
"""

from __future__ import annotations

import contextlib
import io
import os
from importlib import resources
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import scipy.sparse as sp

# This module is imported by ``halfspaces --help`` (for the names): the readers, SciPy and
# scikit-learn are imported where they are used.


class BundledSet(NamedTuple):
    """A bundled data set: its file in ``data/`` (None: generated), its format, the number
    of features its loader reads (svmlight), and what it is."""

    file: str | None
    format: str
    n_features: int | None
    about: str


#: The bundled data sets by name, in the order ``halfspaces data`` lists them.
BUNDLED = {
    "heart_scale": BundledSet("heart_scale", "svmlight", 13, "UCI Statlog Heart, LIBSVM's"
                              " scaling: 270 rows, 13 features"),
    "a9a": BundledSet("a9a.gz", "svmlight", 123, "UCI Adult, LIBSVM's binarisation: 32,561"
                      " training rows, 123 binary features"),
    "a9a.t": BundledSet("a9a.t.gz", "svmlight", 123, "its 16,281 test rows"),
    "mushrooms": BundledSet("agaricus.txt.train.gz", "svmlight", 126, "UCI Mushroom one-hot"
                            " (XGBoost's agaricus): 6,513 training rows, 126 features,"
                            " 1 = poisonous"),
    "mushrooms.t": BundledSet("agaricus.txt.test.gz", "svmlight", 126, "its 1,611 test rows"),
    "sms": BundledSet("SMSSpamCollection.gz", "tsv", None, "SMS Spam Collection v.1: 5,574"
                      " messages as label<TAB>text (ham/spam)"),
    "points": BundledSet(None, "csv", None, "200 linearly separable points in the plane,"
                         " label first (make_separable(200, 2, margin=0.1, random_state=0))"),
}
PREFIX = "bundled:"


def bundled_name(path) -> str | None:
    """The name of the bundled set that ``path`` means, or None for a file.

    ``"bundled:NAME"`` always means the bundled set ``NAME``; a bare ``NAME`` means it only
    when no file ``NAME`` exists (a real file wins). Anything else (a path-like object, a
    stream, another string) is None.

    Examples
    --------
    >>> bundled_name("bundled:a9a"), bundled_name("no such file.svm")
    ('a9a', None)
    """
    if not isinstance(path, str):
        return None
    name = path.removeprefix(PREFIX)
    if name != path:
        if name not in BUNDLED:
            raise FileNotFoundError(2, f"No bundled data set {name!r}; the bundled sets are"
                                    f" {', '.join(BUNDLED)}", path)
        return name
    return name if name in BUNDLED and not os.path.exists(name) else None


def no_such_file(path) -> FileNotFoundError:
    """The error for a ``path`` that is neither a file nor a bundled set's name."""
    return FileNotFoundError(2, "No such file or directory, nor a bundled data set ("
                             + ", ".join(BUNDLED) + ")", os.fspath(path))


@contextlib.contextmanager
def open_bundled(name: str):
    """The bundled set ``name`` as a file path, or (``points``) as a CSV stream."""
    entry = BUNDLED[name]
    if entry.file is None:
        stream = io.BytesIO(_points_csv().encode("ascii"))
        stream.name = name
        yield stream
        return
    with resources.as_file(_path(entry.file)) as path:
        yield path


def _points_csv() -> str:
    """The ``points`` set as CSV text, label first."""
    from .generators import make_separable

    X, y = make_separable(n_samples=200, n_features=2, margin=0.1, random_state=0)
    return "".join(f"{int(label)},{a!r},{b!r}\n" for (a, b), label in
                   zip(X.tolist(), y.tolist(), strict=True))


_SPLITS = ("train", "test")


def _path(name: str):
    return resources.files("halfspaces.datasets") / "data" / name


def _read_svmlight(name: str) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Parse the bundled svmlight set ``name`` (gzip when its file ends in .gz), 1-based."""
    from .svmlight import load_svmlight

    with open_bundled(name) as path:
        return load_svmlight(path, n_features=BUNDLED[name].n_features, zero_based=False)


def _check_split(owner: str, split: str) -> None:
    from .._validation import check_choice

    check_choice(owner, "split", split, _SPLITS)


def load_heart_scale() -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """The LIBSVM ``heart_scale`` set (UCI Statlog Heart, features scaled to [-1, 1]).

    Returns
    -------
    X : csr_matrix of shape (270, 13), float64
        Some zero values are left out of the file, so 3,378 entries are stored.
    y : ndarray of shape (270,), float64 in {-1, +1} (+1: 120 rows, -1: 150 rows)

    Examples
    --------
    >>> X, y = load_heart_scale()
    >>> X.shape, int((y == 1).sum())
    ((270, 13), 120)
    """
    return _read_svmlight("heart_scale")


def load_a9a(split: str = "train") -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """The LIBSVM ``a9a`` set: UCI Adult (income > $50K), 123 binary features (Platt 1998).

    Parameters
    ----------
    split : {"train", "test"}, default="train"
        32,561 training rows or 16,281 test rows. Both have 123 columns (the test file's
        largest index is 122).

    Returns
    -------
    X : csr_matrix of shape (n, 123), float64 with values 1.0
    y : ndarray of shape (n,), float64 in {-1, +1} (+1: income > $50K)

    Examples
    --------
    >>> X, y = load_a9a("test")
    >>> X.shape, int((y == 1).sum())
    ((16281, 123), 3846)
    """
    _check_split("load_a9a", split)
    return _read_svmlight("a9a" if split == "train" else "a9a.t")


def load_mushrooms(split: str = "train") -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """UCI Mushroom as XGBoost's ``agaricus`` files: 126 one-hot features, 22 set per row.

    Parameters
    ----------
    split : {"train", "test"}, default="train"
        6,513 training rows or 1,611 test rows.

    Returns
    -------
    X : csr_matrix of shape (n, 126), float64 with values 1.0
        Column ``j`` (0-based) is entry ``j`` of ``featmap.txt``, e.g. ``odor=foul``.
    y : ndarray of shape (n,), float64 in {0, 1}: **1 = poisonous, 0 = edible**
        (checked: every ``odor=foul`` row is 1, every ``odor=almond`` row is 0).

    Examples
    --------
    >>> X, y = load_mushrooms("test")
    >>> X.shape, int(y.sum()), set(X.getnnz(axis=1).tolist())
    ((1611, 126), 776, {22})
    """
    _check_split("load_mushrooms", split)
    return _read_svmlight("mushrooms" if split == "train" else "mushrooms.t")


def mushroom_feature_names() -> list[str]:
    """Names of the 126 mushroom columns, in column order, e.g. ``'odor=foul'``."""
    text = _path("featmap.txt").read_text(encoding="utf-8")
    return [line.split("\t")[1] for line in text.splitlines() if line.strip()]


def load_sms_spam() -> tuple[list[str], NDArray[np.str_]]:
    """The SMS Spam Collection v.1 (Almeida and Gómez Hidalgo 2011) as raw text.

    Returns
    -------
    texts : list of str, length 5,574
        The messages, exactly as in the file (UTF-8); vectorize them yourself, e.g. with
        ``sklearn.feature_extraction.text.HashingVectorizer``.
    labels : ndarray of shape (5,574,), str: ``"spam"`` (747) or ``"ham"`` (4,827)

    Examples
    --------
    >>> texts, labels = load_sms_spam()
    >>> len(texts), int((labels == "spam").sum())
    (5574, 747)
    """
    from .text import load_text_tsv

    with open_bundled("sms") as path:
        return load_text_tsv(path)
