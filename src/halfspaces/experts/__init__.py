"""Learning with a finite class of experts: Halving and Weighted Majority / Hedge."""

from __future__ import annotations

from .._lazy import attach

_PUBLIC = {
    "HalvingClassifier": ".halving",
    "WeightedMajorityClassifier": ".weighted_majority",
    "CoordinateStump": "._hypotheses",
    "make_hypotheses": ".hypothesis_classes",
    "Hypotheses": ".hypothesis_classes",
}
__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
