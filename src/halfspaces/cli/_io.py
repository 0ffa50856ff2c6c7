"""What the commands read and write: data files, model files, tables, JSON, a progress bar."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from typing import Any

import numpy as np

from ..datasets._io import atomic_write

STDIN = "-"
# Advice for the reader errors the command line re-words, in its own terms.
_HINTS = {
    "n_features": "pass a larger --n-features, or leave it out",
    "zero_index": "pass --zero-based, or neither --zero-based nor --one-based to detect the"
                  " indexing",
}


class CLIError(Exception):
    """A user error the command reports in one line (bad option combination, bad file)."""


# -- data -----------------------------------------------------------------------------------


def read_data(path: str, fmt: str | None = None, *, hints: dict[str, str] | None = None,
              **options):
    """:func:`halfspaces.datasets.load` on a file or, for ``-``, standard input (read once).

    ``hints`` replaces the advice of reader errors by their ``reason`` (see
    :class:`~halfspaces.datasets.DataFormatError`).
    """
    from ..datasets import DataFormatError, load

    source = sys.stdin.buffer if path == STDIN else path
    try:
        return load(source, fmt, **options)
    except DataFormatError as exc:
        hint = {**_HINTS, **(hints or {})}.get(exc.reason)
        if hint:
            raise exc.with_hint(hint) from None
        raise


def read_args_data(args: argparse.Namespace, *, numeric: str | None = None):
    """Read ``args.data`` with the data options given on the command line; ``numeric``: what
    the command needs features for, when raw text will not do."""
    from ..datasets import detect_format

    fmt = detect_format(args.data, args.format)
    # For raw text, --n-features is the number of hash buckets of train's vectorizer.
    data = read_data(args.data, fmt, label_column=args.label_column,
                     n_features=None if fmt == "tsv" else args.n_features,
                     zero_based=getattr(args, "zero_based", None))
    if numeric and data.is_text:
        raise CLIError(f"{data.path}: {numeric}")
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
    """A model trained on raw text is a Pipeline (vectorizer, estimator)."""
    from sklearn.pipeline import Pipeline

    return isinstance(model, Pipeline)


def read_for_model(model, metadata: dict, args: argparse.Namespace):
    """Read ``args.data`` as the model's training data was: standard input in its format
    (unless --format says otherwise), svmlight with its indexing (unless --zero-based or
    --one-based says otherwise), and its number of features."""
    from ..datasets import detect_format

    text_model = is_text_model(model)
    n_features = None if text_model else getattr(model, "n_features_in_", None)
    # A file is told by its extension (as at training); standard input by the model's record.
    default = metadata.get("format", "svmlight") if args.data == STDIN else "svmlight"
    fmt = detect_format(args.data, args.format, default=default)
    recorded = metadata.get("zero_based") if fmt == "svmlight" else None
    zero_based = args.zero_based if args.zero_based is not None else recorded
    hints = model_hints(args, n_features, recorded)
    data = read_data(args.data, fmt, hints=hints, label_column=args.label_column,
                     n_features=None if fmt == "tsv" else n_features, zero_based=zero_based)
    if text_model and not data.is_text:
        raise CLIError(f"{args.model}: this model was trained on raw text; give it a"
                       f" label<TAB>text file (.tsv or --format tsv), not {data.path}")
    if data.is_text and not text_model:
        raise CLIError(f"{args.model}: this model was trained on numeric features; {data.path}"
                       " is raw text. Train on text to get a model that featurizes it")
    return data


def model_hints(args: argparse.Namespace, n_features: int | None, recorded) -> dict:
    """Advice for reader errors on data read for the model ``args.model``, trained on
    ``n_features`` features with svmlight indexing ``recorded`` (0-based or not, or None)."""
    hints = {}
    if n_features is not None:
        hints["n_features"] = (f"the model {args.model} was trained on {n_features} features,"
                               " so this file does not match it")
    if args.zero_based is None and recorded is False:
        hints["zero_index"] = (f"the model {args.model} was trained on 1-based indices (its"
                               " training file had no index 0); if that file was 0-based too,"
                               " train again with --zero-based")
    return hints


# -- models ---------------------------------------------------------------------------------


def load_model(path: str) -> tuple[Any, dict]:
    """``(model, metadata)`` saved by ``train`` (any estimator or a text Pipeline); the
    metadata says how the training data was read (format, zero_based, n_features)."""
    if not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", str(path))
    from ..persistence import load

    return load(path, with_metadata=True)


def save_model(model, path: str, data) -> None:
    """Save ``model`` with how its training ``data`` was read, for :func:`read_for_model`."""
    from ..persistence import save

    metadata = {"format": data.format, "zero_based": data.zero_based,
                "n_features": None if data.is_text else int(data.X.shape[1])}
    save(model, path, metadata=metadata)


# -- output ---------------------------------------------------------------------------------


def progress(args: argparse.Namespace, **kwargs):
    """A tqdm bar on stderr, off with --quiet or when stderr is not a terminal."""
    from tqdm.auto import tqdm

    disable = getattr(args, "quiet", False) or not sys.stderr.isatty()
    return tqdm(disable=disable, file=sys.stderr, leave=False, **kwargs)


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
    with atomic_write(path) as handle:
        handle.write(text.encode("utf-8"))
