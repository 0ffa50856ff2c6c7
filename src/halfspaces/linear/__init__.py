"""Linear classifiers, one algorithm per module (imported on first use)."""

from __future__ import annotations

from .._lazy import attach

_PUBLIC = {
    "Perceptron": ".perceptron",
    "AveragedPerceptron": ".averaged_perceptron",
    "VotedPerceptron": ".voted_perceptron",
    "PegasosSVC": ".pegasos",
    "SVC": ".svm",
    "LogisticRegression": ".logistic",
    "LPSeparator": ".lp",
}
__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
