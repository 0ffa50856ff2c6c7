"""What a command checks of the files it names, and what a model file records of the data it
was trained on: outputs that are inputs, CSV columns, and svmlight widths."""

from __future__ import annotations

import argparse
import os

import numpy as np

from ._io import STDIN, CLIError, _name

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


# -- svmlight widths --------------------------------------------------------------------------

# A svmlight file is refused as too wide for its features when a weight vector as wide as its
# largest index would take more than WIDE_FEATURES float64 and the file uses fewer than one in
# SPARSE_USE of those features: most likely one index is a typo or a hashed feature id.
WIDE_FEATURES = 2**24
SPARSE_USE = 1024


def check_width(source, data) -> None:
    """Ask before a weight vector far wider than the features ``data`` uses is made: a
    svmlight file (of ``source``, a :class:`~._plan.Source`) read without --n-features
    whose largest index is far beyond the rest (see ``WIDE_FEATURES``) is refused, naming
    the index, its line and the fixes."""
    import scipy.sparse as sp

    if data.format != "svmlight" or source.n_features or not sp.issparse(data.X) \
            or data.X.shape[1] <= WIDE_FEATURES:
        return
    _refuse_sparse_use(source, data.path, data.X.shape[1], np.unique(data.X.indices),
                       data.zero_based)


def check_stream_width(source, n_features: int, zero_based: bool, blocks) -> None:
    """:func:`check_width` for a svmlight file that training streams, before the learner
    makes its weight vector: ``n_features`` and ``zero_based`` as the file was read (a survey
    or a cache found them), ``blocks()`` a pass over its ``(X, y)`` blocks, which counts the
    features used (only for a file wider than ``WIDE_FEATURES``)."""
    if source.n_features or n_features <= WIDE_FEATURES:
        return
    used = np.empty(0, dtype=np.int64)
    for X, *_ in blocks():
        used = np.union1d(used, X.indices)
        if used.size * SPARSE_USE >= n_features:
            return
    _refuse_sparse_use(source, _name(source.path), n_features, used, zero_based)


def _refuse_sparse_use(source, name: str, n: int, used: np.ndarray,
                       zero_based: bool) -> None:
    """Raise the CLIError of a file of ``n`` columns that uses the features ``used`` (sorted)
    when it uses fewer than one in SPARSE_USE of them."""
    from ..datasets import DataFormatError, iter_blocks
    from ..datasets._io import byte_size

    if used.size * SPARSE_USE >= n:
        return
    second = int(used[-2]) if used.size > 1 else -1
    where = ""
    if source.path != STDIN:
        try:  # the reader names the line of the first index beyond the others
            for _ in iter_blocks(source.path, "svmlight", n_features=max(second + 1, 1),
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
