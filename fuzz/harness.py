"""What the fuzz targets share: instrumented imports, one scratch file, the libFuzzer loop.

Each target (``svmlight.py``, ``vw.py``, ``model.py``, ``cache.py``) reads the fuzzer's bytes
as a file, calls the public reader on it and lets exactly one exception type through: the
reader's own error (``DataFormatError``, ``ModelFormatError``, ``CacheError``). Anything else
(an ``IndexError``, a ``KeyError``, a hang, a crash of the interpreter) is a finding:
libFuzzer stops and writes the input to ``crash-<sha1>``; keep it as a regression test under
``tests/``.

atheris sees the coverage of Python code only. The svmlight reader's scanner is a numba
kernel, native code that atheris cannot instrument, so ``make fuzz`` runs that target with
``NUMBA_DISABLE_JIT=1``: the same kernel source then runs as Python, so the fuzzer is
guided by the scanner's branches, and an index past the buffer raises ``IndexError`` rather
than reading the padding. That the compiled kernel gives the same answer as the
interpreted one on every input is the differential property test of
``tests/datasets/test_reader_properties.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import tempfile
from pathlib import Path

import atheris


def _compiled_modules() -> list[str]:
    """The halfspaces modules that define numba kernels: numba cannot compile a function
    whose bytecode atheris has instrumented, so with the JIT on they are left alone."""
    root = Path(importlib.util.find_spec("halfspaces").origin).parent
    return [".".join(("halfspaces", *path.relative_to(root).with_suffix("").parts))
            for path in root.rglob("*.py") if "@njit" in path.read_text()]


def instrumented(*modules: str) -> list:
    """Import ``modules`` with atheris' coverage instrumentation of the halfspaces code."""
    from numba import config

    exclude = None if config.DISABLE_JIT else _compiled_modules()
    with atheris.instrument_imports(include=["halfspaces"], exclude=exclude):
        return [importlib.import_module(m) for m in modules]


_SCRATCH = tempfile.mkdtemp(prefix="halfspaces-fuzz-",
                            dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def scratch(data: bytes, name: str) -> str:
    """Write ``data`` to the file ``name`` of a private scratch directory; its path."""
    path = os.path.join(_SCRATCH, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def outcome(error_type, fn):
    """``(fn(), None)``, or ``(None, message)`` when ``fn`` raises ``error_type``."""
    try:
        return fn(), None
    except error_type as exc:
        return None, str(exc)


_INDEXING_HINT = re.compile(r"\((?:indices go up to [^)]*|[01]-based indices go up to \d+)\)")


def _same_error(error, stream_error) -> bool:
    if error is None or stream_error is None:
        return error == stream_error
    return _INDEXING_HINT.sub("(...)", error) == _INDEXING_HINT.sub("(...)", stream_error)


def check_stream_is_load(load, stream, error_type, data: bytes, name: str, chunk_rows: int,
                         options: dict) -> None:
    """The bytes ``data``, as the scratch file ``name``, load whole (``load(path,
    **options)``) exactly as the chunks of ``chunk_rows`` that ``stream`` gives with the same
    options stack, or both fail with the same ``error_type`` message; what loads is finite."""
    import numpy as np
    import scipy.sparse as sp

    path = scratch(data, name)
    whole, error = outcome(error_type, lambda: load(path, **options))
    chunks, stream_error = outcome(error_type, lambda: list(
        stream(path, chunk_rows=chunk_rows, **options)))
    if error is not None and "no examples in the file" in error and chunks == []:
        return  # a stream of no examples is empty, not an error
    if error is not None or stream_error is not None:
        # One documented difference: with zero_based="auto" a stream decides the indexing
        # from its first block with a feature (it cannot look ahead), so its "beyond the N
        # features" error says which indexing it decided, where load (which decides from the
        # whole file) gives both; the file, line, column, problem and fix must agree.
        assert _same_error(error, stream_error), (error, stream_error)
        return
    assert np.isfinite(whole[0].data).all(), "a non-finite value was read, not refused"
    for item in whole[1:]:  # labels (and weights): qids are integers
        assert item.dtype.kind != "f" or np.isfinite(item).all(), "a non-finite label was read"
    X = sp.vstack([c[0] for c in chunks], format="csr")
    assert whole[0].shape == X.shape and (whole[0] != X).nnz == 0, "chunks differ from load"
    for i in range(1, len(whole)):
        assert np.array_equal(whole[i], np.concatenate([c[i] for c in chunks])), \
            f"item {i} of the chunks differs from the load"


def main(test_one) -> None:
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
