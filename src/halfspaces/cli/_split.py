"""``split``: a data file cut into a training and a test file, line by line.

The rows to hold out are drawn by scikit-learn's ``train_test_split`` (stratified on the
labels with ``--stratify``, seeded by ``--random-state``); each output keeps the input's
lines as they are (its format, labels, weights, comments at the ends of lines, a CSV
header in both), in the input's order. Before anything is written, each output is read back
and must give exactly the input's rows it was meant to hold.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os

import numpy as np

from . import _plan
from ._io import PROG, STDIN, CLIError, about, read_args_data, writing


def cmd_split(args: argparse.Namespace) -> int:
    from sklearn.model_selection import train_test_split

    train_path, test_path = _outputs(args)
    if not 0.0 < args.test_fraction < 1.0:
        raise CLIError(f"--test-fraction must be between 0 and 1 (the share of the rows held"
                       f" out for testing); got {args.test_fraction}. Try 0.2")
    data = read_args_data(_plan.data_source(args))
    head, records = _records(_raw(args.data), data.format, data.n_samples, data.path)
    with about(data):
        train, test = train_test_split(np.arange(data.n_samples),
                                       test_size=args.test_fraction,
                                       stratify=data.y if args.stratify else None,
                                       random_state=args.random_state)
    parts = [(train_path, np.sort(train)), (test_path, np.sort(test))]
    texts = [head + b"".join(records[i] for i in rows) for _, rows in parts]
    for (path, rows), text in zip(parts, texts, strict=True):
        _check_rows(args, data, text, rows, path)
    from ..datasets._io import atomic_write

    for (path, _), text in zip(parts, texts, strict=True):
        with writing(path), atomic_write(path) as handle:
            handle.write(text)
    if not args.quiet:
        print(f"split {data.path} ({data.n_samples} examples): {train.size} to {train_path},"
              f" {test.size} to {test_path}"
              + (" (stratified by label)" if args.stratify else ""))
    return 0


def _outputs(args: argparse.Namespace) -> tuple[str, str]:
    """The two files of ``-o TRAIN -o TEST``, neither the input nor each other."""
    outputs = args.output or []
    if len(outputs) != 2:
        raise CLIError(f"split writes two files: give -o TRAIN -o TEST (got {len(outputs)}"
                       " -o)")
    if args.data == STDIN:
        raise CLIError("split needs DATA to be a file (its lines are copied to TRAIN and"
                       " TEST); save standard input to a file first")
    train, test = outputs
    if _same(train, test):
        raise CLIError(f"-o {train} -o {test}: the training and test files must differ")
    for path in outputs:
        if os.path.exists(args.data) and _same(path, args.data):
            raise CLIError(f"-o {path} is the input DATA itself: split never overwrites its"
                           " input; write the two parts to other files")
    return train, test


def _same(a: str, b: str) -> bool:
    with contextlib.suppress(OSError):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _raw(path: str) -> bytes:
    """The bytes of the data file (decompressed), or of the bundled set it names."""
    from ..datasets._io import open_binary
    from ..datasets.bundled import bundled_name, open_bundled

    name = bundled_name(path)
    source = open_bundled(name) if name is not None else contextlib.nullcontext(path)
    with source as opened, open_binary(opened) as f:
        return f.read()


def _records(raw: bytes, fmt: str, n: int, path: str) -> tuple[bytes, list[bytes]]:
    """``(head, records)``: the CSV header line (else ``b""``) and the lines that hold the
    ``n`` examples, each ending in a newline. Blank lines, and svmlight or VW comment lines,
    hold none."""
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    comment = b"#" if fmt in ("svmlight", "vw") else None
    records = [line.rstrip(b"\r") + b"\n" for line in raw.split(b"\n")
               if line.strip() and not (comment and line.lstrip().startswith(comment))]
    head = b""
    if fmt == "csv" and len(records) == n + 1:
        head, records = records[0], records[1:]
    if len(records) != n:
        raise CLIError(f"{path}: {len(records)} lines hold data but {n} examples were read, so"
                       " the file cannot be split line by line")
    return head, records


def _check_rows(args: argparse.Namespace, data, text: bytes, rows: np.ndarray,
                path: str) -> None:
    """Read ``text`` back as ``args.data`` was read; it must give the rows ``rows``."""
    import scipy.sparse as sp

    from ..datasets import load

    options = {"label_column": args.label_column, "weight_column": args.weight_column,
               "encoding": args.encoding, "delimiter": args.delimiter}
    if data.format in ("svmlight", "vw"):
        options = {"n_features": data.X.shape[1], "zero_based": data.zero_based}
    if data.format == "vw":
        options = {"n_features": data.X.shape[1]}
    if data.format == "tsv":
        options = {"encoding": args.encoding}
    part = load(io.BytesIO(text), data.format,
                **{k: v for k, v in options.items() if v is not None})
    if data.is_text:
        same_x = list(part.X) == [data.X[i] for i in rows]
    else:
        X, expected = part.X, data.X[rows]
        same_x = X.shape == expected.shape and (
            (sp.csr_matrix(X) != sp.csr_matrix(expected)).nnz == 0)
    same_w = np.array_equal(_weights(part, rows.size), _weights(data, data.n_samples)[rows])
    if not (same_x and np.array_equal(part.y, data.y[rows]) and same_w):
        raise CLIError(f"{data.path}: the lines meant for {path} do not read back as the same"
                       f" examples, so the file cannot be split line by line here; nothing"
                       f" was written ({PROG} split copies the lines that hold examples)")


def _weights(data, n: int) -> np.ndarray:
    """The example weights read (1 each where the file gives none but 1)."""
    return np.ones(n) if data.sample_weight is None else data.sample_weight
