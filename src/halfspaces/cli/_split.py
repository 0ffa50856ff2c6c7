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

import numpy as np

from . import _plan
from ._io import PROG, CLIError, about, read_args_data, writing
from ._plan import SplitPlan


def cmd_split(args: argparse.Namespace) -> int:
    return split(_plan.split_plan(args))


def split(plan: SplitPlan) -> int:
    """Copy the lines of the data file that hold examples into the two outputs."""
    from sklearn.model_selection import train_test_split

    train_path, test_path = plan.train, plan.test
    data = read_args_data(plan.source)
    head, records = _records(_raw(plan.source.path), data.format, data.n_samples, data.path)
    with about(data):
        train, test = train_test_split(np.arange(data.n_samples),
                                       test_size=plan.test_fraction,
                                       stratify=data.y if plan.stratify else None,
                                       random_state=plan.random_state)
    parts = [(train_path, np.sort(train)), (test_path, np.sort(test))]
    texts = [head + b"".join(records[i] for i in rows) for _, rows in parts]
    for (path, rows), text in zip(parts, texts, strict=True):
        _check_rows(plan.source, data, text, rows, path)
    from ..datasets._io import atomic_write

    for (path, _), text in zip(parts, texts, strict=True):
        with writing(path), atomic_write(path) as handle:
            handle.write(text)
    if not plan.report.quiet:
        print(f"split {data.path} ({data.n_samples} examples): {train.size} to {train_path},"
              f" {test.size} to {test_path}"
              + (" (stratified by label)" if plan.stratify else ""))
    return 0


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


def _check_rows(source, data, text: bytes, rows: np.ndarray, path: str) -> None:
    """Read ``text`` back as the file of ``source`` (a :class:`~._plan.Source`) was read; it
    must give the rows ``rows``."""
    import scipy.sparse as sp

    from ..datasets import load

    options = {"label_column": source.label_column, "weight_column": source.weight_column,
               "encoding": source.encoding, "delimiter": source.delimiter}
    if data.format in ("svmlight", "vw"):
        options = {"n_features": data.X.shape[1], "zero_based": data.zero_based}
    if data.format == "vw":
        options = {"n_features": data.X.shape[1]}
    if data.format == "tsv":
        options = {"encoding": source.encoding}
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
