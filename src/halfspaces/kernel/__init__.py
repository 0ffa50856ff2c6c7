"""Kernelized learners (the dual form f(x) = sum_i alpha_i y_i k(x_i, x) + b)."""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "KernelPerceptron": ".kernel_perceptron",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
