"""Raw text: ``label<TAB>text`` files and the featurizer that turns text into vectors.

A model trained on raw text must keep its featurizer, so that ``predict`` and ``score``
take raw text too. The natural object is a scikit-learn :class:`~sklearn.pipeline.Pipeline`
of a vectorizer and one of our estimators, built by :func:`make_text_pipeline`:

- ``vectorizer="hashing"`` (default): :class:`~sklearn.feature_extraction.text.
  HashingVectorizer`, stateless (no vocabulary to learn), so it streams: ``partial_fit``
  the pipeline's last step on ``vectorizer.transform(batch)`` batch after batch;
- ``vectorizer="tfidf"``: :class:`~sklearn.feature_extraction.text.TfidfVectorizer`, which
  learns a vocabulary and idf weights in ``fit`` (a batch method).

Both pipelines save and load with :func:`halfspaces.persistence.save` /
:func:`halfspaces.load` (the vectorizer's parameters, and for tf-idf its vocabulary and
idf weights, as arrays and JSON).
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
from sklearn.pipeline import Pipeline

from ._io import DataFormatError, read_text

__all__ = ["load_text_tsv", "load_text_per_class", "make_text_pipeline"]

_NAME = re.compile(r"[A-Za-z_][\w.-]*")


def load_text_tsv(
    path: str | os.PathLike, *, encoding: str = "utf-8", header: bool | None = None
) -> tuple[list[str], NDArray[np.str_]]:
    """Read a ``label<TAB>text`` file (one example per line) as texts and labels.

    The label is everything before the first tab, the text everything after it (it may
    hold more tabs). Blank lines are skipped; ``\\r\\n`` line ends are accepted. ``.gz``,
    ``.bz2`` and ``.xz`` files are decompressed by extension.

    Parameters
    ----------
    path : str or path-like
    encoding : str, default="utf-8"
    header : bool or None, default=None
        Whether the first line names the columns (``label<TAB>text``) instead of holding an
        example. None detects it: the first line is a header when its label and its text
        are each a name (a letter or ``_``, then letters, digits, ``_``, ``.``, ``-``) and
        its label is on no other line of a file of at least three more examples (a class of
        one example whose text is one word); a warning says so.

    Returns
    -------
    texts : list of str
    labels : ndarray of str, one per text

    Raises
    ------
    DataFormatError
        A line without a tab, or with an empty label, bytes that are not ``encoding``, or
        a file with no examples.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "sms.tsv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("ham\\tsee you at 5\\nspam\\tWIN a prize\\ttoday\\n")
    >>> texts, labels = load_text_tsv(path)
    >>> texts, labels.tolist()
    (['see you at 5', 'WIN a prize\\ttoday'], ['ham', 'spam'])
    """
    text = read_text(path, encoding)
    texts: list[str] = []
    labels: list[str] = []
    lines: list[int] = []
    for lineno, line in enumerate(text.split("\n"), start=1):  # once per file, not a fast path
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        label, tab, body = line.partition("\t")
        if not tab:
            raise DataFormatError(path, lineno, f"expected 'label<TAB>text', found no tab in"
                                  f" {line[:40]!r}")
        if not label.strip():
            raise DataFormatError(path, lineno, "empty label before the tab")
        if "\x00" in label:  # a NumPy string array would drop it from a label's end
            raise DataFormatError(path, lineno, f"a NUL character in the label {label!r} (column"
                                  f" {label.index(chr(0)) + 1}): labels are text; remove the NUL"
                                  " bytes (a binary or corrupt file?)")
        labels.append(label)
        texts.append(body)
        lines.append(lineno)
    if labels and (header or header is None and _is_header(labels, texts)):
        if header is None:
            name = getattr(path, "name", path)
            warnings.warn(f"{name}:{lines[0]}: {labels[0]!r}<TAB>{texts[0]!r} read as a"
                          " header row, not an example (its label is on no other line and"
                          " its text is one word); pass header=False to read it as an"
                          " example", UserWarning, stacklevel=2)
        labels, texts = labels[1:], texts[1:]
    if not labels:
        raise DataFormatError(path, None, "no examples in the file (it is empty, or has only"
                              " blank lines or a header)", reason="no_examples")
    return texts, np.array(labels, dtype=str)


def _is_header(labels: list[str], texts: list[str]) -> bool:
    """Whether the first line looks like column names: a label on no other line, in a file
    of at least three more examples, and the label and the text each one name (a letter or
    ``_``, then letters, digits, ``_``, ``.``, ``-``)."""
    return len(labels) >= 4 and labels[0] not in labels[1:] \
        and all(_NAME.fullmatch(field) for field in (labels[0], texts[0]))


def load_text_per_class(
    files, *, encoding: str = "utf-8"
) -> tuple[list[str], NDArray[np.str_]]:
    """Read raw text given as one file per class, one text per line, as texts and labels.

    Parameters
    ----------
    files : dict of label to path, or list of paths
        With a list, each file's label is its name without folders, without ``.gz``,
        ``.bz2`` or ``.xz`` and without a final ``.txt`` (``spam.txt`` gives ``spam``).
    encoding : str, default="utf-8"

    Returns
    -------
    texts : list of str, the files' lines in the order given (blank lines skipped)
    labels : ndarray of str, one per text

    Raises
    ------
    DataFormatError
        A file with no text, or bytes that are not ``encoding``.
    ValueError
        Fewer than two files, two files of the same label, or a label that is empty or
        holds a tab or a line break (it could not be written as ``label<TAB>text``).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name, lines in (("spam.txt", "WIN cash now\\nclaim a prize\\n"),
    ...                     ("ham.txt", "lunch at noon?\\n")):
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(lines)
    >>> texts, labels = load_text_per_class([os.path.join(folder, "spam.txt"),
    ...                                      os.path.join(folder, "ham.txt")])
    >>> texts, labels.tolist()
    (['WIN cash now', 'claim a prize', 'lunch at noon?'], ['spam', 'spam', 'ham'])
    """
    if not isinstance(files, dict):
        files = {_label_of(path): path for path in _distinct(files)}
    if len(files) < 2:
        raise ValueError(f"load_text_per_class: 'files' must name at least two files, one per"
                         f" class; got {len(files)}.")
    texts: list[str] = []
    labels: list[str] = []
    for label, path in files.items():
        if not isinstance(label, str) or not label.strip() or any(c in label for c in "\t\r\n"):
            raise ValueError(f"load_text_per_class: the label {label!r} of {path} must be"
                             " non-empty text without tabs or line breaks.")
        lines = [line.removesuffix("\r") for line in read_text(path, encoding).split("\n")]
        lines = [line for line in lines if line.strip()]
        if not lines:
            raise DataFormatError(path, None, "no text in the file (it is empty, or has only"
                                  " blank lines); give one text per line",
                                  reason="no_examples")
        texts += lines
        labels += [label] * len(lines)
    return texts, np.array(labels, dtype=str)


def _label_of(path) -> str:
    """A file's class: its name without folders, compression suffix and ``.txt``."""
    name = os.path.basename(os.fspath(path))
    for suffix in (".gz", ".bz2", ".xz", ".txt"):
        name = name.removesuffix(suffix)
    return name


def _distinct(paths) -> list:
    """``paths``, refusing two that give the same label."""
    paths = list(paths)
    seen: dict[str, object] = {}
    for path in paths:
        label = _label_of(path)
        if label in seen:
            raise ValueError(f"load_text_per_class: {seen[label]} and {path} would both be"
                             f" class {label!r}; pass a dict {{label: path}} to name them.")
        seen[label] = path
    return paths


def make_text_pipeline(estimator, vectorizer: str = "hashing", **vectorizer_params) -> Pipeline:
    """A Pipeline ``(vectorizer, estimator)`` that learns from and predicts on raw text.

    Parameters
    ----------
    estimator : a halfspaces estimator (any scikit-learn classifier works)
    vectorizer : {"hashing", "tfidf"}, default="hashing"
        ``"hashing"``: ``HashingVectorizer(n_features=2**18, alternate_sign=False)``
        (stateless, streams); ``"tfidf"``: ``TfidfVectorizer()`` (learns a vocabulary).
    **vectorizer_params
        Passed to the vectorizer, e.g. ``ngram_range=(1, 2)`` or ``n_features=2**20``.
        A callable (``tokenizer=...``) works but makes the pipeline impossible to save.

    Returns
    -------
    sklearn.pipeline.Pipeline with steps ``"vectorizer"`` and ``"classifier"``

    Examples
    --------
    >>> from halfspaces import Perceptron
    >>> texts = ["win cash now", "lunch at noon", "cash prize win", "see you at noon"]
    >>> model = make_text_pipeline(Perceptron()).fit(texts, ["spam", "ham", "spam", "ham"])
    >>> model.predict(["win a cash prize", "noon lunch"]).tolist()
    ['spam', 'ham']
    """
    if vectorizer == "hashing":
        params = {"n_features": 2**18, "alternate_sign": False, **vectorizer_params}
        vec = HashingVectorizer(**params)
    elif vectorizer == "tfidf":
        vec = TfidfVectorizer(**vectorizer_params)
    else:
        raise ValueError(f"make_text_pipeline: 'vectorizer' must be one of 'hashing',"
                         f" 'tfidf'; got {vectorizer!r}.")
    return Pipeline([("vectorizer", vec), ("classifier", estimator)])
