"""Lazy public names: a package lists ``name -> module`` and imports a module on first use.

This keeps ``import halfspaces`` free of side effects and fast (no numba compilation, no
scipy solvers) while ``from halfspaces import SVC`` still works (PEP 562).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def attach(package: str, public: dict[str, str]) -> tuple[Callable, Callable, list[str]]:
    """Return ``(__getattr__, __dir__, __all__)`` for ``package`` exporting ``public``."""

    def __getattr__(name: str) -> Any:
        if name in public:
            return getattr(importlib.import_module(public[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__, sorted(public)
