"""The svmlight reader run in another interpreter, for the compiled-vs-interpreted test.

``python tests/parser_worker.py`` reads pickled ``(path, options)`` requests on stdin and
answers each with the pickled :func:`outcome`; the test starts it with the opposite
``NUMBA_DISABLE_JIT`` of its own process, so one side runs the compiled kernels and the other
the same source as Python.
"""

from __future__ import annotations

import os
import pickle
import sys


def outcome(path, options: dict) -> tuple:
    """What ``load_svmlight(path, **options)`` gives, as comparable plain values: every
    array as bytes (bit for bit), or the error's type and message."""
    from halfspaces.datasets import DataFormatError, load_svmlight

    try:
        X, *rest = load_svmlight(path, **options)
    except DataFormatError as exc:
        return ("DataFormatError", str(exc))
    except Exception as exc:  # a finding: the test fails on it, with its text
        return (type(exc).__name__, str(exc))
    return ("ok", X.shape, X.indptr.astype("int64").tobytes(),
            X.indices.astype("int64").tobytes(), X.data.tobytes(),
            *(a.tobytes() for a in rest))


def serve() -> None:
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else prints goes to stderr, not into the answers
    requests = sys.stdin.buffer
    while True:
        try:
            path, options = pickle.load(requests)
        except EOFError:
            return
        pickle.dump(outcome(path, options), answers)
        answers.flush()


if __name__ == "__main__":
    serve()
