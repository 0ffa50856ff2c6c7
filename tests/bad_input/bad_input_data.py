"""The small data set and the estimators that the bad-input suite's tables run on."""

from __future__ import annotations

import numpy as np

from halfspaces import (
    SVC,
    AveragedPerceptron,
    KernelPegasosSVC,
    KernelPerceptron,
    LogisticRegression,
    LPSeparator,
    PegasosSVC,
    Perceptron,
    VotedPerceptron,
)
from halfspaces.experts import HalvingClassifier, WeightedMajorityClassifier

# Six rows labelled by the sign of the first feature: realizable by the hypothesis e_0 of the
# experts' class, so every estimator fits them.
X = np.array([[1.0, 0.5, -0.2], [-1.0, 0.3, 0.1], [2.0, -0.4, 0.5], [-2.0, 0.1, -0.3],
              [0.5, 0.2, 0.2], [-0.5, -0.1, 0.4]])
Y = (X[:, 0] > 0).astype(int)
HYPOTHESES = np.vstack([np.eye(3), -np.eye(3)])

ESTIMATORS = {
    "Perceptron": lambda: Perceptron(random_state=0),
    "AveragedPerceptron": lambda: AveragedPerceptron(random_state=0),
    "VotedPerceptron": lambda: VotedPerceptron(random_state=0),
    "KernelPerceptron": lambda: KernelPerceptron(random_state=0),
    "HalvingClassifier": lambda: HalvingClassifier(HYPOTHESES),
    "WeightedMajorityClassifier": lambda: WeightedMajorityClassifier(HYPOTHESES),
    "PegasosSVC": lambda: PegasosSVC(random_state=0),
    "KernelPegasosSVC": lambda: KernelPegasosSVC(random_state=0),
    "SVC": lambda: SVC(solver="qp"),  # "auto" picks dcd for sparse X: another optimum
    "LogisticRegression": lambda: LogisticRegression(),
    "LPSeparator": lambda: LPSeparator(),
}
