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
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from .._validation import check_choice
from .svmlight import load_svmlight
from .text import load_text_tsv

_SPLITS = ("train", "test")


def _path(name: str):
    return resources.files("halfspaces.datasets") / "data" / name


def _read_svmlight(name: str, n_features: int) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Parse one bundled svmlight file (gzip when the name ends in .gz), 1-based indices."""
    with resources.as_file(_path(name)) as path:
        return load_svmlight(path, n_features=n_features, zero_based=False)


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
    return _read_svmlight("heart_scale", 13)


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
    check_choice("load_a9a", "split", split, _SPLITS)
    return _read_svmlight("a9a.gz" if split == "train" else "a9a.t.gz", 123)


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
    check_choice("load_mushrooms", "split", split, _SPLITS)
    return _read_svmlight(f"agaricus.txt.{split}.gz", 126)


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
    with resources.as_file(_path("SMSSpamCollection.gz")) as path:
        return load_text_tsv(path)
