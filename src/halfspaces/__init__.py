"""halfspaces: online and large-margin linear classifiers with their theory built in.

Importing the package has no side effects: each public name is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_PUBLIC = {
    "Perceptron": ".linear.perceptron",
    "AveragedPerceptron": ".linear.averaged_perceptron",
    "VotedPerceptron": ".linear.voted_perceptron",
    "KernelPerceptron": ".kernel.kernel_perceptron",
    "HalvingClassifier": ".experts.halving",
    "WeightedMajorityClassifier": ".experts.weighted_majority",
    "PegasosSVC": ".linear.pegasos",
    "SVC": ".linear.svm",
    "LogisticRegression": ".linear.logistic",
    "LPSeparator": ".linear.lp",
    "NotSeparableError": ".exceptions",
    "NotRealizableError": ".exceptions",
    "play": ".online",
    "Transcript": ".online",
    "load": ".persistence",
    "ModelFormatError": ".persistence",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    raise AttributeError(f"module 'halfspaces' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
