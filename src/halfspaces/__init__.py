"""halfspaces: online and large-margin linear classifiers with their theory built in.

Importing the package has no side effects: each public name is imported on first use.
"""

from __future__ import annotations

from ._lazy import attach

__version__ = "0.1.0"

_PUBLIC = {
    "Perceptron": ".linear.perceptron",
    "AveragedPerceptron": ".linear.averaged_perceptron",
    "VotedPerceptron": ".linear.voted_perceptron",
    "KernelPerceptron": ".kernel.kernel_perceptron",
    "KernelPegasosSVC": ".kernel.kernel_pegasos",
    "HalvingClassifier": ".experts.halving",
    "WeightedMajorityClassifier": ".experts.weighted_majority",
    "PegasosSVC": ".linear.pegasos",
    "SVC": ".linear.svm",
    "SVCCV": ".model_selection",
    "LogisticRegression": ".linear.logistic",
    "LPSeparator": ".linear.lp",
    "NotSeparableError": ".exceptions",
    "NotSeparableWarning": ".exceptions",
    "NotRealizableError": ".exceptions",
    "InexactMarginWarning": ".exceptions",
    "SolverFallbackWarning": ".exceptions",
    "NumericalError": ".exceptions",
    "MemoryBudgetError": ".exceptions",
    "play": ".online",
    "Transcript": ".online",
    "load": ".persistence",
    "save": ".persistence",
    "ModelFormatError": ".persistence",
}

__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
