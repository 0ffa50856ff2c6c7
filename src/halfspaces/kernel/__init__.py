"""Kernelized learners (the dual form f(x) = sum_i alpha_i y_i k(x_i, x) + b)."""

from __future__ import annotations

from .._lazy import attach

_PUBLIC = {
    "KernelPerceptron": ".kernel_perceptron",
    "KernelPegasosSVC": ".kernel_pegasos",
}
__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
