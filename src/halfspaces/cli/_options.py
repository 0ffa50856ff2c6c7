"""The command line's vocabulary: algorithms, and options that map 1:1 to parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any

ALGOS = {
    "perceptron": "Perceptron",
    "averaged": "AveragedPerceptron",
    "voted": "VotedPerceptron",
    "kernel-perceptron": "KernelPerceptron",
    "pegasos": "PegasosSVC",
    "svm": "SVC",
    "logistic": "LogisticRegression",
    "lp": "LPSeparator",
    "halving": "HalvingClassifier",
    "weighted-majority": "WeightedMajorityClassifier",
}
EXPERT_ALGOS = ("halving", "weighted-majority")
# Learners whose online mistakes Novikoff's theorem bounds.
PERCEPTRON_ALGOS = ("perceptron", "averaged", "voted")
PLOT_KINDS = ("boundary", "regularization", "max-margin", "mistakes", "objective", "update")


def float_or_inf(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (or 'inf'), got {text!r}") from None


def _gamma(text: str) -> float | str:
    if text in ("scale", "auto"):
        return text
    return float_or_inf(text)


def literal(text: str) -> Any:
    """``--set name=value`` values: JSON literals (1, 0.5, true, null, "x") or a bare string."""
    try:
        return json.loads(text)
    except ValueError:
        lowered = text.lower()
        if lowered in ("inf", "+inf", "-inf"):
            return float(lowered)
        return text


# Estimator options: (flag, parameter, argparse keywords). Each maps 1:1 to a parameter.
ESTIMATOR_OPTIONS = [
    ("--C", "C", {"type": float_or_inf, "help": "SVM constant C ('inf' for the hard margin)"}),
    ("--lam", "lam", {"type": float_or_inf,
                      "help": "lambda of the regularized objective (C = 1/(lam n))"}),
    ("--max-iter", "max_iter", {"type": int, "help": "most passes (epochs) over the data"}),
    ("--tol", "tol", {"type": float_or_inf, "help": "stopping tolerance"}),
    ("--kernel", "kernel", {"help": "kernel: linear, poly or rbf"}),
    ("--gamma", "gamma", {"type": _gamma, "help": "kernel width (a float, 'scale' or 'auto')"}),
    ("--degree", "degree", {"type": int, "help": "degree of the poly kernel"}),
    ("--coef0", "coef0", {"type": float_or_inf, "help": "constant of the poly kernel"}),
    ("--solver", "solver", {"help": "solver, e.g. auto, qp or dcd (svm)"}),
    ("--beta", "beta", {"type": float_or_inf,
                        "help": "weight multiplier on a mistake (weighted-majority)"}),
    ("--n-jobs", "n_jobs", {"type": int, "metavar": "N",
                            "help": "threads for the one-vs-rest classes (svm, perceptron,"
                                    " averaged, voted, kernel-perceptron, pegasos, logistic,"
                                    " lp; -1: every core)"}),
    ("--random-state", "random_state", {"type": int, "metavar": "SEED",
                                         "help": "seed of every random choice"}),
    ("--validation-fraction", "validation_fraction", {
        "type": float, "metavar": "F",
        "help": "share of the rows --early-stopping holds out (default: 0.1)"}),
    ("--n-iter-no-change", "n_iter_no_change", {
        "type": int, "metavar": "N",
        "help": "epochs without a held-out gain before --early-stopping stops (default: 5)"}),
]
BOOL_OPTIONS = [
    ("--fit-intercept", "fit_intercept", "learn an offset b (default: the estimator's)"),
    ("--shuffle", "shuffle", "perceptrons, logistic --solver sgd: rows of each pass in a new"
                             " random order (default; --no-shuffle keeps the file's order)"),
    ("--probability", "probability", "svm, pegasos, perceptrons: fit Platt's sigmoid on 5"
                                     " held-out folds, for predict --proba"),
    ("--early-stopping", "early_stopping", "perceptrons, pegasos, logistic --solver sgd: hold out"
                                           " --validation-fraction of the rows and stop when"
                                           " their accuracy stops improving"),
]
# Options of the library functions the commands call, by the parameter they set.
FUNCTION_FLAGS = {"n_hypotheses": "--n-hypotheses", "kind": "--hypotheses",
                  "label_column": "--label-column", "weight_column": "--weight-column",
                  "n_features": "--n-features",
                  "zero_based": "--zero-based", "encoding": "--encoding"}


def flag(param: str) -> str:
    """The command-line option that sets ``param``."""
    for option, name, _ in ESTIMATOR_OPTIONS:
        if name == param:
            return option
    return FUNCTION_FLAGS.get(param, "--" + param.replace("_", "-"))


def known_flag(param: str) -> str | None:
    """The option that sets ``param``, if the command line has one."""
    names = {name for _, name, _ in ESTIMATOR_OPTIONS + BOOL_OPTIONS} | set(FUNCTION_FLAGS)
    return flag(param) if param in names else None
