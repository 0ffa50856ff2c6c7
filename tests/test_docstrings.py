"""The words around the code: a module docstring gives the rule, the guarantee and a link to
the user guide in at most 30 lines, and no docstring in ``src/`` carries measurements, load
averages or issue numbers (they belong to ``benchmarks/results`` and to commit bodies)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "halfspaces"
LIMIT = 30
# Module docstrings longer than LIMIT, each at most as long as given here (none now: the
# long ones moved to docs/internals.md, docs/scaling.md and docs/design.md).
LONGER: dict[str, int] = {}
# A time with its unit, an issue number, a load average, a machine, a benchmark's repeats.
MEASUREMENT = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|us|seconds|minutes)\b(?![-(^_])"
                         r"|\bissues?\s*#?\d|\bload average|\bat load \d|\bEPYC\b"
                         r"|\bmedian of \d+")


@functools.cache
def _sources() -> tuple[tuple[str, str], ...]:
    """Every module of the package, read once for both tests."""
    return tuple((path.relative_to(SRC).as_posix(), path.read_text(encoding="utf-8"))
                 for path in sorted(SRC.rglob("*.py")))


def _module_docstring(source: str) -> str:
    """The module docstring, parsed alone (parsing the whole package would cost a second)."""
    source = "\n".join(line for line in source.split("\n") if not line.startswith("#"))
    if not source.lstrip().startswith(('"""', 'r"""')):
        return ""
    start = source.index('"""')
    return ast.get_docstring(ast.parse(source[:source.index('"""', start + 3) + 3])) or ""


def test_module_docstrings_are_at_most_30_lines():
    lengths = {name: len(_module_docstring(source).splitlines()) for name, source in _sources()}
    too_long = {name: n for name, n in lengths.items() if n > LONGER.get(name, LIMIT)}
    assert not too_long, f"module docstrings over {LIMIT} lines (move the rest to docs/): " \
                         f"{too_long}"


def test_no_measurements_issue_numbers_or_load_in_docstrings():
    """Every triple-quoted text of the package: the docstrings, and the texts it prints."""
    found = []
    for name, source in _sources():
        for text in re.findall(r'"""(.*?)"""', source, re.S):
            for line in text.splitlines():
                example = line.lstrip().startswith((">>>", "..."))  # a doctest's own text
                if not example and MEASUREMENT.search(line):
                    found.append(f"{name}: {line.strip()}")
    assert not found, "measurements belong to benchmarks/results:\n" + "\n".join(found)


def test_every_public_estimator_documents_parameters_attributes_and_examples():
    import inspect

    import halfspaces

    missing = {}
    for name in halfspaces.__all__:
        obj = getattr(halfspaces, name)
        if inspect.isclass(obj) and hasattr(obj, "fit"):
            doc = inspect.getdoc(obj) or ""
            absent = [section for section in ("Parameters", "Attributes", "Examples")
                      if not re.search(rf"^{section}\n-{{{len(section)}}}$", doc, re.M)]
            if absent:
                missing[name] = absent
    assert not missing, f"numpydoc sections missing: {missing}"
