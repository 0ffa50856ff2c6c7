"""The estimator ``--algo`` names, built from the options given on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from ._io import CLIError
from ._options import (
    ALGOS,
    BOOL_OPTIONS,
    ESTIMATOR_OPTIONS,
    EXPERT_ALGOS,
    flag,
    known_flag,
    literal,
)


def estimator_class(algo: str, kernel: str | None = None):
    import halfspaces

    if algo == "pegasos" and kernel is not None:
        # Kernelized Pegasos is its own class once the solvers' restructuring is merged
        # (until then PegasosSVC takes the kernel itself).
        return halfspaces.KernelPegasosSVC
    return getattr(halfspaces, ALGOS[algo])


def given_params(args: argparse.Namespace) -> dict[str, Any]:
    """The estimator parameters given as options (and with ``--set NAME=VALUE``)."""
    params = {param: getattr(args, param) for _, param, _ in ESTIMATOR_OPTIONS + BOOL_OPTIONS
              if hasattr(args, param)}
    for item in getattr(args, "set", None) or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise CLIError(f"--set expects NAME=VALUE, got {item!r}")
        params[name.strip().replace("-", "_")] = literal(value.strip())
    if isinstance(params.get("class_weight"), dict):
        params["class_weight"] = _class_weight_labels(params["class_weight"], args)
    return params


def _class_weight_labels(class_weight: dict, args: argparse.Namespace) -> dict:
    """``--set class_weight={"1": 3}`` with the labels as the data reads them: JSON keys are
    strings, and svmlight, VW and CSV labels are numbers (a CSV's are strings only when one
    is not a number), so a key that is a number names that number; a text file's labels
    (``label<TAB>text``) stay strings."""
    from ..datasets import detect_format

    data = getattr(args, "data", None)
    if data is None or detect_format(data, getattr(args, "format", None)) == "tsv":
        return class_weight

    def label(key):
        try:
            return float(key)
        except ValueError:
            return key

    return {label(key): weight for key, weight in class_weight.items()}


def make_estimator(args: argparse.Namespace, X=None):
    """Build the estimator ``--algo`` names from the options given on the command line.

    ``X`` (the training features) is needed by the expert algorithms, whose hypothesis class
    is built from its dimension (and, for stumps, its values).
    """
    cls = estimator_class(args.algo, getattr(args, "kernel", None))
    params = given_params(args)
    if args.algo in EXPERT_ALGOS:
        from ..experts import make_hypotheses

        if X is None:
            raise CLIError(f"--algo {args.algo} votes over a class of halfspaces in the"
                           " feature space: use svmlight, VW or CSV data, not raw text")
        params.update(make_hypotheses(X, args.hypotheses, args.n_hypotheses,
                                      params.get("random_state"))._asdict())
    allowed = cls(**({"hypotheses": params["hypotheses"]} if "hypotheses" in params else {})
                  ).get_params()
    unknown = sorted(set(params) - set(allowed))
    # random_state also seeds the hypothesis class, so an expert algorithm may ignore it.
    if args.algo in EXPERT_ALGOS and "random_state" in unknown:
        unknown.remove("random_state")
        params.pop("random_state")
    if unknown:
        raise CLIError(_not_applicable(unknown, set(allowed), args, cls.__name__))
    return cls(**params)


def _not_applicable(unknown: list[str], allowed: set[str], args: argparse.Namespace,
                    name: str) -> str:
    """What the user gave that ``--algo`` does not take, in the terms they gave it (an
    option, or ``--set NAME=...``), and what it takes instead."""
    given_by_set = {item.partition("=")[0].strip().replace("-", "_")
                    for item in getattr(args, "set", None) or []}
    names = ", ".join(f"--set {p}=..." if p in given_by_set and known_flag(p) is None
                      else flag(p) for p in unknown)
    accepted = sorted(allowed - {"hypotheses", "offsets"})
    if not accepted:  # Halving: its hypothesis class has its own options
        return (f"{names} does not apply to --algo {args.algo}; {name} takes no other"
                f" parameter (its hypotheses come from --hypotheses and --n-hypotheses)")
    return (f"{names} does not apply to --algo {args.algo}; {name} takes"
            f" {', '.join(accepted)} (--set NAME=VALUE passes those without an option)")


def predict_rows(model, X, args: argparse.Namespace):
    """What ``predict`` writes for rows ``X``: labels, or with --proba probabilities."""
    return model.predict_proba(X) if getattr(args, "proba", False) else model.predict(X)


def online_learner(args: argparse.Namespace, X):
    """:func:`make_estimator`, checking that the learner can play the online game."""
    learner = make_estimator(args, X)
    if not callable(getattr(learner, "learn_one", None)):
        online = [a for a in ALGOS if callable(getattr(estimator_class(a), "learn_one", None))]
        raise CLIError(f"--algo {args.algo} ({type(learner).__name__}) is a batch learner; the"
                       f" online game needs one of: {', '.join(online)}")
    return learner


def wrap_for_text(estimator, args: argparse.Namespace):
    """A Pipeline(vectorizer, [scaler,] estimator) that learns from raw text (kept in the
    saved model); the scaler of --scale, which must keep the vectors sparse."""
    from ..datasets import make_text_pipeline

    params = {}
    if args.vectorizer == "hashing" and args.n_features:
        params["n_features"] = args.n_features
    from ._features import make_scaler, text_params

    params.update(text_params(args))
    model = make_text_pipeline(estimator, vectorizer=args.vectorizer, **params)
    if getattr(args, "scale", None):
        model.steps.insert(-1, ("scaler", make_scaler(args, sparse=True, what="raw text, whose"
                                                                             " vectors")))
    return model


def fit_weights(args: argparse.Namespace, data) -> dict:
    """``{"sample_weight": w}`` for the estimator's ``fit`` (every ``--algo`` takes it) when
    ``data`` gives example weights; ``{}`` when it gives none, or with --ignore-weights."""
    if data.sample_weight is None or getattr(args, "ignore_weights", False):
        return {}
    return {"sample_weight": data.sample_weight}
