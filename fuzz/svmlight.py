"""Fuzz the svmlight reader: ``load_svmlight`` and ``iter_svmlight`` on the same bytes.

The first byte picks the options (``zero_based``, ``n_features``, ``query_id``, chunk
size); the rest is the file. Properties checked on every input:

- the only exception is ``DataFormatError``;
- the streamed chunks stacked are exactly the whole load, and a file that fails to load
  fails to stream, with the same message;
- every value and label read is finite (an infinity or an overflow is refused).

Run: ``NUMBA_DISABLE_JIT=1 python fuzz/svmlight.py fuzz/corpus/svmlight -max_total_time=60``
(see harness.py for why without the JIT).
"""

from __future__ import annotations

from harness import check_stream_is_load, instrumented, main

svmlight, io = instrumented("halfspaces.datasets.svmlight", "halfspaces.datasets._io")

_ZERO_BASED = ("auto", True, False)


def test_one(data: bytes) -> None:
    if not data:
        return
    flags, text = data[0], data[1:]
    options = {"zero_based": _ZERO_BASED[flags % 3],
               "n_features": (None, 4, 1000)[(flags >> 2) % 3],
               "query_id": bool(flags & 16)}
    check_stream_is_load(svmlight.load_svmlight, svmlight.iter_svmlight, io.DataFormatError,
                         text, "input.svm", 1 + (flags >> 5), options)


if __name__ == "__main__":
    main(test_one)
