"""Fuzz the Vowpal Wabbit reader: ``load_vw`` and ``iter_vw`` on the same bytes.

The first byte picks the options (hashing or integer names, ``zero_based``,
``n_features``, chunk size); the rest is the file. Properties checked on every input: the
only exception is ``DataFormatError``; the streamed chunks stacked are exactly the whole
load, a file that fails to load fails to stream, with the same message, and every value,
label and weight read is finite (an infinity or an overflow is refused).

Run: ``python fuzz/vw.py fuzz/corpus/vw -max_total_time=60``.
"""

from __future__ import annotations

from harness import check_stream_is_load, instrumented, main

vw, io = instrumented("halfspaces.datasets.vw", "halfspaces.datasets._io")

_ZERO_BASED = ("auto", True, False)


def test_one(data: bytes) -> None:
    if not data:
        return
    flags, text = data[0], data[1:]
    hashing = bool(flags & 1)
    options = {"hash_features": hashing, "zero_based": _ZERO_BASED[(flags >> 1) % 3],
               "n_features": (16 if hashing else None, 1000)[(flags >> 3) & 1],
               "return_weights": bool(flags & 16)}
    check_stream_is_load(vw.load_vw, vw.iter_vw, io.DataFormatError, text, "input.vw",
                         1 + (flags >> 5), options)


if __name__ == "__main__":
    main(test_one)
