"""The ``halfspaces`` command: train, predict, evaluate, play the online game, compute bounds.

A thin layer over the library: each sub-command checks its arguments once into a plan
(``_plan.py``: the data, the features, the estimator from options named after its
parameters, the output), reads the data (:func:`halfspaces.datasets.load`), calls the library
(:func:`halfspaces.online.iter_play`, :func:`halfspaces.theory.bounds_report`,
:func:`halfspaces.metrics.evaluate`, the plotting gallery) and prints the result.

Data files are told apart by ``--format`` or, when it is absent, by the extension (see
:mod:`halfspaces.datasets.loader`). ``-`` reads standard input (``--format``, else the
model's recorded format, else svmlight). ``train`` records the format, the svmlight indexing
(0- or 1-based, ``--zero-based`` / ``--one-based``, detected when neither is given) and the
number of features in the model file; ``predict`` and ``evaluate`` read later files with the
same indexing.

Errors print one line, ``halfspaces: error: FILE:LINE: problem``, and exit with status 1,
with the library's advice re-worded as options (:func:`cli_terms`); with ``--json`` the
error is a JSON object on standard output (``error``, ``file``, ``line``); an unknown option
shows the sub-command's usage (status 2). ``--debug`` shows the traceback instead.
``halfspaces --help`` imports neither scikit-learn nor SciPy: each command imports what it
uses; ``predict`` with a linear model on a small svmlight file imports neither scikit-learn
nor numba (``_quick.py``).

The modules: docs/design.md.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import re
import sys
import warnings

from ._io import PROG, CLIError
from ._options import ALGOS, BOOL_OPTIONS, known_flag
from ._parser import build_parser
from ._records import refuse_overwriting_inputs

__all__ = ["CLIError", "build_parser", "cli_terms", "describe_error", "main"]

_SWITCHES = {option for option, _, _ in BOOL_OPTIONS}  # --name and --no-name, no value


def describe_error(exc: BaseException) -> str:
    """One line naming the file, the line and the problem, in the command line's terms."""
    if isinstance(exc, OSError) and getattr(exc, "filename", None) is not None \
            and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    message = cli_terms(_option_names(" ".join(str(exc).split())))
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


def _algo_of(match: re.Match) -> str:
    algo = {cls: name for name, cls in ALGOS.items()}.get(match[2])
    return f"{match[1]} --algo {algo}" if algo else match[0]


def _flag_value(match: re.Match) -> str:
    option = known_flag(match[1])
    if option in _SWITCHES and match[2] in ("True", "False"):  # --shuffle / --no-shuffle
        return option if match[2] == "True" else "--no-" + option[2:]
    return f"{option} {match[2]}" if option else match[0]


def _quoted_value(match: re.Match) -> str:
    """``multi_class='ovr'`` -> ``--set multi_class=ovr``, ``solver='qp'`` -> ``--solver qp``:
    an estimator parameter's value as the command line sets it."""
    from .._params import TABLES

    name, value = match[1], match[2]
    if not any(name in table for table in TABLES.values()):
        return match[0]
    option = known_flag(name)
    return f"{option} {value}" if option else f"--set {name}={value}"


def _flag_advice(match: re.Match) -> str:
    option = known_flag(match[2])
    return f"{match[1]} {option}" if option else match[0]


# The library's advice re-worded for the command line: (pattern, replacement), in order.
_CLI_TERMS = [
    # scikit-learn's paragraphs after its first sentence
    (re.compile(r"^(Input (?:X |y )?contains (?:NaN|infinity)[^.]*)\..*"),
     r"\1: remove those values or replace them by numbers"),
    (re.compile(r"^(?:\w+: )?Found array with 0 feature\(s\).*"),
     "no feature columns were read: check --format, --delimiter and --label-column"),
    # a Python function or attribute where the command has a name of its own
    (re.compile(r"^(?:[a-z]+_[a-z_]+|load): "), ""),
    (re.compile(r" \(see \.certificate(?:s_\[\d+\])?;? ?([^)]*)\)"),
     r" (\1; halfspaces bound DATA prints the certificate)"),
    (re.compile(r"certificate certificates_\[\d+\]"), "certificate"),
    (re.compile(r"\b[A-Z]\w+\((\w+)='([^']*)'\)"), r"--set \1=\2"),
    (re.compile(r"\b([a-z][a-z_]*)='([^']*)'"), _quoted_value),
    (re.compile(r"\bto raise NotSeparableError\b"), "to stop with an error"),
    (re.compile(r"\b(such as|or|use|Use) ([A-Z]\w+)\b"), _algo_of),
    (re.compile(r"(?<![-\w])(?<!--set )([A-Za-z_]+)=([-+\w.]+?)(?=[;,)]|\.?(?:\s|$))"),
     _flag_value),
    (re.compile(r"\b(Increase|increase|Raise|raise|Lower|lower) ([A-Za-z][a-z_]*)\b(?![=(])"),
     _flag_advice),
    (re.compile(r"\bheader=False\b"), "--no-header"),
    (re.compile(r"\blabel_column (?=-?\d)"), "--label-column "),
    (re.compile(r"\bweight_column (?=-?\d)"), "--weight-column "),
    (re.compile(r"\blabel_column and weight_column\b"), "--label-column and --weight-column"),
    (re.compile(r"\ba smaller n_features \(or leave it None:"),
     "a smaller --n-features (or leave it out:"),
    (re.compile(r"\bnp\.inf\b"), "inf"),
    (re.compile(r"\ba finite C\b"), "a finite --C"),
    (re.compile(r"Enlarge the hypothesis class"),
     "Enlarge the hypothesis class (--n-hypotheses, --hypotheses stumps)"),
    (re.compile(r"Test one class against the rest, e\.g\. y == k\."),
     "Relabel the data as one class against the rest."),
]


def cli_terms(message: str) -> str:
    """A library message with its Python advice (keywords, attributes, class names, the
    paragraphs of scikit-learn) re-worded as command-line options."""
    for pattern, replacement in _CLI_TERMS:
        message = pattern.sub(replacement, message)
    return message


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like errors (no source line)."""
    text = cli_terms(" ".join(str(message).split()))
    print(f"{PROG}: warning: {text}", file=file or sys.stderr)


def _report(args, exc: BaseException, message: str) -> None:
    """The one line of an error: on standard error, or with --json a JSON object on standard
    output (``error``, and ``file`` and ``line`` when known)."""
    if getattr(args, "json", False):
        path = getattr(exc, "path", None) or getattr(exc, "filename", None)
        obj = {"error": message, "file": None if path is None else str(path),
               "line": getattr(exc, "line", None)}
        print(json.dumps(obj))
    else:
        print(f"{PROG}: error: {message}", file=sys.stderr)


def run() -> None:
    """The ``halfspaces`` console script (and ``python -m halfspaces``): :func:`main`, then
    exit with its status.

    A command is a short process that imports about 150,000 long-lived objects (numba's typing
    tables, SciPy, NumPy) and keeps them to the end. Python's cyclic garbage collector walked
    all of them in its full passes during those imports and once more at exit, a large part of a
    short command's time (``benchmarks/bench_io.py``). So the command collects less often (a
    first-generation pass every 100,000 net allocations instead of 700: cycles made while
    training are still collected, so memory stays bounded), and freezes what lives at the end so
    that the exit does not walk it again (:func:`gc.freeze`). Only the command's own process:
    :func:`main`, which tests and scripts call, leaves the collector alone."""
    gc.set_threshold(100_000, 20, 100)
    try:
        status = main()
    finally:
        gc.freeze()
    sys.exit(status)


def main(argv: list[str] | None = None) -> int:
    """Run the ``halfspaces`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(json_errors="--json" in argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the sub-command's usage, not the top level's
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            refuse_overwriting_inputs(args)
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
        _report(args, exc, describe_error(exc))
        return 1
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if args.debug:
            raise
        _report(args, exc, f"unexpected {type(exc).__name__}: {describe_error(exc)} (run again"
                      " with --debug for the traceback)")
        return 1
