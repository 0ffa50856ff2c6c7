"""The ``halfspaces`` command (grows with the CLI issue)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    raise SystemExit("halfspaces: the command line is not built yet")
