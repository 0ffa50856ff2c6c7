"""What the commands read and write: data files, model files, tables, JSON, a progress bar."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import math
import re
import sys
from typing import Any

import numpy as np

from ..datasets._io import atomic_write

PROG = "halfspaces"

STDIN = "-"
# Advice for the reader errors the command line re-words, in its own terms.
_HINTS = {
    "n_features": "pass a larger --n-features, or leave it out",
    "zero_index": "pass --zero-based, or neither --zero-based nor --one-based to detect the"
                  " indexing",
    "encoding": "pass the file's --encoding, e.g. --encoding cp1252 or --encoding latin-1",
}
# --delimiter's value for each delimiter a reader suggests.
_DELIMITER_FLAGS = {"\t": "tab", ";": "semicolon", " ": "space", ",": "comma"}
# The command-line option of each reader option (see halfspaces.datasets.load).
_DATA_FLAGS = {"label_column": "--label-column", "weight_column": "--weight-column",
               "n_features": "--n-features",
               "zero_based": "--zero-based/--one-based", "encoding": "--encoding",
               "delimiter": "--delimiter", "header": "--header/--no-header",
               "interactions": "--quadratic"}
_DELIMITERS = {"tab": "\t", "\\t": "\t", "space": " ", "comma": ",", "semicolon": ";"}
# A "text" made of numbers only, e.g. "0.5\t1\t-2": numeric data in a text format.
_NUMBERS = re.compile(r"\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s+)*"
                      r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")

# A svmlight line: a number, then index:value pairs (and maybe a comment).
_SVMLIGHT_LINE = re.compile(r"\s*[-+]?[\w.]+(?:\s+(?:qid:)?\d+:\S+)+\s*(?:#.*)?")


class CLIError(Exception):
    """A user error the command reports in one line (bad option combination, bad file)."""


# -- data -----------------------------------------------------------------------------------


def delimiter(text: str) -> str:
    """``--delimiter``: one character, or ``tab`` (also ``\\t`` as typed), ``space``,
    ``comma``, ``semicolon``."""
    value = _DELIMITERS.get(text.lower() if len(text) > 1 else text, text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"expected one character or tab, space, comma,"
                                         f" semicolon; got {text!r}")
    return value


def read_data(path: str, fmt: str | None = None, *, hints: dict[str, str] | None = None,
              **options):
    """:func:`halfspaces.datasets.load` on a file or, for ``-``, standard input (read once).

    ``hints`` replaces the advice of reader errors by their ``reason`` (see
    :class:`~halfspaces.datasets.DataFormatError`). An option the format does not take is
    an error naming the command-line option; raw text whose every line is numbers only is
    refused (it is numeric data: ``--format csv --delimiter``).
    """
    from ..datasets import DataFormatError, load
    from ..datasets.loader import _OPTIONS

    wrong = [_DATA_FLAGS.get(k, k) for k, v in options.items()
             if v is not None and k not in _OPTIONS[fmt]]
    if wrong:
        raise CLIError(f"{path}: {', '.join(wrong)} does not apply to {fmt} data (given by"
                       " --format or the file's extension)")
    _check_n_features(options.get("n_features"))
    source = sys.stdin.buffer if path == STDIN else path
    try:
        data = load(source, fmt, **options)
    except DataFormatError as exc:
        raise in_cli_terms(exc, hints) from None
    if data.is_text and all(map(_NUMBERS.fullmatch, data.X)):
        raise CLIError(f"{data.path}: every text is numbers only, so this is numeric data, not"
                       " raw text: read it with --format csv --delimiter tab (the label in"
                       " --label-column, default the first)")
    return data


def in_cli_terms(exc, hints: dict[str, str] | None = None):
    """A reader's :class:`~halfspaces.datasets.DataFormatError` with the command line's
    advice (or, for a compressed file whose data is damaged, the damage: a damaged block
    may decompress to bytes that do not parse before the final check fails): by its
    ``reason`` (``hints`` first, then ``_HINTS``), or, for a first field that
    is not a svmlight label but a line of comma-separated values, ``--format csv``, and for
    a field that is not ``index:value`` but a VW namespace (``|f``), ``--format vw``."""
    from ..datasets._io import compression_damage

    damage = None if exc.reason == "compression" else compression_damage(exc.path)
    if damage is not None:
        where = "" if exc.line is None else f"; line {exc.line}, the first that does not" \
            f" parse ({exc.problem}), is likely where the damage is"
        return type(exc)(exc.path, exc.line, damage.problem + where, hint=damage.hint,
                         reason="compression")
    hint = {**_HINTS, **(hints or {})}.get(exc.reason)
    if hint is None and exc.reason == "label" and "," in exc.problem:
        hint = ("the line looks like comma-separated values: pass --format csv"
                " (--label-column names the label's column, default the first; -1 the last)")
    if hint is None and exc.reason == "delimiter":
        import ast

        other = ast.literal_eval(exc.hint.removeprefix("pass delimiter="))
        hint = f"pass --delimiter {_DELIMITER_FLAGS.get(other, other)}"
    if hint is None and exc.reason == "pair" and "got '|" in exc.problem:
        hint = ("the line looks like Vowpal Wabbit's format ('|' opens a namespace): pass"
                " --format vw")
    return exc.with_hint(hint) if hint else exc


def _check_n_features(n_features: int | None) -> None:
    """Refuse an --n-features whose weight vector cannot be allocated, before reading."""
    from ..datasets._io import weights_size_if_too_large

    size = weights_size_if_too_large(n_features) if n_features and n_features > 0 else None
    if size is not None:
        raise CLIError(f"--n-features {n_features}: a weight vector that long ({size} of"
                       " float64) cannot be allocated here; pass a smaller --n-features"
                       " (e.g. 1048576), or leave it out to take the largest index of the"
                       " file")


def _data_format(source, default: str = "svmlight") -> str:
    """--format, else csv when --delimiter is given, else by the file's extension
    (``source``: a :class:`~._plan.Source`)."""
    from ..datasets import detect_format

    given = source.format or ("csv" if source.delimiter else None)
    return detect_format(source.path, given, default=default)


def read_args_data(source, *, numeric: str | None = None, featurize: bool = False):
    """Read the data file of ``source`` (a :class:`~._plan.Source`) with its options.

    Raw text is refused with ``numeric`` (what the command needs features for), or with
    ``featurize`` hashed into ``--n-features`` buckets (default 2**18) as ``train``'s
    default vectorizer does.
    """
    fmt = _data_format(source)
    interactions = None if source.interactions is None else list(source.interactions)
    # For raw text, --n-features is the number of hash buckets of train's vectorizer.
    data = read_data(source.path, fmt, label_column=source.label_column,
                     weight_column=source.weight_column,
                     n_features=None if fmt == "tsv" else source.n_features,
                     zero_based=source.zero_based, encoding=source.encoding,
                     delimiter=source.delimiter, header=source.header,
                     interactions=interactions)
    if data.is_text and featurize:
        from ..datasets import make_text_pipeline

        params = {"n_features": source.n_features} if source.n_features else {}
        vectorizer = make_text_pipeline(None, "hashing", **params)["vectorizer"]
        return dataclasses.replace(data, X=vectorizer.transform(data.X))
    if numeric and data.is_text:
        raise CLIError(f"{data.path}: {numeric}")
    command = source.command
    if data.sample_weight is not None and command not in ("train", "split"):  # play, bound,
        # plot
        print(f"{PROG}: note: {data.path} gives example weights; {command} does not use them"
              " (every example counts once)", file=sys.stderr)
    return data


@contextlib.contextmanager
def about(data):
    """Name the data file in a library function's complaint about its contents."""
    try:
        yield
    except ValueError as exc:
        if getattr(exc, "path", None) is None:
            exc.path = data.path
        raise


def is_text_model(model) -> bool:
    """A model trained on raw text is a Pipeline whose first step is a text vectorizer (a
    model trained with --scale on numbers starts with its scaler)."""
    from sklearn.pipeline import Pipeline

    return isinstance(model, Pipeline) and hasattr(model.steps[0][1], "build_analyzer")


def read_for_model(model, metadata: dict, source, model_path: str, *,
                   labelled: bool = True):
    """Read the data file of ``source`` (a :class:`~._plan.Source`) for the ``model`` read
    from ``model_path`` as the model's training data was: standard input in its format
    (unless --format says otherwise), svmlight with its indexing (unless --zero-based or
    --one-based says otherwise), VW and CSV with its number of features.

    svmlight is read with --n-features (default: the largest index) and then fitted to the
    model's features: columns beyond them, features it never saw and so gives zero weight,
    are dropped with a one-line note. With ``labelled=False`` (predict), raw text without
    any tab is one text per line, without labels; returns ``(X, path)`` then.
    """
    from ..datasets.bundled import bundled_name

    text_model = is_text_model(model)
    n_model = None if text_model else getattr(model, "n_features_in_", None)
    # A file is told by its extension, else (as standard input) by the model's record.
    fmt = _data_format(source, metadata.get("format", "svmlight"))
    recorded = metadata.get("zero_based") if fmt == "svmlight" else None
    zero_based = source.zero_based if source.zero_based is not None else recorded
    hints = model_hints(model_path, source.zero_based,
                        n_model if fmt != "svmlight" else None, recorded)
    reading, header = source.path, source.header
    if fmt == "tsv" and text_model and not labelled and bundled_name(source.path) is None:
        texts, reading, header = _unlabelled_texts(source.path, source.encoding or "utf-8",
                                                   model.classes_, header)
        if texts is not None and texts and all(map(_SVMLIGHT_LINE.fullmatch, texts)):
            raise CLIError(f"{model_path}: this model was trained on raw text; give it a"
                           " label<TAB>text file or one text per line, not"
                           f" {_name(source.path)} (svmlight lines, label index:value ...)")
        if texts is not None:
            return texts, _name(source.path)
    layout = csv_layout(model_path, metadata, n_model) if fmt == "csv" else None
    if layout is not None and bundled_name(source.path) is None:
        data = read_csv_like(source, model_path, layout, metadata, labelled)
        if data.y is None:
            return data.X, data.path
    else:
        n_features = source.n_features if fmt == "svmlight" else n_model
        delimiter = source.delimiter or (metadata.get("csv") or {}).get("delimiter") \
            if fmt == "csv" else source.delimiter
        data = read_data(reading, fmt, hints=hints, label_column=source.label_column,
                         weight_column=source.weight_column,
                         n_features=None if fmt == "tsv" else n_features,
                         zero_based=zero_based, encoding=source.encoding, delimiter=delimiter,
                         header=header,
                         interactions=metadata.get("interactions") if fmt == "vw" else None)
    if text_model and not data.is_text:
        raise CLIError(f"{model_path}: this model was trained on raw text; give it a"
                       f" label<TAB>text file (.tsv or --format tsv), not {data.path}")
    if data.is_text and not text_model:
        raise CLIError(f"{model_path}: this model was trained on numeric features; {data.path}"
                       " is raw text. Train on text to get a model that featurizes it")
    if n_model is not None and data.X.shape[1] != n_model:
        X, used = fit_columns(data.X, n_model)
        note_ignored(data.path, used.size, n_model)
        data = dataclasses.replace(data, X=X)
    return data if labelled else (data.X, data.path)


def _name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _unlabelled_texts(path: str, encoding: str, classes, header: bool | None):
    """``(texts, None, header)`` for raw text that is not ``label<TAB>text``: one text per
    line, whole (tabs included; after a first line that ``header`` says names the columns),
    else ``(None, source, header)`` to read as ``label<TAB>text`` (standard input, read
    here once, as an in-memory stream). A file is ``label<TAB>text`` when every line but a
    header starts with one of the model's ``classes`` and a tab; a first line that does
    not, before lines that all do, is a header (unless ``header`` is False)."""
    from .._labels import format_label
    from ..datasets import DataFormatError
    from ..datasets._io import read_text

    source = path
    if path == STDIN:
        source = io.BytesIO(sys.stdin.buffer.read())
        source.name = _name(path)
    try:
        text = read_text(source, encoding)
    except DataFormatError as exc:
        raise exc.with_hint(_HINTS["encoding"]) from None
    lines = [line.removesuffix("\r") for line in text.split("\n") if line.strip()]
    known = {format_label(c) for c in classes} | {str(c) for c in classes}

    def labelled(line: str) -> bool:
        label, tab, _ = line.partition("\t")
        return bool(tab) and label in known

    if header is None and len(lines) > 1 and not labelled(lines[0]) \
            and all(map(labelled, lines[1:])):
        header = True
    rest = lines[1:] if header else lines
    if rest and all(map(labelled, rest)):
        if path == STDIN:
            source.seek(0)
        return None, source, header
    return rest, None, header


def fit_columns(X, n_model: int):
    """``(X as the model's n_model features, the columns beyond them that hold a value)``:
    zero columns added, or the columns beyond dropped (features never seen in training have
    zero weight)."""
    import scipy.sparse as sp

    n = X.shape[1]
    if n < n_model:
        pad = sp.csr_matrix((X.shape[0], n_model - n))
        X = sp.hstack([X, pad], format="csr") if sp.issparse(X) else \
            np.hstack([X, np.zeros((X.shape[0], n_model - n))])
        return X, np.empty(0, dtype=np.int64)
    extra = X[:, n_model:]
    used = np.flatnonzero(np.asarray(abs(extra).sum(axis=0)).ravel()) + n_model
    return X[:, :n_model], used


def note_ignored(path: str, used: int, n_model: int) -> None:
    """The one-line note that ``used`` features beyond the model's were ignored."""
    if used:
        print(f"{PROG}: note: {path}: {used} feature{'s' * (used != 1)} beyond the"
              f" model's {n_model} ignored (never seen in training: zero weight)",
              file=sys.stderr)


def model_hints(model_path: str, zero_based: bool | None, n_features: int | None,
                recorded) -> dict:
    """Advice for reader errors on data read for the model ``model_path``, trained on
    ``n_features`` features with svmlight indexing ``recorded`` (0-based or not, or None),
    with the indexing --zero-based or --one-based gives (``zero_based``, None: neither)."""
    hints = {}
    if n_features is not None:  # VW buckets and CSV columns must match the model's
        hints["n_features"] = (f"the model {model_path} was trained on {n_features} features,"
                               " so this file does not match it")
    if zero_based is None and recorded is False:
        hints["zero_index"] = (f"the model {model_path} was trained on 1-based indices (its"
                               " training file had no index 0); if that file was 0-based too,"
                               " train again with --zero-based")
    return hints


# -- CSV columns -----------------------------------------------------------------------------

# The entry of a model file's metadata that says how its training CSV was laid out.
CSV_ENTRY_VERSION = 1


def csv_entry(data, delimiter: str | None) -> dict:
    """The ``csv`` entry that ``train`` records of the CSV ``data`` it read: its header
    (or None), label and weight columns, number of fields and delimiter."""
    layout = data.layout
    return {"version": CSV_ENTRY_VERSION,
            "header": None if layout.header is None else list(layout.header),
            "label": int(layout.label),
            "weight": None if layout.weight is None else int(layout.weight),
            "n_fields": int(layout.n_fields),
            "delimiter": delimiter or ","}


def csv_layout(path: str, metadata: dict, n_features: int | None):
    """The :class:`~halfspaces.datasets.csv_format.CSVLayout` of the ``csv`` entry of the
    model file ``path`` (whose model has ``n_features`` features), checked; None where the
    file has none (written before models recorded it)."""
    from ..datasets.csv_format import CSVLayout
    from ..persistence import ModelFormatError

    entry = metadata.get("csv")
    if entry is None:
        return None

    def bad(problem: str):
        return ModelFormatError(path, f"the metadata's csv entry {problem}.")

    if not isinstance(entry, dict) or set(entry) != {"version", "header", "label", "weight",
                                                     "n_fields", "delimiter"}:
        raise bad("is malformed (expected version, header, label, weight, n_fields,"
                  " delimiter)")
    version = entry["version"]
    if type(version) is not int or not 1 <= version <= CSV_ENTRY_VERSION:
        raise bad(f"has version {version!r}, and this halfspaces reads version"
                  f" {CSV_ENTRY_VERSION}: the file comes from a newer halfspaces; upgrade"
                  " halfspaces to read it")
    n_fields, label, weight, header = (entry[k] for k in ("n_fields", "label", "weight",
                                                           "header"))
    if type(n_fields) is not int or not 2 <= n_fields <= 2**31:
        raise bad(f"has n_fields {n_fields!r}, not an int >= 2")
    for name, value in (("label", label), ("weight", weight)):
        if not (value is None and name == "weight") and (
                type(value) is not int or not 0 <= value < n_fields):
            raise bad(f"has {name} {value!r}, not a column index below {n_fields}")
    if label == weight:
        raise bad("gives the label and the weight the same column")
    if n_features is not None and n_fields != n_features + 1 + (weight is not None):
        raise bad(f"has {n_fields} fields, but the model has {n_features} features")
    if header is not None and (not isinstance(header, list) or len(header) != n_fields
                               or not all(isinstance(h, str) for h in header)):
        raise bad(f"has a header that is not a list of {n_fields} strings")
    if not isinstance(entry["delimiter"], str) or len(entry["delimiter"]) != 1:
        raise bad(f"has delimiter {entry['delimiter']!r}, not one character")
    return CSVLayout(None if header is None else tuple(header), label, weight, n_fields)


def read_csv_like(source, model_path: str, layout, metadata: dict, labelled: bool):
    """The CSV file of ``source`` (a :class:`~._plan.Source`) read for the model
    ``model_path`` trained on the CSV ``layout``: the columns by name
    where both have a header, else by position (see
    :func:`~halfspaces.datasets.csv_format.read_csv_like`); a Dataset whose ``y`` is None
    where the file has no label column (``labelled=False``)."""
    from ..datasets import DataFormatError, Dataset
    from ..datasets.csv_format import read_csv_like as read_like

    reading = sys.stdin.buffer if source.path == STDIN else source.path
    delimiter = source.delimiter or metadata["csv"]["delimiter"]
    n_model = len(layout.features)
    try:
        table = read_like(reading, layout, labelled=labelled, label_column=source.label_column,
                          weight_column=source.weight_column,
                          encoding=source.encoding or "utf-8", delimiter=delimiter)
        if table.X.shape[1] != n_model:
            where = "" if layout.header is None else \
                f" (its training file's columns: {', '.join(layout.header)})"
            raise DataFormatError(reading, None, f"has {table.X.shape[1]} feature columns, but"
                                  f" the model {model_path} was trained on {n_model}{where}",
                                  hint="give a file with the model's columns, and"
                                  " --label-column (and --weight-column) where they are"
                                  " not where they were at training")
    except DataFormatError as exc:
        raise in_cli_terms(exc, {"label_column": "name the label's column with"
                                                 " --label-column"}) from None
    if table.ignored:
        print(f"{PROG}: note: {_name(source.path)}: column{'s' * (len(table.ignored) > 1)}"
              f" {', '.join(table.ignored)} ignored (not among the model's columns)",
              file=sys.stderr)
    w = table.sample_weight
    unit = w is None or bool(np.all(w == 1.0))
    return Dataset(table.X, table.y, _name(source.path), "csv", None, None if unit else w,
                   table.layout)


# -- models ---------------------------------------------------------------------------------


def load_model(path: str) -> tuple[Any, dict]:
    """``(model, metadata)`` saved by ``train`` (any estimator or a text Pipeline); the
    metadata says how the training data was read (format, zero_based, n_features)."""
    from ..datasets._io import check_readable
    from ..persistence import load

    check_readable(path)
    return load(path, with_metadata=True)


def save_model(model, path: str, data, delimiter: str | None = None,
               interactions=None) -> None:
    """Save ``model`` with how its training ``data`` was read (a CSV: with ``delimiter``;
    VW: with the ``interactions`` of --quadratic), for :func:`read_for_model`."""
    from ..persistence import save

    metadata = {"format": data.format, "zero_based": data.zero_based,
                "n_features": None if data.is_text else int(data.X.shape[1])}
    if data.format == "csv" and data.layout is not None:
        metadata["csv"] = csv_entry(data, delimiter)
    if interactions:
        metadata["interactions"] = list(interactions)
    with writing(path):
        save(model, path, metadata=metadata)


@contextlib.contextmanager
def writing(path: str):
    """Name ``path`` itself, not the temporary file of an atomic write, when writing fails
    (a missing folder, no permission, a full disk)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or exc.filename == path or not exc.strerror:
            raise
        raise OSError(exc.errno, exc.strerror, path) from None


# -- output ---------------------------------------------------------------------------------


def progress(quiet: bool, **kwargs):
    """A tqdm bar on stderr, off with --quiet or when stderr is not a terminal."""
    from tqdm.auto import tqdm

    disable = quiet or not sys.stderr.isatty()
    return tqdm(disable=disable, file=sys.stderr, leave=False, **kwargs)


# Estimators whose solver reports nothing until it is done, and why.
_SILENT = {"LPSeparator": "HiGHS, called through SciPy, reports no progress until it is done"}


@contextlib.contextmanager
def fit_progress(quiet: bool, estimator, every: float = 0.2):
    """A bar of ``estimator.fit`` on stderr (off with --quiet or when stderr is not a
    terminal).

    A solver that reports its iterations (:mod:`halfspaces._progress`: dual coordinate
    descent, the QP's interior point, L-BFGS) shows them out of ``max_iter``, with the
    quantity its stopping rule tests and the time left (:func:`time_left`). An estimator
    that records its epochs as it goes (``n_iter_``, ``mistakes_per_epoch_``: the
    perceptron family) shows them with the last epoch's mistakes, read every ``every``
    seconds by a thread that only reads. The LP separator shows the time spent and says
    that the time left is unknown (``_SILENT``: HiGHS, called through SciPy, reports nothing
    until it is done).
    """
    import threading

    from .._progress import listening

    total = getattr(estimator, "max_iter", None)
    with progress(quiet, total=total if isinstance(total, int) else None,
                  desc=f"fit {type(estimator).__name__}", unit="epoch") as bar:
        if bar.disable:
            yield
            return
        reports = _Reports(bar, every)
        stop = threading.Event()
        silent = _SILENT.get(type(estimator).__name__)
        if silent:
            bar.bar_format = "{desc}{postfix} [{elapsed}]"
            bar.set_postfix_str(f"time left unknown ({silent})")

        def show():
            if reports.last is not None:
                reports.show()
                return
            epochs = getattr(estimator, "n_iter_", 0)
            bar.update(max(int(epochs) - bar.n, 0))
            mistakes = getattr(estimator, "mistakes_per_epoch_", None)
            if mistakes:
                bar.set_postfix_str(f"last epoch {int(mistakes[-1])} mistakes", refresh=False)
            bar.refresh()

        def watch():
            while not stop.wait(every):
                show()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            with listening(reports.hear):
                yield
        finally:
            stop.set()
            watcher.join()
        show()


class _Reports:
    """What the solvers reported (:class:`halfspaces._progress.Progress`), shown on ``bar``:
    ``fit SVC (dcd): 40/1000 epochs, objective 3517.3, relative duality gap 2.1e-05 at epoch
    33 (stops at 1e-06), time left ~00:04 (estimate) [00:03]``. A report whose iteration
    goes back (the next one-vs-rest problem, or another solver taking over) starts a new
    problem. The solver's thread records and the watcher's thread shows, under one lock."""

    def __init__(self, bar, every: float):
        import threading
        import time

        self.bar, self.every, self.clock = bar, every, time.perf_counter
        self.lock = threading.Lock()
        self.last = self.objective = None
        self.points: list[tuple[int, float]] = []
        self.problem, self.started, self.shown = 0, self.clock(), 0.0

    def hear(self, report) -> None:
        """Record ``report`` (called by the solver, between its iterations)."""
        with self.lock:
            last = self.last
            if last is None or report.iteration < last.iteration \
                    or report.solver != last.solver:
                self.points, self.objective, self.started = [], None, self.clock()
                self.problem += 1
            if report.measure is not None:
                self.points.append((report.iteration, report.measure))
            if report.objective is not None:
                self.objective = report.objective
            self.last = report
        if self.clock() - self.shown >= self.every:  # a compiled solver may hold the GIL
            self.show()

    def show(self) -> None:
        import re

        with self.lock:
            report, bar = self.last, self.bar
            unit = "epoch" if report.solver == "dcd" else "iteration"
            desc = re.sub(r" \(.*", "", bar.desc) + f" ({report.solver}" + (
                f", problem {self.problem})" if self.problem > 1 else ")")
            bar.bar_format = "{desc}: {n}/{total} " + unit + "s{postfix} [{elapsed}]"
            bar.total, bar.n = report.max_iter, report.iteration
            bar.set_description_str(desc, refresh=False)
            parts = [] if self.objective is None else [f"objective {self.objective:.6g}"]
            if self.points:
                k, value = self.points[-1]
                where = "" if k == report.iteration else f" at {unit} {k}"
                parts.append(f"{report.name} {value:.2g}{where} (stops at"
                             f" {report.target:.2g})")
            parts.append(time_left(self.points, report, self.clock() - self.started))
            bar.set_postfix_str(", ".join(parts), refresh=False)
            bar.refresh()
            self.shown = self.clock()


def time_left(points, report, seconds: float) -> str:
    """The time left, for ``report`` after ``seconds`` on its problem: the iterations left
    (:func:`halfspaces._progress.iterations_left`, extrapolating ``points``, the
    ``(iteration, measure)`` pairs) at the mean time per iteration so far. An
    extrapolation is labelled an estimate; without one, the time to ``max_iter`` (at the
    same pace) is a bound.

    Examples
    --------
    >>> from halfspaces._progress import Progress
    >>> report = Progress("dcd", 20, 1000, None, 1e-6, "relative duality gap")
    >>> time_left([(10, 1e-2), (20, 1e-4)], report, 40.0)   # 10 more epochs at 2 s each
    'time left ~00:20 (estimate)'
    >>> time_left([(10, 1e-2)], report, 40.0)  # one gap: at most 980 epochs of 2 s
    'time left at most ~32:40 (to max_iter 1000)'
    """
    from tqdm import tqdm

    from .._progress import iterations_left

    if report.iteration <= 0:
        return "time left unknown"
    left, extrapolated = iterations_left(points, report.target, report.iteration,
                                         report.max_iter)
    when = tqdm.format_interval(left * seconds / report.iteration)
    if extrapolated:
        return f"time left ~{when} (estimate)"
    return f"time left at most ~{when} (to max_iter {report.max_iter})"


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return value.item()
    return value


def print_json(obj: dict) -> None:
    print(json.dumps(_jsonable(obj), indent=2, sort_keys=False))


def print_table(rows: list[tuple[str, Any]]) -> None:
    """``key  value`` lines, the keys padded to one width; floats to 6 digits."""
    width = max(len(key) for key, _ in rows)
    for key, value in rows:
        if isinstance(value, (float, np.floating)):
            value = "inf" if np.isinf(value) else f"{value:.6g}"
        print(f"{key:<{width}}  {value}")


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, gzip/bz2/xz-compressed by extension
    (through a symbolic link; into a FIFO or a device such as /dev/null directly)."""
    with writing(path), atomic_write(path) as handle:
        handle.write(text.encode("utf-8"))
