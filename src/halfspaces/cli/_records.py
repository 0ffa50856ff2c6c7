"""What a command checks of the files it names, and what a model file records of the data it
was trained on: outputs that are inputs, CSV columns, and svmlight widths."""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from ._io import PROG, STDIN, CLIError, _name, in_cli_terms

# -- outputs ---------------------------------------------------------------------------------


def refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output file of the command that is one of its inputs
    (the same file by device and inode: a symbolic or hard link, another spelling of the
    path): writing it would destroy the input. Standard input and output (``-``), and files
    that are not regular files (``/dev/null``, a FIFO), are never the same file."""
    outputs = [("-o", getattr(args, "output", None))]
    if getattr(args, "checkpoint_every", 0) or getattr(args, "resume", False):
        outputs.append(("the checkpoint", args.output and args.output + ".checkpoint"))
    inputs = [("MODEL", getattr(args, "model", None)), ("DATA", getattr(args, "data", None))]
    if getattr(args, "command", None) == "data" and args.name is not None:
        from ..datasets.bundled import BUNDLED, _path

        if BUNDLED[args.name].file is not None:
            inputs.append((f"the bundled set {args.name}", str(_path(BUNDLED[args.name].file))))
    for out_name, out in outputs:
        out_id = _regular_file_id(out)
        if out_id is None:
            continue
        for in_name, source in inputs:
            if _regular_file_id(source) == out_id:
                raise CLIError(f"{out_name} {out} is the same file as {in_name} {source}:"
                               " writing it would destroy the command's own input; write"
                               " to another file")


def _regular_file_id(path) -> tuple[int, int] | None:
    """``(device, inode)`` of the regular file ``path`` leads to, else None."""
    import stat

    if not isinstance(path, str) or path == STDIN:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


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


def read_csv_like(args: argparse.Namespace, layout, metadata: dict, labelled: bool):
    """A CSV file read for a model trained on the CSV ``layout``: the columns by name
    where both have a header, else by position (see
    :func:`~halfspaces.datasets.csv_format.read_csv_like`); a Dataset whose ``y`` is None
    where the file has no label column (``labelled=False``)."""
    from ..datasets import DataFormatError, Dataset
    from ..datasets.csv_format import read_csv_like as read_like

    source = sys.stdin.buffer if args.data == STDIN else args.data
    delimiter = args.delimiter or metadata["csv"]["delimiter"]
    n_model = len(layout.features)
    try:
        table = read_like(source, layout, labelled=labelled, label_column=args.label_column,
                              weight_column=getattr(args, "weight_column", None),
                              encoding=args.encoding or "utf-8", delimiter=delimiter)
        if table.X.shape[1] != n_model:
            where = "" if layout.header is None else \
                f" (its training file's columns: {', '.join(layout.header)})"
            raise DataFormatError(source, None, f"has {table.X.shape[1]} feature columns, but"
                                  f" the model {args.model} was trained on {n_model}{where}",
                                  hint="give a file with the model's columns, and"
                                  " --label-column (and --weight-column) where they are"
                                  " not where they were at training")
    except DataFormatError as exc:
        raise in_cli_terms(exc, {"label_column": "name the label's column with"
                                                 " --label-column"}) from None
    if table.ignored:
        print(f"{PROG}: note: {_name(args.data)}: column{'s' * (len(table.ignored) > 1)}"
              f" {', '.join(table.ignored)} ignored (not among the model's columns)",
              file=sys.stderr)
    w = table.sample_weight
    unit = w is None or bool(np.all(w == 1.0))
    return Dataset(table.X, table.y, _name(args.data), "csv", None, None if unit else w,
                   table.layout)


# -- svmlight widths --------------------------------------------------------------------------

# A svmlight file is refused as too wide for its features when a weight vector as wide as its
# largest index would take more than WIDE_FEATURES float64 and the file uses fewer than one in
# SPARSE_USE of those features: most likely one index is a typo or a hashed feature id.
WIDE_FEATURES = 2**24
SPARSE_USE = 1024


def check_width(args: argparse.Namespace, data) -> None:
    """Ask before a weight vector far wider than the features ``data`` uses is made: a
    svmlight file read without --n-features whose largest index is far beyond the rest
    (see ``WIDE_FEATURES``) is refused, naming the index, its line and the fixes."""
    import scipy.sparse as sp

    if data.format != "svmlight" or args.n_features or not sp.issparse(data.X) \
            or data.X.shape[1] <= WIDE_FEATURES:
        return
    _refuse_sparse_use(args, data.path, data.X.shape[1], np.unique(data.X.indices),
                       data.zero_based)


def check_stream_width(args: argparse.Namespace, n_features: int, zero_based: bool,
                       blocks) -> None:
    """:func:`check_width` for a svmlight file that training streams, before the learner
    makes its weight vector: ``n_features`` and ``zero_based`` as the file was read (a survey
    or a cache found them), ``blocks()`` a pass over its ``(X, y)`` blocks, which counts the
    features used (only for a file wider than ``WIDE_FEATURES``)."""
    if args.n_features or n_features <= WIDE_FEATURES:
        return
    used = np.empty(0, dtype=np.int64)
    for X, *_ in blocks():
        used = np.union1d(used, X.indices)
        if used.size * SPARSE_USE >= n_features:
            return
    _refuse_sparse_use(args, _name(args.data), n_features, used, zero_based)


def _refuse_sparse_use(args: argparse.Namespace, name: str, n: int, used: np.ndarray,
                       zero_based: bool) -> None:
    """Raise the CLIError of a file of ``n`` columns that uses the features ``used`` (sorted)
    when it uses fewer than one in SPARSE_USE of them."""
    from ..datasets import DataFormatError, iter_blocks
    from ..datasets._io import byte_size

    if used.size * SPARSE_USE >= n:
        return
    second = int(used[-2]) if used.size > 1 else -1
    where = ""
    if args.data != STDIN:
        try:  # the reader names the line of the first index beyond the others
            for _ in iter_blocks(args.data, "svmlight", n_features=max(second + 1, 1),
                                 zero_based=zero_based):
                pass
        except DataFormatError as exc:
            where = f" on line {exc.line}" if exc.line is not None else ""
    first = 0 if zero_based else 1
    raise CLIError(
        f"{name}: index {n - 1 + first}{where} is far beyond the others (the next"
        f" largest is {second + first}; {used.size} distinct features in all): a weight"
        f" vector that wide takes {byte_size(8.0 * n)} per class, almost all of it weights"
        f" of features no example has. If the index is right, pass --n-features {n} to"
        f" train on it anyway; if it is a typo, fix that line; for feature ids hashed into"
        f" a large range, hash them into fewer buckets (e.g. write the file in VW format and"
        f" pass --n-features 1048576)")


# -- labels ----------------------------------------------------------------------------------

def check_labels(data) -> None:
    """Refuse labels that are not classes (numbers that are not all whole: the values of a
    feature or a regression target), naming the CSV column they came from and some of its
    values, before the estimator's complaint in its own terms."""
    y = np.asarray(data.y)
    if data.is_text or y.dtype.kind != "f" or not y.size or np.all(y == np.round(y)):
        return
    distinct = np.unique(y)
    values = ", ".join(f"{v:g}" for v in distinct[:5]) + ", ..." * (distinct.size > 5)
    where = "the labels"
    fix = "classify with labels that are classes (e.g. -1 and 1, or 0 and 1)"
    if data.format == "csv" and data.layout is not None:
        column = data.layout.label
        name = "" if data.layout.header is None else f" ({data.layout.header[column]!r})"
        where = f"the label column, column {column}{name},"
        fix = ("pass --label-column with the column of the classes (an index, -1 for the"
               " last, or a header name)")
    raise CLIError(f"{data.path}: {where} holds numbers that are not classes ({values}:"
                   f" {distinct.size} distinct values, not all whole); {fix}")
