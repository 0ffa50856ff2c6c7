"""The ``halfspaces`` command: train, predict, evaluate, play the online game, compute bounds.

A thin layer over the library: each sub-command reads a data file
(:func:`halfspaces.datasets.load`), builds an estimator from options named after its
parameters, calls the library (:func:`halfspaces.online.iter_play`,
:func:`halfspaces.theory.bounds_report`, :func:`halfspaces.metrics.evaluate`, the plotting
gallery) and prints the result.

Data files are told apart by ``--format`` or, when it is absent, by the extension (see
:mod:`halfspaces.datasets.loader`). ``-`` reads standard input (``--format``, else the
model's recorded format, else svmlight). ``train`` records the format, the svmlight indexing
(0- or 1-based, ``--zero-based`` / ``--one-based``, detected when neither is given) and the
number of features in the model file; ``predict`` and ``evaluate`` read later files with the
same indexing.

Errors print one line, ``halfspaces: error: FILE:LINE: problem``, and exit with status 1;
``--debug`` shows the traceback instead. ``halfspaces --help`` imports neither scikit-learn
nor SciPy: each command imports what it uses.

    _parser.py      the argument parser
    _options.py     algorithms, and the options that map 1:1 to parameters
    _io.py          reading data and model files, writing tables, JSON and files
    _estimators.py  the estimator --algo names
    _models.py      train, predict, evaluate
    _stream.py      train and predict from a svmlight file block by block (fit_file)
    _theory.py      play, bound
    _figures.py     plot, demo
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings

from ._io import CLIError
from ._options import known_flag
from ._parser import PROG, build_parser

__all__ = ["CLIError", "build_parser", "describe_error", "main"]


def describe_error(exc: BaseException) -> str:
    """One line naming the file, the line and the problem."""
    if isinstance(exc, OSError) and getattr(exc, "filename", None) is not None \
            and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    message = _option_names(" ".join(str(exc).split()))
    path, line = getattr(exc, "path", None), getattr(exc, "line", None)
    if path is not None and not message.startswith(str(path)) \
            and os.path.basename(str(path)) not in message.split(":", 1)[0]:
        where = f"{path}:{line}" if line is not None else str(path)
        message = f"{where}: {message}"
    if isinstance(exc, ImportError) and "matplotlib" in message:
        message += " (pip install 'halfspaces[plot]')"
    return message or type(exc).__name__


def _option_names(message: str) -> str:
    """``"SVC: 'lam' must be ..."`` -> ``"SVC: option --lam: 'lam' must be ..."``: a
    parameter check names the command-line option that set the parameter."""
    owner, sep, rest = message.partition(": '")
    flag = known_flag(rest.split("'", 1)[0]) if sep and " " not in owner else None
    return f"{owner}: option {flag}: '{rest}" if flag else message


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like errors (no source line)."""
    text = " ".join(str(message).split())
    print(f"{PROG}: warning: {text}", file=file or sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``halfspaces`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        with contextlib.suppress(Exception):
            sys.stdout = io.TextIOWrapper(io.BytesIO())
        return 0
    except (CLIError, ValueError, OSError, ImportError, LookupError) as exc:
        if args.debug:
            raise
        print(f"{PROG}: error: {describe_error(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if args.debug:
            raise
        print(f"{PROG}: error: unexpected {type(exc).__name__}: {describe_error(exc)}"
              " (run again with --debug for the traceback)", file=sys.stderr)
        return 1
