"""The estimator class of each ``--algo`` name, and what the commands do with an estimator
(built from the options by :class:`~._plan.EstimatorSpec`)."""

from __future__ import annotations

from ._io import CLIError
from ._options import ALGOS


def estimator_class(algo: str, kernel: str | None = None):
    import halfspaces

    if algo == "pegasos" and kernel is not None:
        # Kernelized Pegasos is its own class once the solvers' restructuring is merged
        # (until then PegasosSVC takes the kernel itself).
        return halfspaces.KernelPegasosSVC
    return getattr(halfspaces, ALGOS[algo])


def predict_rows(model, X, proba: bool = False):
    """What ``predict`` writes for rows ``X``: labels, or with --proba probabilities."""
    return model.predict_proba(X) if proba else model.predict(X)


def online_learner(spec, X):
    """The estimator of ``spec`` (an :class:`~._plan.EstimatorSpec`) for the features
    ``X``, checking that the learner can play the online game."""
    learner = spec.build(X)
    if not callable(getattr(learner, "learn_one", None)):
        online = [a for a in ALGOS if callable(getattr(estimator_class(a), "learn_one", None))]
        raise CLIError(f"--algo {spec.algo} ({type(learner).__name__}) is a batch learner; the"
                       f" online game needs one of: {', '.join(online)}")
    return learner


def wrap_for_text(estimator, features, n_features: int | None):
    """A Pipeline(vectorizer, [scaler,] estimator) that learns from raw text (kept in the
    saved model), as ``features`` (a :class:`~._plan.Features`) say, hashing into
    ``n_features`` buckets; the scaler of --scale, which must keep the vectors sparse."""
    from ..datasets import make_text_pipeline

    params = {}
    if features.vectorizer == "hashing" and n_features:
        params["n_features"] = n_features
    from ._features import make_scaler, text_params

    params.update(text_params(features))
    model = make_text_pipeline(estimator, vectorizer=features.vectorizer, **params)
    if features.scale:
        model.steps.insert(-1, ("scaler", make_scaler(features.scale, sparse=True,
                                                      what="raw text, whose vectors")))
    return model


def fit_weights(source, data) -> dict:
    """``{"sample_weight": w}`` for the estimator's ``fit`` (every ``--algo`` takes it) when
    ``data`` gives example weights; ``{}`` when it gives none, or with --ignore-weights
    (``source``: a :class:`~._plan.Source`)."""
    if data.sample_weight is None or source.ignore_weights:
        return {}
    return {"sample_weight": data.sample_weight}
