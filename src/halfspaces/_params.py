"""The constructor parameters of the linear estimators: one table per class.

Each estimator class names its table as ``_parameter_constraints`` (``{name: Spec}``, see
:mod:`halfspaces._specs`), which checks its parameters in ``fit`` and a model file's in
:func:`halfspaces.persistence.load`. The tables live here, away from the compiled passes,
so that a process that only reads a model file (``halfspaces predict`` with a linear
model, :func:`halfspaces.persistence.read_linear`) checks the parameters with the same
tables, and the same messages, without importing numba or scikit-learn: this module
imports NumPy, SciPy's sparse matrices and the small modules of the specs alone.
"""

from __future__ import annotations

from ._early_stopping import EARLY_STOPPING_PARAMS
from ._file_specs import Seed
from ._parallel import N_JOBS
from ._specs import NONE, POSITIVE, Bool, ByRule, Choice, Float, Int, OneOf
from ._weights import CLASS_WEIGHT
from .kernels import CACHE_SIZE, KERNEL_PARAMS

#: ``probability``: Platt's sigmoid of :mod:`halfspaces.calibration`.
PROBABILITY = Bool().about("whether fit also fits Platt's sigmoid for predict_proba")
#: ``ensemble`` of :mod:`halfspaces.calibration`.
ENSEMBLE = OneOf(Bool(), Choice("auto")).about(
    "whether predict_proba averages the calibrated fold models (True) or calibrates the model"
    " fitted on all rows (False)", "Use ensemble='auto'.")
#: The fold models of ``ensemble=True``: weights, offsets and sigmoids, one per fold.
FOLD_ATTRS = ("fold_coef_", "fold_intercept_", "fold_probA_", "fold_probB_")

#: ``max_iter`` of an online learner: passes over the data.
EPOCHS = Int(low=1).about("number of epochs", "Try max_iter=100.")

PERCEPTRON = {"fit_intercept": Bool(), "max_iter": EPOCHS, "shuffle": Bool(),
              "random_state": Seed(), "warm_start": Bool(),
              "probability": PROBABILITY, "ensemble": ENSEMBLE, **EARLY_STOPPING_PARAMS,
              "n_jobs": N_JOBS, "class_weight": CLASS_WEIGHT}

#: The parameters PegasosSVC and KernelPegasosSVC share.
PEGASOS_PARAMS = {
    "lam": POSITIVE.about("lambda in the Pegasos objective",
                          "Try a small positive value such as 1e-4."),
    "max_iter": EPOCHS,
    "n_iter": OneOf(Int(low=1), NONE).about("number of steps T",
                                            "Leave it None to run max_iter epochs."),
    "batch_size": Int(low=1).about("k of mini-batch Pegasos", "Use 1 for plain Pegasos."),
    "learning_rate": Choice("pegasos", "notes", "constant", "offset"),
    "eta0": OneOf(POSITIVE, Choice("auto", "calibrate")).about("first step size"),
    "t0": OneOf(Float(low=0), Choice("auto")).about("offset of the schedule"),
    "projection": Bool(), "fit_intercept": Bool(),
    "intercept_decay": OneOf(POSITIVE, Choice("auto")).about(
        "factor of the intercept's step", "Use 1.0 for the same step as w."),
    "average": OneOf(Int(low=0), Bool(), Choice("weighted", "suffix")).about(
        "the step after which to average, on/off, or a kind of averaging"),
    "sampling": Choice("permutation", "uniform", "cyclic"),
    "random_state": Seed(), "tol": OneOf(Float(low=0), NONE),
    "record_objective": Bool()}

PEGASOS_SVC = {**PEGASOS_PARAMS, "kernel": ByRule("None", NONE),
               "warm_start": Bool(), "probability": PROBABILITY, "ensemble": ENSEMBLE,
               **EARLY_STOPPING_PARAMS, "n_jobs": N_JOBS, "class_weight": CLASS_WEIGHT}

LOGISTIC_REGRESSION = {
    # C = inf is lam = 0: no minimizer at all on separable data
    "C": POSITIVE.about("inverse regularization strength",
                        "Try C=1.0; smaller C regularizes more."),
    "lam": OneOf(POSITIVE, NONE).about(
        "lambda of the lam-form objective",
        "Try a small positive value such as 1e-4, or leave it None to use C."),
    "fit_intercept": Bool(), "max_iter": EPOCHS,
    "tol": POSITIVE.about("gradient tolerance"), "solver": Choice("lbfgs", "sgd"),
    "eta0": OneOf(POSITIVE, Choice("auto")).about("first SGD step"),
    "shuffle": Bool(), "random_state": Seed(),
    "warm_start": Bool(), "class_weight": CLASS_WEIGHT, **EARLY_STOPPING_PARAMS,
    "n_jobs": N_JOBS, "multi_class": Choice("auto", "multinomial", "ovr")}

LP_SEPARATOR = {"fit_intercept": Bool(),
                "on_infeasible": Choice("least_violation", "raise"),
                "class_weight": CLASS_WEIGHT, "n_jobs": N_JOBS}

SVC = {
    "C": Float(low=0, low_open=True, allow_inf=True).about(
        "the SVM constant; np.inf for the hard margin",
        "Try C=1.0, or lam=... for the lambda form."),
    "lam": OneOf(POSITIVE, NONE).about("lambda of 1/n sum loss + lam/2 ||theta||^2",
                                       "Try a small positive value such as 1e-4."),
    **KERNEL_PARAMS, "fit_intercept": Bool(), "solver": Choice("auto", "qp", "dcd", "smo"),
    "loss": Choice("hinge", "squared_hinge"),
    "tol": POSITIVE.about("stopping tolerance", "Try tol=1e-4."),
    "max_iter": Int(low=1).about("solver iterations", "Try max_iter=1000."),
    "shrinking": Bool(), "random_state": Seed(), "verbose": Bool(),
    "class_weight": CLASS_WEIGHT, "probability": PROBABILITY, "ensemble": ENSEMBLE,
    "n_jobs": N_JOBS, "warm_start": Bool(), "multi_class": Choice("ovr", "crammer_singer"),
    "cache_size": CACHE_SIZE}

#: The table of each class whose model file ``read_linear`` reads (a subclass keeps its
#: parent's table unless it names its own).
TABLES = {"Perceptron": PERCEPTRON, "AveragedPerceptron": PERCEPTRON,
          "PegasosSVC": PEGASOS_SVC, "LogisticRegression": LOGISTIC_REGRESSION,
          "LPSeparator": LP_SEPARATOR, "SVC": SVC}
