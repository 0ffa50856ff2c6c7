"""Fuzz the CSV and raw-text readers: ``load`` in the ``csv`` and ``tsv`` formats, plain or
gzip-compressed (and then maybe damaged), with a header or not.

The first byte picks the format, the CSV delimiter or the text header option, and whether
the rest is compressed and where one of its bytes is flipped. Properties checked on every
input: the only exception is ``DataFormatError`` (a damaged compressed file too); a CSV's
features are finite, one row per label, and the file read again as laid out by its own
columns (``read_csv_like``, as ``predict`` reads it for a model trained on it) gives the
same values; raw text gives one example per non-blank line, less a header only when it is
detected, and keeps every tab of a text.

Run: ``python fuzz/text.py fuzz/corpus/text -max_total_time=60``.
"""

from __future__ import annotations

import gzip
import warnings

from harness import instrumented, main, outcome, scratch

loader, csv_format, io = instrumented("halfspaces.datasets.loader",
                                      "halfspaces.datasets.csv_format",
                                      "halfspaces.datasets._io")

_DELIMITERS = (",", "\t", ";", " ")
_HEADERS = (None, True, False, None)


def _check_csv(path: str, delimiter: str, whole) -> None:
    import numpy as np

    X, y = whole.X, whole.y
    assert X.dtype == np.float64 and np.isfinite(X).all() and len(y) == X.shape[0]
    again = csv_format.read_csv_like(path, whole.layout, delimiter=delimiter)
    assert np.array_equal(again.X, X) and np.array_equal(again.y, y), "read alike differs"


def _check_tsv(text: bytes, header, whole) -> None:
    lines = [line for line in text.decode("utf-8-sig").split("\n") if line.strip()]
    n = len(whole.y)
    assert n == len(lines) - bool(header) or header is None and n == len(lines) - 1, \
        (n, len(lines), header)
    assert all(t.count("\t") <= line.count("\t") for t, line in zip(whole.X, lines[-n:],
                                                                      strict=True))


def test_one(data: bytes) -> None:
    if not data:
        return
    flags, text = data[0], data[1:]
    fmt = ("csv", "tsv")[flags & 1]
    options = {"delimiter": _DELIMITERS[(flags >> 1) & 3]} if fmt == "csv" else \
        {"header": _HEADERS[(flags >> 1) & 3]}
    name = f"input.{fmt}"
    raw = text
    if flags & 8:
        name += ".gz"
        raw = bytearray(gzip.compress(text, mtime=0))
        if flags & 16 and len(raw) > 18:
            raw[10 + (flags >> 5) * (len(raw) - 18) // 8] ^= 0x55  # inside the stream
        raw = bytes(raw)
    path = scratch(raw, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole, error = outcome(io.DataFormatError, lambda: loader.load(path, fmt, **options))
    if error is not None or flags & 16:
        return
    if fmt == "csv":
        _check_csv(path, options["delimiter"], whole)
    else:
        _check_tsv(text, options["header"], whole)


if __name__ == "__main__":
    main(test_one)
