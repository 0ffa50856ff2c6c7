"""What the learner sees, kept in the model: feature scaling (``--scale``), the n-grams
of raw text (``--ngram``, ``--char-ngram``), Vowpal Wabbit's feature interactions
(``--quadratic``) and hash buckets (``--hash-bits``)."""

from __future__ import annotations

import argparse

from ._io import CLIError

# --scale: scikit-learn's scaler of each name.
SCALERS = {"standard": "StandardScaler", "maxabs": "MaxAbsScaler", "minmax": "MinMaxScaler"}
_CENTRES = {"standard": "its mean", "minmax": "its minimum"}


def make_scaler(scale: str, *, sparse: bool, what: str):
    """The unfitted scaler ``--scale`` names; one that centres (standard, minmax) is refused
    on ``sparse`` data (``what``: the data, in words), whose zeros it would fill in."""
    import sklearn.preprocessing

    if sparse and scale in _CENTRES:
        raise CLIError(f"--scale {scale} subtracts {_CENTRES[scale]} from each"
                       f" feature, which would turn the zeros of {what} are sparse, into"
                       " stored values (a dense matrix); pass --scale maxabs, which divides"
                       " each feature by its largest absolute value and keeps the zeros, or"
                       " give the data as CSV (dense) to centre it")
    return getattr(sklearn.preprocessing, SCALERS[scale])()


def scaled(scale: str | None, data):
    """``(scaler, data)``: the scaler of ``--scale`` fitted on the rows of ``data``, and
    ``data`` with its features scaled; ``(None, data)`` without --scale, or for raw text
    (whose scaler comes after the vectorizer: :func:`wrap_for_text`)."""
    if not scale or data.is_text:
        return None, data
    import dataclasses

    import scipy.sparse as sp

    scaler = make_scaler(scale, sparse=sp.issparse(data.X), what=f"{data.path}, whose rows")
    return scaler, dataclasses.replace(data, X=scaler.fit_transform(data.X))


# -- raw text ---------------------------------------------------------------------------------


def char_ngram(text: str) -> tuple[int, int]:
    """``--char-ngram A,B`` (or ``N``, for ``N,N``): the lengths of the character n-grams."""
    from .._schema_text import MAX_NGRAM

    parts = text.split(",")
    try:
        low, high = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, 0)
    except ValueError:
        low = high = 0
    if not 1 <= low <= high <= MAX_NGRAM:
        raise argparse.ArgumentTypeError(f"expected A,B with 1 <= A <= B <= {MAX_NGRAM} (the"
                                         f" shortest and longest n-gram), e.g. 2,5; got"
                                         f" {text!r}")
    return low, high


def ngram(text: str) -> int:
    """``--ngram N``: word n-grams of 1 to N adjacent tokens."""
    from .._schema_text import MAX_NGRAM

    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_NGRAM):
        raise argparse.ArgumentTypeError(f"expected N from 1 to {MAX_NGRAM} (the longest word"
                                         f" n-gram), e.g. 2 for words and pairs of adjacent"
                                         f" words; got {text!r}")
    return int(text)


def text_params(features) -> dict:
    """The vectorizer's parameters that --ngram and --char-ngram give (scikit-learn's
    ``ngram_range``, and ``analyzer="char_wb"`` for character n-grams inside word
    boundaries); ``features``: a :class:`~._plan.Features`."""
    if features.ngram:
        return {"ngram_range": (1, features.ngram)}
    if features.char_ngram:
        return {"analyzer": "char_wb", "ngram_range": features.char_ngram}
    return {}


# -- hashing ----------------------------------------------------------------------------------

# VW's -b takes at most 32 bits here: the reader's hashes are 32-bit.
MAX_HASH_BITS = 32


def hash_bits(text: str) -> int:
    """``--hash-bits B``: hash into 2**B buckets."""
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_HASH_BITS):
        raise argparse.ArgumentTypeError(f"expected B from 1 to {MAX_HASH_BITS} (2**B hash"
                                         f" buckets), e.g. 18; got {text!r}")
    return int(text)


def quadratic(text: str) -> str:
    """``--quadratic AB``: two namespaces, by their first letters, ':' for any."""
    if len(text) != 2 or not text.isprintable():
        raise argparse.ArgumentTypeError(f"expected two characters, the first letters of two"
                                         f" namespaces (':' any namespace, as VW's -q), e.g."
                                         f" ab or ::; got {text!r}")
    return text


def hash_collisions(source, fmt: str, estimator) -> dict | None:
    """How the features of the VW file ``train`` read share its hash buckets
    (:func:`halfspaces.datasets.vw.hash_collisions`, one more read of the file); None for
    other data, or standard input (read once). ``source``: a :class:`~._plan.Source` of
    format ``fmt``."""
    import os

    from ._io import STDIN

    if source.path == STDIN or not os.path.isfile(source.path) or fmt != "vw":
        return None
    from ..datasets.vw import hash_collisions

    interactions = None if source.interactions is None else list(source.interactions)
    return hash_collisions(source.path, estimator.n_features_in_, interactions=interactions)


def collisions_line(result: dict) -> str:
    """What ``train`` says of :func:`hash_collisions`."""
    return (f"hash collisions: {result['collided']} of {result['distinct_features']} distinct"
            f" features ({100 * result['rate']:.2f}%) share a bucket with another; they fill"
            f" {result['buckets_used']} of {result['buckets']} buckets")
