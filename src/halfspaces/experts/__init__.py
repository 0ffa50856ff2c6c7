"""Learning with a finite class of experts: Halving and Weighted Majority / Hedge."""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "HalvingClassifier": ".halving",
    "WeightedMajorityClassifier": ".weighted_majority",
    "CoordinateStump": "._hypotheses",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
