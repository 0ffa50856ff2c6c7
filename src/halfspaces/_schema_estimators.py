"""What a model file may hold of each halfspaces estimator beyond its parameters: the fitted
attributes and the rules across them (the text pipelines' are in
:mod:`halfspaces._schema_text`). The parameters are declared once, in each class's table
``_parameter_constraints``, which checks them at fit time too.

The attributes stay here, not beside each class: their shapes in named dimensions, dtypes
and cross-checks are the file format's concern, shared across the families (``WEIGHTS``,
``_ONLINE``), and the algorithm modules keep to rule, pass and estimator.

Adding an attribute
-------------------
One line in the class's table below, e.g. ``"converged_": Bool()``,
``"n_updates_": Int(low=0)`` or, for an array,
``"coef_": Array(F8, ("n_models", "n_features"), finite=True)``. Shapes use named
dimensions: the first value that fixes a name binds it (``n_features_in_`` binds
``n_features``; ``classes_`` binds ``n_classes`` and ``n_models``, which is 1 for two
classes and ``n_classes`` otherwise), in the order of the table (parameters first), and
every later use must agree; ``"n_models+1"`` is one more than ``n_models``. Attributes that
every fitted model has go in ``required``. ``tests/test_model_files.py``'s round trips fail
for an attribute that is not declared.
"""

from __future__ import annotations

import numpy as np

from ._file_specs import Array, Classes, Est, Seed, Sparse, Vocabulary
from ._params import FOLD_ATTRS
from ._specs import (
    NONE,
    POSITIVE,
    Bool,
    Choice,
    Float,
    Int,
    ListOf,
    OneOf,
    Rule,
    Schema,
    SchemaError,
    Str,
)

F8 = ("f8",)
F48 = ("f8", "f4")
I8 = ("i8",)
COUNT = Int(low=0)
WEIGHTS = Array(F8, ("n_models", "n_features"), finite=True)
OFFSETS = Array(F8, ("n_models",), finite=True)
SUPPORT_VECTORS = OneOf(Array(F48, ("n_support", "n_features"), finite=True),
                        Sparse(F48, ("n_support", "n_features")))
SUPPORT = Array(I8, ("n_support",), low=0, increasing=True)

FEATURES = {
    "n_features_in_": Int(low=1, dim="n_features"),
    "feature_names_in_": Array(("O",), ("n_features",)),
}
_CLASSIFIER = {**FEATURES, "classes_": Classes()}
_ONLINE = {
    **_CLASSIFIER,
    "t_": COUNT, "n_mistakes_": COUNT, "n_iter_": COUNT,
    "mistakes_per_epoch_": ListOf(COUNT), "converged_": Bool(),
    # the names of the columns of a learner started on dict rows (OnlineClassifier.learn_one)
    "vocabulary_": Vocabulary(dim="n_features"),
}
#: Platt's sigmoids of ``probability=True`` (:mod:`halfspaces.calibration`).
SIGMOIDS = dict.fromkeys(("probA_", "probB_"), Array(F8, ("n_models",), finite=True))
PLATT = {**SIGMOIDS,
         # ensemble=True: each fold's linear model and its sigmoids
         "fold_coef_": Array(F8, ("n_folds", "n_models", "n_features"), finite=True),
         **dict.fromkeys(("fold_intercept_", "fold_probA_", "fold_probB_"),
                         Array(F8, ("n_folds", "n_models"), finite=True))}
#: The held-out scores of ``early_stopping=True`` (:mod:`halfspaces._early_stopping`).
HELD_OUT = {"validation_scores_": ListOf(Float(low=0, high=1))}
_ONLINE_REQUIRED = ("n_features_in_", "classes_", "t_", "n_mistakes_", "n_iter_",
                    "mistakes_per_epoch_")


# -- rules across attributes -------------------------------------------------------------------

def _together(*groups: tuple[str, ...]) -> Rule:
    """Each group of attributes is stored whole or not at all, and a fitted model has one."""
    def rule(params, attrs, where):
        present = [g for g in groups if any(a in attrs for a in g)]
        for g in present:
            missing = [a for a in g if a not in attrs]
            if missing:
                raise SchemaError(f"{where}.{missing[0]}", f"is missing, while"
                                  f" {', '.join(a for a in g if a in attrs)} are stored.")
        if attrs and not present:
            raise SchemaError(f"{where}.{groups[0][0]}", "is missing from a fitted model.")
    return rule


def _binary(params, attrs, where):
    classes = attrs.get("classes_")
    if classes is not None and classes.size != 2:
        raise SchemaError(f"{where}.classes_", f"holds {classes.size} classes; this learner is"
                                               " binary.")


def _hypotheses(params, attrs, where):
    """The hypothesis class agrees with n_hypotheses_ and n_features_in_."""
    h, offsets = params.get("hypotheses"), params.get("offsets")
    d, n = attrs.get("n_features_in_"), attrs.get("n_hypotheses_")
    if h is None:  # the constructor will say that it is missing
        return
    if isinstance(h, str):  # "precomputed": the columns of X are the hypotheses
        if offsets is not None:
            raise SchemaError(f"{where}.offsets", "must be None with hypotheses='precomputed'.")
        size = d
    elif isinstance(h, np.ndarray) or (h and not Est("CoordinateStump").fits(h[0])):
        try:
            W = np.asarray(h, dtype=np.float64)
        except ValueError:  # ragged lists
            raise SchemaError(f"{where}.hypotheses", "must be a rectangular (n_hypotheses,"
                              " n_features) table of numbers.") from None
        if W.ndim != 2 or (d is not None and W.shape[1] != d):
            raise SchemaError(f"{where}.hypotheses", f"has shape {W.shape}; it must be"
                              f" (n_hypotheses, n_features) with n_features = {d}.")
        size = W.shape[0]
    else:
        size = len(h)
        for i, stump in enumerate(h):
            if d is not None and not -d <= stump.feature < d:
                raise SchemaError(f"{where}.hypotheses[{i}].feature", f"is {stump.feature},"
                                  f" outside the {d} features.")
    if offsets is not None and len(offsets) != size:
        raise SchemaError(f"{where}.offsets", f"holds {len(offsets)} offsets for {size}"
                                              " hypotheses.")
    if n is not None and size is not None and n != size:
        raise SchemaError(f"{where}.n_hypotheses_", f"is {n}, but the hypotheses parameter"
                                                    f" gives {size} hypotheses.")


def _version_space(params, attrs, where):
    V = attrs.get("version_space_")
    if V is not None and not V.any():
        raise SchemaError(f"{where}.version_space_", "is empty; Halving never stores an empty"
                                                     " version space.")


def _voted_storage(params, attrs, where):
    """The voted perceptron's stored mistakes: model k owns rows ptr[k]:ptr[k+1] and counts
    ptr[k]+k .. ptr[k+1]+k; the rows are CSR (indptr from 0 to nnz)."""
    if "mistake_ptr_" not in attrs:
        return
    n_stored, nnz = attrs["mistake_y_"].size, attrs["mistake_data_"].size
    for name, end in (("mistake_ptr_", n_stored), ("mistake_indptr_", nnz)):
        p = attrs[name]
        if p[0] != 0 or p[-1] != end or np.any(np.diff(p) < 0):
            raise SchemaError(f"{where}.{name}", f"must rise from 0 to {end} without"
                                                 " decreasing.")
    n_models = attrs["mistake_ptr_"].size - 1
    if attrs["vote_counts_"].size != n_stored + n_models:
        raise SchemaError(f"{where}.vote_counts_", f"holds {attrs['vote_counts_'].size}"
                          f" counts; {n_stored} stored mistakes and n_models = {n_models} need"
                          f" {n_stored + n_models}.")
    steps = attrs["mistake_y_"]  # s y: the label, times the weight s > 0 of the mistake
    if not np.all(np.isfinite(steps) & (steps != 0.0)):
        raise SchemaError(f"{where}.mistake_y_", "must hold finite, non-zero steps s y (the"
                                                 " label times the example weight s > 0).")
    if not np.all((attrs["mistake_b_"] == steps) | (attrs["mistake_b_"] == 0.0)):
        raise SchemaError(f"{where}.mistake_b_", "must hold, for each mistake, its step"
                                                 " mistake_y_ or 0 (no offset).")
    if "base_coef_" in attrs:  # a budget's merged vectors: none yet, or n_features columns
        width, d = attrs["base_coef_"].shape[1], attrs["current_coef_"].shape[1]
        if width not in (0, d):
            raise SchemaError(f"{where}.base_coef_", f"has {width} columns; it must have 0"
                              f" (nothing merged) or n_features = {d}.")


def _pegasos_state(params, attrs, where):
    """The state of every binary problem; without averaging the sums ``_u`` are empty."""
    _together(("_v", "_u", "_scalars", "coef_"))(params, attrs, where)
    _averaged_width(params, attrs, where)


def _averaged_width(params, attrs, where):
    """Pegasos's averaged sums ``_u``: as wide as ``_v`` with averaging, else empty."""
    if "_u" in attrs:
        average = params.get("average", "suffix")
        averaging = not (isinstance(average, (bool, np.bool_)) and not average)
        width = attrs["_v"].shape[1] if averaging else 0
        if attrs["_u"].shape[1] != width:
            raise SchemaError(f"{where}._u", f"has shape {attrs['_u'].shape}; with"
                              f" average={average!r} it must have {width} columns.")


def _support_order(params, attrs, where):
    """A checkpoint of KernelPerceptron.fit: in each row, the ranks 0..count-1 of the support
    vectors with a non-zero coefficient in that problem, and -1 for the others."""
    ranks = attrs.get("_support_order")
    if ranks is None:
        return
    for k, (row, coef) in enumerate(zip(ranks, attrs["dual_coef_"], strict=True)):
        joined = coef != 0.0
        if not (np.all(row[~joined] == -1)
                and np.array_equal(np.sort(row[joined]), np.arange(np.count_nonzero(joined)))):
            raise SchemaError(f"{where}._support_order", f"row {k} must rank the support"
                              " vectors with a non-zero dual_coef_ 0, 1, ... and hold -1 for"
                              " the others.")


def _kernel_pegasos_state(params, attrs, where):
    """A checkpoint of KernelPegasosSVC.fit: its binary problems' state, whole (``_v`` over
    the rows of positive weight, ``_u`` as wide without averaging's, else empty)."""
    if any(a in attrs for a in ("_v", "_u", "_scalars")):
        _together(("_v", "_u", "_scalars"))(params, attrs, where)
        _averaged_width(params, attrs, where)


def _platt(params, attrs, where):
    """Platt's sigmoids come in pairs, or the fold models whole, and only with
    probability=True (``partial_fit`` does not fit them, so a model of probability=True
    may have none); the fold models only where ``ensemble`` is not False, and not both."""
    for group in (("probA_", "probB_"), FOLD_ATTRS):
        has = [a for a in group if a in attrs]
        if has and len(has) < len(group):
            missing = next(a for a in group if a not in attrs)
            raise SchemaError(f"{where}.{missing}", f"is missing, while {has[0]} is stored.")
        if has and not params.get("probability"):
            raise SchemaError(f"{where}.{has[0]}", "is stored, while probability is false.")
    if "fold_coef_" in attrs and "probA_" in attrs:
        raise SchemaError(f"{where}.probA_", "is stored with fold_coef_: a model keeps one"
                                             " sigmoid (ensemble=False) or its fold models.")
    if "fold_coef_" in attrs and params.get("ensemble", "auto") is False:
        raise SchemaError(f"{where}.fold_coef_", "is stored, while ensemble is False.")


def _svc_kernel(params, attrs, where):
    """A linear SVC keeps coef_, a kernel one gamma_ (and no coef_); the support vectors
    and dual coefficients are kept unless halfspaces.dask.fit trained it by CoCoA+ (whose
    dual variables stay on the workers)."""
    if not attrs:
        return
    linear = params.get("kernel", "linear") == "linear"
    local = attrs.get("solver_") != "cocoa+"
    if "fold_coef_" in attrs and not linear:
        raise SchemaError(f"{where}.fold_coef_", "must not be stored with kernel="
                                                 f"{params.get('kernel')!r}.")
    for name, wanted in (("coef_", linear), ("gamma_", not linear), ("support_", local),
                         ("support_vectors_", local), ("dual_coef_", local)):
        if (name in attrs) != wanted:
            what = "is missing" if wanted else "must not be stored"
            raise SchemaError(f"{where}.{name}", f"{what} with kernel={params.get('kernel')!r}"
                                                 f" and solver_={attrs.get('solver_')!r}.")




_EXPERTS = {**_ONLINE, "n_hypotheses_": Int(low=1, dim="n_hypotheses")}
_PEGASOS_ATTRS = {
    "intercept_": OFFSETS, "_suffix_start": Float(low=0), "intercept_decay_": POSITIVE,
    "eta0_": POSITIVE,
    "objective_history_": OneOf(Array(F8, ("n_epochs",)), Array(F8, ("n_epochs", "n_models")))}

ESTIMATOR_SCHEMAS: dict[str, Schema] = {
    "Perceptron": Schema(
        {**_ONLINE, **PLATT, **HELD_OUT, "coef_": WEIGHTS, "intercept_": OFFSETS},
        _ONLINE_REQUIRED + ("coef_", "intercept_"), (_platt,)),
    "AveragedPerceptron": Schema(
        {**_ONLINE, **PLATT, **HELD_OUT, "coef_": WEIGHTS, "intercept_": OFFSETS,
         "current_coef_": WEIGHTS, "current_intercept_": OFFSETS,
         "weighted_coef_sum_": WEIGHTS, "weighted_intercept_sum_": OFFSETS},
        _ONLINE_REQUIRED + ("coef_", "intercept_", "current_coef_", "current_intercept_",
                            "weighted_coef_sum_", "weighted_intercept_sum_"), (_platt,)),
    "VotedPerceptron": Schema(
        {**_ONLINE, **SIGMOIDS, **HELD_OUT,
         "current_coef_": WEIGHTS, "current_intercept_": OFFSETS,
         "vote_counts_": Array(F8, ("n_votes",), finite=True, low=0),
         "mistake_ptr_": Array(I8, ("n_models+1",)),
         "mistake_data_": Array(F8, ("nnz",), finite=True),
         "mistake_indices_": Array(("i4", "i8"), ("nnz",), low=0, below="n_features"),
         "mistake_indptr_": Array(I8, ("n_stored+1",)),
         "mistake_y_": Array(F8, ("n_stored",)),
         "mistake_b_": Array(F8, ("n_stored",)),
         "base_coef_": Array(F8, ("n_models", "n_merge_columns"), finite=True),
         "merged_coef_": Array(F8, ("n_models", "n_merge_columns"), finite=True),
         "base_intercept_": OFFSETS, "merged_intercept_": OFFSETS,
         "merged_count_": Array(F8, ("n_models",), finite=True, low=0)},
        _ONLINE_REQUIRED + ("current_coef_", "current_intercept_", "vote_counts_",
                            "mistake_ptr_", "mistake_data_", "mistake_indices_",
                            "mistake_indptr_", "mistake_y_", "mistake_b_", "base_coef_",
                            "merged_coef_", "base_intercept_", "merged_intercept_",
                            "merged_count_"),
        (_voted_storage, _platt)),
    "KernelPerceptron": Schema(
        {**_ONLINE, "gamma_": OneOf(NONE, POSITIVE),
         "n_rows_seen_": Int(low=0, dim="n_rows"),
         "support_vectors_": SUPPORT_VECTORS,
         "support_": Array(I8, ("n_support",), low=0, below="n_rows", increasing=True),
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True),
         "alpha_": Array(I8, ("n_models", "n_support"), low=0),
         "intercept_": OFFSETS,
         "_support_order": Array(I8, ("n_models", "n_support"), low=-1)},  # a checkpoint's
        _ONLINE_REQUIRED + ("gamma_", "n_rows_seen_", "support_vectors_", "support_",
                            "dual_coef_", "alpha_", "intercept_"), (_support_order,)),
    "PegasosSVC": Schema(
        {**_ONLINE, **_PEGASOS_ATTRS, **PLATT, **HELD_OUT,
         "_v": WEIGHTS, "_u": Array(F8, ("n_models", "n_averaged"), finite=True),
         "_scalars": Array(F8, ("n_models", 6), finite=True),  # PegasosState after t
         "coef_": WEIGHTS},
        _ONLINE_REQUIRED + ("intercept_",),
        (_pegasos_state, _platt)),
    "KernelPegasosSVC": Schema(
        {**_CLASSIFIER, **_PEGASOS_ATTRS,
         "t_": COUNT, "n_mistakes_": COUNT, "n_iter_": COUNT,
         "mistakes_per_epoch_": ListOf(COUNT),
         "gamma_": Float(low=0, low_open=True, allow_nan=True),  # nan: the linear kernel
         "alpha_": Array(I8, ("n_models", "n_train"), low=0),
         "support_vectors_": SUPPORT_VECTORS,
         "support_": Array(I8, ("n_support",), low=0, below="n_train", increasing=True),
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True),
         # a checkpoint's: as PegasosSVC's, over the n_fit rows of positive weight
         "_v": Array(F8, ("n_models", "n_fit"), finite=True),
         "_u": Array(F8, ("n_models", "n_averaged"), finite=True),
         "_scalars": Array(F8, ("n_models", 6), finite=True)},
        _ONLINE_REQUIRED + ("intercept_", "gamma_", "alpha_", "support_vectors_", "support_",
                            "dual_coef_"), (_kernel_pegasos_state,)),
    "SVC": Schema(
        {**_CLASSIFIER, "C_": Float(low=0, low_open=True, allow_inf=True),
         "solver_": Choice("qp", "dcd", "smo", "cocoa+"), "solver_reason_": Str(max_len=400),
         "coef_": WEIGHTS, "gamma_": POSITIVE,
         "intercept_": OFFSETS, "support_": SUPPORT, "support_vectors_": SUPPORT_VECTORS,
         "dual_coef_": Array(F8, ("n_models", "n_support"), finite=True),
         **dict.fromkeys(("margin_", "objective_", "duality_gap_"),
                         OneOf(Float(low=0, allow_inf=True), Array(F8, ("n_models",), low=0))),
         "n_iter_": COUNT, **PLATT},
        ("n_features_in_", "classes_", "C_", "solver_", "intercept_", "margin_", "objective_",
         "duality_gap_", "n_iter_"),
        (_svc_kernel, _platt)),
    "LogisticRegression": Schema(
        {**_ONLINE, **HELD_OUT, "coef_": WEIGHTS, "intercept_": OFFSETS, "eta0_": POSITIVE,
         "objective_": OneOf(Float(low=0), Array(F8, ("n_models",), finite=True, low=0)),
         "multi_class_": Choice("multinomial", "ovr")},
        _ONLINE_REQUIRED + ("coef_", "intercept_")),
    "LPSeparator": Schema(
        {**_CLASSIFIER, "coef_": WEIGHTS, "intercept_": OFFSETS,
         "separable_": Array(("bool",), ("n_models",)),
         "certificates_": Sparse(F8, ("n_models", "n_samples"))},
        ("n_features_in_", "classes_", "coef_", "intercept_", "separable_", "certificates_")),
    "HalvingClassifier": Schema(
        {**_EXPERTS, "version_space_": Array(("bool",), ("n_hypotheses",))},
        _ONLINE_REQUIRED + ("n_hypotheses_", "version_space_"),
        (_binary, _hypotheses, _version_space)),
    "WeightedMajorityClassifier": Schema(
        {**_EXPERTS, "beta_": Float(low=0, high=1, high_open=True),
         # int64 counts, float64 once a fractional sample_weight was learned
         "expert_mistakes_": Array(("i8", "f8"), ("n_hypotheses",), finite=True, low=0),
         "expected_mistakes_": Float(low=0), "_rng": Seed(state_only=True),
         "log_weights_": Array(F8, ("n_hypotheses",), high=0),
         "weights_": Array(F8, ("n_hypotheses",), finite=True, low=0, high=1)},
        _ONLINE_REQUIRED + ("n_hypotheses_", "beta_", "expert_mistakes_", "expected_mistakes_",
                            "_rng", "log_weights_", "weights_"),
        (_binary, _hypotheses)),
    "CoordinateStump": Schema(
        {"feature": Int(), "threshold": Float(), "sign": Choice(1, -1)},
        ("feature", "threshold", "sign"), params={}, required_always=True),
}
