"""Linear classifiers, one algorithm per module (imported on first use)."""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "Perceptron": ".perceptron",
    "AveragedPerceptron": ".averaged_perceptron",
    "VotedPerceptron": ".voted_perceptron",
    "PegasosSVC": ".pegasos",
    "SVC": ".svm",
    "LogisticRegression": ".logistic",
    "LPSeparator": ".lp",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
