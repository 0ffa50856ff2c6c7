"""The support vector machine: soft and hard margin, primal and dual, linear and kernel.

Labels ``y_i in {-1, +1}``, offset ``theta_0`` unregularized, ``C = 1/(lam n)``::

    min_{theta, theta_0}  1/2 ||theta||^2 + C sum_i max(0, 1 - y_i (theta.x_i + theta_0))
                        = (1/lam) [ 1/n sum_i hinge(y_i (theta.x_i + theta_0)) + lam/2 ||theta||^2 ]

Hard margin (``C = inf``): ``min 1/2 ||theta||^2  s.t.  y_i (theta.x_i + theta_0) >= 1``; the
geometric margin of the solution is ``1 / ||theta||``. Dual, ``Q_ij = y_i y_j k(x_i, x_j)``::

    max_alpha  sum_i alpha_i - 1/2 alpha^T Q alpha,   0 <= alpha_i <= C,   sum_i alpha_i y_i = 0
    theta = sum_i alpha_i y_i x_i,   support vectors: alpha_i > 0

Example weights ``s_i >= 0`` (``sample_weight``, ``class_weight``) give each example its own
constant ``C_i = C s_i``: the primal sums ``C s_i loss_i``, the dual box is
``0 <= alpha_i <= C s_i``, and ``lam`` converts with ``C = 1/(lam S)``, ``S = sum_i s_i``.

Solvers: ``"qp"`` (Clarabel interior point, :mod:`halfspaces.solvers.qp`; the primal for the
linear kernel, the dual for the others), ``"dcd"`` (dual coordinate descent,
:mod:`halfspaces.solvers.dcd`, linear kernel, large sparse data) and ``"smo"`` (sequential
minimal optimization on the dual with a bounded kernel cache,
:mod:`halfspaces.solvers.smo`, kernels on many rows). All solve the same problem, with the
same unregularized offset.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .. import _params
from .._base import (
    ClassifierBase,
    ParamsMixin,
    SaveMixin,
    check_is_fitted,
    check_random_state,
    convergence_warning,
)
from .._checkpoint import refuse_unsaved, solver_resume, solver_writer
from .._labels import check_classes, decode_scores, encode_pm
from .._memory import check_allocation
from .._parallel import map_problems
from .._primitives import dot_dense, sparse_product_rows
from .._progress import listener
from .._validation import check_row_norms, param_error, validate_X, validate_X_y
from .._weights import check_every_class_weighed, example_weights
from ..calibration import ProbabilityMixin, ensemble_is_stored, fit_probability
from ..exceptions import NotSeparableError, SolverFallbackWarning
from ..kernels import gram, resolve_gamma
from ..losses import hinge, squared_hinge
from ..solvers.dcd import _GAP_PER_TOL, dcd_svm, feasible_dual, primal_dual
from ..solvers.lowrank_ipm import svm_lowrank_ipm
from ..solvers.lp import error_over_rows, scale_exponent, separate_or_certify, times_power_of_two
from ..solvers.qp import svm_dual_qp, svm_primal_qp
from ..solvers.smo import smo_svm
from ._svc_checkpoint import solve_with_checkpoints
from ._svc_crammer_singer import crammer_singer_is_linear, solve_crammer_singer

__all__ = ["SVC"]

# solver="auto" replaces a DCD run that did not converge by the QP when nnz(X) + d^2 is at most
# this. Clarabel measured: a9a (32561 x 123 sparse, 0.47M) 8 s and +100 MB, 50000 x 20 dense
# (1M) 10 s and +220 MB, 5000 x 500 dense (2.75M) 69 s and +400 MB.
_QP_MAX_ENTRIES = 5_000_000
_SV_RELATIVE_THRESHOLD = 1e-6  # interior-point alphas below this fraction of max are zero
# solver="auto": kernel problems with more rows than this go to SMO; the QP keeps the small
# ones, where it takes milliseconds and solves to 1e-10
_AUTO_SMO_MIN_SAMPLES = 200
_PREDICT_BLOCK_BYTES = 64 << 20  # the kernel block of decision_function, at most
# Peak bytes of the interior point, per entry: n^2 for the dual of a kernel (the Gram matrix,
# Q, its triangle and the KKT factor), nnz(X) + d^2 for the primal.
_QP_DUAL_BYTES = 110
_QP_PRIMAL_BYTES = 250
_SMO_FIX = ("Use solver='smo' (kernel columns computed as needed, at most cache_size MB of"
            " them kept).")


# solver="auto", hinge loss: the QP DCD falls back on is the low-rank interior point
# (solvers.lowrank_ipm) up to this many features (a d x d Cholesky factor a Newton step)
_IPM_MAX_FEATURES = 1000
_IPM_STEPS = 30  # Newton steps the interior point is budgeted for (it took 10 to 27)


class _Unconverged(NamedTuple):
    """A DCD run of ``solver="auto"`` that stopped uncertified: its relative gap, epochs."""

    gap: float
    epochs: int


def _ipm_epochs(X) -> float:
    """The cost of the low-rank interior point in DCD epochs (``nnz(X)`` work each): per
    Newton step ``X^T D X`` (``sum_i nnz(x_i)^2``), ten mat-vecs and the factor (``d^3/3``)."""
    if sp.issparse(X):
        lengths = np.diff(X.tocsr().indptr).astype(np.float64)
        nnz, gram = max(float(lengths.sum()), 1.0), float(lengths @ lengths)
    else:
        nnz, gram = float(max(X.size, 1)), float(X.shape[0]) * X.shape[1] ** 2
    return _IPM_STEPS * (gram / nnz + 10.0 + X.shape[1] ** 3 / 3.0 / nnz)


def _qp_fits(X) -> bool:
    """Whether the primal QP of ``X`` is small enough for ``solver="auto"`` to fall back on."""
    nnz = X.nnz if sp.issparse(X) else X.size
    return nnz + X.shape[1] ** 2 <= _QP_MAX_ENTRIES


def _c_or_lam(svc) -> None:
    """``C`` and ``lam`` are two forms of one constant: give one."""
    if svc.lam is not None and svc.C != 1.0:
        raise ValueError(
            f"SVC: give either C or lam, not both; got C={svc.C!r} and lam={svc.lam!r}."
            " C = 1/(lam n) is computed from lam at fit time; leave C at its default."
        )


def _smo_needs_hinge_finite(svc) -> None:
    """SMO solves the box-constrained dual of the hinge loss."""
    if svc.solver == "smo" and np.isinf(svc.C):
        raise param_error("SVC", "solver", "'qp' or 'auto' for the hard margin (C=inf)",
                          svc.solver, "SMO solves the soft-margin dual, whose box needs a"
                          " finite C; the QP solves the hard-margin SVM.")
    if svc.solver == "smo" and svc.loss != "hinge":
        raise param_error("SVC", "solver", "'qp' or 'auto' with loss='squared_hinge'",
                          svc.solver, "SMO solves the dual of the hinge loss.")


def _dcd_needs_linear_finite(svc) -> None:
    """Dual coordinate descent keeps theta explicitly and needs a finite C."""
    if svc.solver == "dcd" and (callable(svc.kernel) or svc.kernel != "linear"):
        raise param_error("SVC", "solver", "'qp' or 'auto' for a non-linear kernel", svc.solver,
                          "Dual coordinate descent keeps theta explicitly, so it needs"
                          " kernel='linear'.")
    if svc.solver == "dcd" and np.isinf(svc.C):
        raise param_error("SVC", "solver", "'qp' or 'auto' for the hard margin (C=inf)",
                          svc.solver, "Dual coordinate descent needs a finite C; the QP solves"
                          " the hard-margin SVM and certifies non-separable data.")


class SVC(ProbabilityMixin, SaveMixin, ParamsMixin, ClassifierBase):
    """Support vector classifier: the SVM quadratic program, solved exactly.

    Parameters
    ----------
    C : float > 0 or ``np.inf``, default=1.0
        The SVM constant of ``1/2 ||theta||^2 + C sum_i loss_i``. ``np.inf`` is the hard-margin
        SVM (the maximum-margin separator; :class:`~halfspaces.NotSeparableError` if the data
        is not separable).
    lam : float > 0, optional
        lambda of the objective ``1/n sum_i loss_i + lam/2 ||theta||^2``; when given, ``fit``
        uses ``C = 1/(lam n)``, which must be finite (``C = np.inf`` is the hard margin). Give
        ``C`` or ``lam``, not both (``lam`` with a ``C`` other than the default 1.0 is an
        error).
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        As scikit-learn's SVC: ``<x, z>``, ``(gamma <x, z> + coef0)^degree``,
        ``exp(-gamma ||x - z||^2)``, or ``kernel(X, Z) -> Gram matrix``.
    gamma : float or {"scale", "auto"}, default="scale"
    degree : int, default=3
    coef0 : float, default=0.0
    fit_intercept : bool, default=True
        Learn the unregularized offset ``theta_0`` (both solvers); ``False`` fits
        ``theta_0 = 0`` and drops the constraint ``sum_i alpha_i y_i = 0`` from the dual.
    solver : {"auto", "qp", "dcd", "smo"}, default="auto"
        ``"qp"``: interior point (Clarabel) on the primal QP (linear kernel) or the dual QP
        (other kernels). ``"dcd"``: dual coordinate descent (linear kernel only).
        ``"smo"``: sequential minimal optimization on the dual, kernel columns computed on
        demand through a cache of ``cache_size`` MB (hinge loss, finite ``C``; a callable
        kernel's Gram matrix is computed whole). ``"auto"``: ``"dcd"`` for the linear
        kernel with a finite ``C`` (any size, dense or sparse, one-vs-rest or
        Crammer-Singer), ``"qp"`` for ``C = inf``, ``"smo"`` for non-linear kernels on more
        than 200 rows (hinge loss, finite ``C``) and ``"qp"`` for smaller ones. When DCD
        does not certify its duality gap within ``max_iter`` epochs (a large
        ``C max ||x_i||^2``, e.g. columns 1000 times larger than others, or a large ``C``
        on overlapping classes) and the QP is small enough (``nnz(X) + d^2`` at most 5
        million), the QP solves the problem instead: with the hinge loss and at most 1000
        features by the low-rank interior point (:mod:`halfspaces.solvers.lowrank_ipm`,
        certified to the same duality gap; Clarabel if it fails), which DCD hands over to
        as soon as its gaps project more epochs than the interior point costs. ``solver_``
        is then ``"qp"``, ``solver_reason_`` says why, and a
        :class:`~halfspaces.SolverFallbackWarning` is emitted.
    loss : {"hinge", "squared_hinge"}, default="hinge"
    tol : float > 0, default=1e-4
        DCD stops when the duality gap is at most ``0.01 tol`` times the objective (the
        objective is then within ``0.01 tol`` of the optimum, relatively: 1e-6 by default),
        checked whenever ``max PG - min PG <= tol'`` over every row (projected gradients of
        the dual, as in LIBLINEAR; ``tol' = tol``, divided by 10 each time the gap is not
        met yet) and every half as many epochs again from epoch 10. SMO stops on the same
        gap, checked when its KKT violation ``m - M`` is at most ``eps`` (1e-3, LIBSVM's
        default, then divided by 10 each time the gap is not met). The QP is always solved
        to Clarabel's accuracy (1e-9 gap and feasibility; 1e-10 for the dual of a kernel).
    max_iter : int, default=1000
        DCD: epochs, i.e. ``n`` coordinate visits each (a pass over the full data, or several
        cheaper passes over a shrunk active set; LIBLINEAR counts each such pass as one
        iteration). Interior point: iterations. SMO: epochs of ``n`` pair steps.
    shrinking : bool, default=True
        DCD shrinking (Hsieh et al. 2008, section 3.2); SMO shrinking (as LIBSVM's).
    cache_size : float > 0, default=200.0
        SMO: the kernel columns kept, in MB (scikit-learn's name and meaning; at least two
        columns). The diagonal of the kernel is kept apart.
    random_state : int, RandomState or None, default=None
        Seed of the DCD row permutations. With a fixed seed, DCD (one-vs-rest or
        Crammer-Singer) gives the same model, bit for bit, on dense input and on its sparse
        copy: CSR rows are summed in the dense rows' order (see
        :mod:`halfspaces.solvers.dcd`).
    verbose : bool, default=False
        Print the solver chosen and the DCD progress.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's: class ``c``'s examples get ``C`` times its weight (``"balanced"``:
        ``S / (n_classes S_c)``, ``S_c`` the total ``sample_weight`` of class ``c``); it
        multiplies ``sample_weight``.
    probability : bool, default=False
        Also fit Platt's sigmoid on the decision values of 5 held-out folds (drawn from
        ``random_state``, as LIBSVM's ``-b 1``) for ``predict_proba``; five more fits.
        See :mod:`halfspaces.calibration`.
    ensemble : bool or "auto", default="auto"
        As scikit-learn's ``CalibratedClassifierCV``: ``True`` keeps the 5 fold models,
        each with its own sigmoid fitted on its held-out fold, and ``predict_proba``
        averages their probabilities; ``False`` fits one sigmoid on all the held-out scores
        and applies it to the model fitted on all rows (LIBSVM's ``-b 1``). ``"auto"``:
        ``True`` where the fold models can be stored (the linear kernel; a kernel model
        refuses ``True``).
    n_jobs : int or None, default=None
        Threads that solve the one-vs-rest problems (more than two classes), as
        scikit-learn's: None or 1 is one thread, -1 every core. The compiled DCD kernel
        releases the GIL; each problem's row permutations are seeded from ``random_state``
        in class order, so the model is the same, bit for bit, for every ``n_jobs``.
    warm_start : bool, default=False
        DCD starts from the dual variables of the previous fit (``support_``,
        ``dual_coef_``, ``intercept_``) instead of 0, when that fit was linear, with the
        same classes, and its ``support_`` indexes rows of the new data (a start only: any
        one reaches the same optimum): the previous ``alpha`` clipped to the box ``[0, C_i]``
        of the new ``C``, or scaled by ``C_new / C_old`` (an ``alpha_i`` at its bound stays
        at its bound), whichever has the larger dual objective (see
        :func:`~halfspaces.solvers.dcd.dcd_svm`). Along a path of ``C`` values each fit then
        starts near its optimum and takes a fraction of the epochs; the optimum is the same,
        and so is the stop, a certified duality gap. A QP fit ignores it.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        More than two classes: one-vs-rest, or the Crammer-Singer SVM (as scikit-learn's
        ``LinearSVC``; LIBLINEAR's ``-s 4``): ``min 1/2 sum_m ||w_m||^2 + sum_i C_i max_m
        (e_i^m + w_m.x_i - w_{y_i}.x_i)``, ``e_i^m = [m != y_i]``, by dual coordinate descent
        (:mod:`halfspaces.solvers.crammer_singer`), with ``kernel="linear"``,
        ``loss="hinge"`` and ``fit_intercept=False``. ``objective_`` and ``duality_gap_``
        are then those of this one problem, ``dual_coef_`` holds ``alpha_i^m`` on the
        support vectors (rows with some ``alpha_i^m != 0``), ``solver_`` is ``"dcd"``. Two
        classes are the binary SVM either way.

    Raises
    ------
    NotSeparableError
        ``C = inf`` on data no halfspace separates (in feature space, for a kernel). Its
        ``certificate`` is a vertex of the Farkas LP (HiGHS; at most ``d + 2`` rows) whose
        relative ``residual`` (:func:`halfspaces.solvers.lp.certificate_residual`, also in
        the message) is at most 1e-8: the interior point's own certificate is approximate and
        puts weight on every row, so it is not what is reported.
    NumericalError
        A row whose ``||x||^2`` overflows float64 (features of 1e154 or more).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``theta``; only with ``kernel="linear"`` (AttributeError otherwise, as scikit-learn).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    support_ : ndarray of int, indices of the support vectors (``alpha_i > 0`` in any problem)
    support_vectors_ : the rows ``X[support_]``
    dual_coef_ : ndarray of shape (1 or n_classes, n_SV), ``alpha_i y_i`` on the support
    margin_ : float (ndarray per class for one-vs-rest), ``1/||theta||``; with a kernel
        ``1/sqrt(alpha^T Q alpha)``, the norm of ``theta`` in feature space
    objective_ : float (or ndarray), the C-form primal objective at the solution
    duality_gap_ : float (or ndarray), primal objective minus the dual objective at the
        solver's ``alpha`` made exactly feasible; >= 0 by weak duality (rounding below 0 is
        reported as 0)
    C_ : float, the ``C`` used (``1/(lam n)`` when ``lam`` was given)
    solver_ : str, the solver that produced the model ("qp", "dcd" or "smo"; "qp" also when
        ``solver="auto"`` fell back on it because DCD did not converge)
    solver_reason_ : str, why ``solver_`` solved it (the ``solver`` given, or the rule of
        ``"auto"``, or the fallback with DCD's duality gap)
    n_iter_ : int, iterations of the solver (DCD: epochs; SMO: epochs of ``n`` pair steps,
        rounded up; the largest over one-vs-rest problems)
    classes_, n_features_in_

    Notes
    -----
    .. math::

        \\min_{\\theta,\\theta_0} \\frac12\\|\\theta\\|^2
        + C\\sum_{i=1}^n \\max\\bigl(0, 1 - y_i(\\theta\\cdot x_i + \\theta_0)\\bigr),
        \\qquad C = \\frac{1}{\\lambda n},

    with dual :math:`\\max_\\alpha \\sum_i\\alpha_i - \\frac12\\alpha^\\top Q\\alpha`,
    :math:`0\\le\\alpha_i\\le C`, :math:`\\sum_i\\alpha_i y_i = 0`. The offset is never
    regularized: the QP has it as a free variable, and DCD handles the constraint
    :math:`\\sum_i\\alpha_i y_i = 0` by the method of multipliers (see
    :mod:`halfspaces.solvers.dcd`), so both solvers reach the same optimum. LIBLINEAR (and
    scikit-learn's LinearSVC) instead regularize the bias as a constant feature.

    References
    ----------
    Cortes and Vapnik (1995), "Support-vector networks". Hsieh, Chang, Lin, Keerthi and
    Sundararajan (2008), "A dual coordinate descent method for large-scale linear SVM".
    Goulart and Chen (2024), "Clarabel: an interior-point solver for conic programs".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    >>> y = np.array([-1, -1, 1, 1])
    >>> clf = SVC(C=np.inf).fit(X, y)
    >>> np.round(clf.coef_, 6) + 0.0, np.round(clf.intercept_, 6) + 0.0, round(clf.margin_, 6)
    (array([[1., 0.]]), array([-1.]), 1.0)
    >>> clf.predict([[3.0, 0.5]]).tolist(), clf.solver_
    ([1], 'qp')
    """

    _parameter_constraints = _params.SVC
    _parameter_rules = (_c_or_lam, _dcd_needs_linear_finite, _smo_needs_hinge_finite,
                        crammer_singer_is_linear, ensemble_is_stored)

    def _fold_models_refused(self) -> str | None:
        return None if self._is_linear() else (
            f"kernel={self.kernel!r}: the fold models' support vectors are not kept")

    def __init__(self, C: float = 1.0, *, lam: float | None = None, kernel="linear",
                 gamma="scale", degree: int = 3, coef0: float = 0.0, fit_intercept: bool = True,
                 solver: str = "auto", loss: str = "hinge", tol: float = 1e-4,
                 max_iter: int = 1000, shrinking: bool = True, random_state=None,
                 verbose: bool = False, class_weight=None, probability: bool = False,
                 ensemble="auto", n_jobs: int | None = None, warm_start: bool = False,
                 multi_class: str = "ovr", cache_size: float = 200.0):
        self.C = C
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability
        self.ensemble = ensemble
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.multi_class = multi_class
        self.cache_size = cache_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _expected_failed_checks(self) -> dict[str, str]:
        """scikit-learn's sample-weight checks hold the decision function to ``rtol=1e-7``;
        DCD's default ``tol=1e-4`` certifies the objective to 1e-6 (decisions to about
        1e-5). DCD runs with ``solver="dcd"``, and with ``solver="auto"`` for the linear
        kernel. ``SVC(solver="qp")`` passes both checks (tests/linear/test_svm_weights.py)."""
        reason = "DCD solves to an objective within 1e-6, coarser than the check's rtol=1e-7"
        if self.solver == "dcd" or (self.solver == "auto" and self._is_linear()):
            return dict.fromkeys(("check_sample_weight_equivalence_on_dense_data",
                                  "check_sample_weight_equivalence_on_sparse_data"), reason)
        return {}

    def _is_linear(self) -> bool:
        return not callable(self.kernel) and self.kernel == "linear"

    def _pick_solver(self, X) -> tuple[str, str]:
        """The solver of this fit and why (``solver_``, ``solver_reason_``)."""
        if self.solver != "auto":
            return self.solver, f"solver={self.solver!r} was given"
        if np.isinf(self.C_):
            return "qp", ("solver='auto': the hard margin (C=inf) is solved by the QP (dual"
                          " coordinate descent and SMO need a finite C)")
        if not self._is_linear():
            smo = self.loss == "hinge" and X.shape[0] > _AUTO_SMO_MIN_SAMPLES
            return ("smo" if smo else "qp"), (
                f"solver='auto': kernel={self.kernel!r} on {X.shape[0]} rows, loss="
                f"{self.loss!r} (SMO above {_AUTO_SMO_MIN_SAMPLES} rows with the hinge"
                " loss, else the QP)")
        return "dcd", ("solver='auto': the linear kernel with a finite C is solved by dual"
                       " coordinate descent, which certifies its duality gap")

    def _refuse_checkpoints_in_the_qp(self, X) -> None:
        """A training asked for checkpoints (the CLI's --checkpoint-every) stops here when
        the QP solves it: only DCD writes them (see :mod:`halfspaces._checkpoint`)."""
        if np.isinf(self.C_):
            refuse_unsaved(self, "the hard margin (C = inf) is solved by the QP",
                           "give a finite C")
        elif self.solver_ == "smo":
            refuse_unsaved(self, "solver_='smo' (SMO on the kernel's dual)",
                           "pass --solver dcd with the linear kernel")
        else:
            refuse_unsaved(self, f"solver={self.solver!r} with kernel={self.kernel!r} is the"
                                 " QP", "pass --solver dcd with the linear kernel")

    # -- fit -------------------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> SVC:
        """Solve the SVM on ``(X, y)``; one-vs-rest with more than two classes.

        ``sample_weight``: one number ``s_i >= 0`` per example, its constant is ``C s_i``
        (an integer weight ``k`` is the example repeated ``k`` times; 0 leaves it out).
        """
        self._validate_params()
        X, y = validate_X_y(self, X, y, reset=True)
        warm = self._warm_start_point(X.shape[0], y)  # before classes_ and coef_ are reset
        previous_C = self.__dict__.get("C_")
        self.classes_ = check_classes("SVC", y, None)
        s = example_weights("SVC.fit", sample_weight, X.shape[0], y, self.class_weight,
                            self.classes_)
        check_every_class_weighed("SVC.fit", s, y, self.classes_, self.class_weight)
        kept, n_given = None, X.shape[0]
        if s is not None and not s.all():  # a weight of 0 is the example left out
            kept = np.flatnonzero(s)
            X, y, s = X[kept], y[kept], s[kept]
            warm = None if warm is None else (warm[0][:, kept], warm[1])
        n = X.shape[0] if s is None else float(s.sum())
        self.C_ = float(self.C) if self.lam is None else 1.0 / (float(self.lam) * n)
        if not self.C_ < np.inf and self.lam is not None:  # not the hard margin by overflow
            raise param_error("SVC", "lam", f"large enough that C = 1/(lam n) is finite (n = {n})",
                              self.lam, "Use C=np.inf for the hard margin, or a lam of 1e-12"
                              " or more.")
        if warm is not None:  # dcd_svm may scale the alpha to the new C
            warm = (*warm, previous_C)
        # more than two classes by Crammer-Singer: its own solver, dual coordinate descent
        joint = self.multi_class == "crammer_singer" and len(self.classes_) > 2
        self.solver_, self.solver_reason_ = ("dcd", "multi_class='crammer_singer' is solved"
                                             " by its dual coordinate descent") if joint \
            else self._pick_solver(X)
        if self.solver_ != "dcd":
            self._refuse_checkpoints_in_the_qp(X)
            # dcd_svm checks them as it computes its curvatures
            check_row_norms("SVC", X)
        if self.verbose:
            print(f"SVC: solver={self.solver!r} -> {self.solver_!r} (kernel={self.kernel!r},"
                  f" n_samples={n}, {'sparse' if sp.issparse(X) else 'dense'}):"
                  f" {self.solver_reason_}")
        for stale in ("coef_", "gamma_"):  # from an earlier fit with another kernel
            if stale in self.__dict__:
                delattr(self, stale)
        y_pm = encode_pm(y, self.classes_)
        problems = [y_pm] if y_pm.ndim == 1 else list(y_pm)
        try:
            self._solve(X, y, problems, s, warm, joint)
        except NotSeparableError as err:  # the hard margin: its rows as given
            raise err if kept is None else error_over_rows(err, kept, n_given) from None
        if kept is not None:  # support_ indexes the rows given
            self.support_ = kept[self.support_]
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if weights is not None and kept is not None:
            weights = weights[kept]
        return fit_probability(self, X, y_pm, weights)

    def _fit_crammer_singer(self, X, y: NDArray, s: NDArray | None) -> None:
        """The Crammer-Singer model (:mod:`halfspaces.linear._svc_crammer_singer`)."""
        res = solve_crammer_singer(self, X, y, s)
        self.coef_, self.intercept_ = res.W, np.zeros(len(self.classes_))
        self.support_ = np.flatnonzero((res.alpha != 0.0).any(axis=1))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = np.ascontiguousarray(res.alpha[self.support_].T)
        norms = np.linalg.norm(res.W, axis=1)
        self.margin_ = np.where(norms > 0, 1.0 / np.maximum(norms, np.finfo(float).tiny),
                                np.inf)
        self.objective_ = float(res.primal)
        self.duality_gap_ = max(float(res.primal - res.dual), 0.0)
        self.n_iter_ = int(res.n_iter)

    def _warm_start_point(self, n: int, y) -> tuple[NDArray, NDArray] | None:
        """``(alpha, theta_0)`` per problem of the previous fit, over the ``n`` rows given,
        when ``warm_start`` can use it (a linear fit, the same classes, support vectors
        among the first ``n`` rows)."""
        if not (self.warm_start and "coef_" in self.__dict__ and "dual_coef_" in self.__dict__
                and np.array_equal(self.classes_, np.unique(y))
                and (self.support_.size == 0 or self.support_[-1] < n)):
            return None
        alpha = np.zeros((self.dual_coef_.shape[0], n))
        alpha[:, self.support_] = np.abs(self.dual_coef_)  # dual_coef_ is alpha_i y_i
        return alpha, self.intercept_.copy()

    def _solve_linear(self, X, y: NDArray, k: int, seed: int, s: NDArray | None, warm=None,
                      checkpoint=None, resume=None, products=None):
        """``(theta, theta_0, alpha, n_iter)`` of problem ``k``, or ``_Unconverged`` when DCD
        chosen by ``solver="auto"`` did not converge (or gave up early: its gaps projected
        more epochs than the interior point costs) and the QP can take over (see
        ``_qp_fits``); the QP of ``solver="auto"`` is the low-rank interior point where it
        applies (``_ipm_applies``), Clarabel where not or where that did not converge.
        ``checkpoint``, ``resume``: DCD's (see ``_checkpointed``); ``products``: the fit's
        ``sparse_product_rows(X)``, shared by its problems."""
        C, fit_b = self.C_, bool(self.fit_intercept)
        if self.solver_ == "dcd":
            res = self._dcd(X, y, seed, s, None if warm is None else
                            (warm[0][k], warm[1][k], warm[2]), checkpoint, resume, products)
            if not res.converged and self.solver == "auto" and _qp_fits(X):
                return _Unconverged(float((res.primal - res.dual) / abs(res.primal)),
                                    res.n_iter)
            self._warn_unconverged(res)
            return res.theta, res.theta_0, res.alpha, res.n_iter
        if self._ipm_applies(X):
            ipm = svm_lowrank_ipm(X, y, C, fit_intercept=fit_b, gap_tol=_GAP_PER_TOL * self.tol,
                                  sample_weight=s)
            if ipm.converged:
                return ipm.theta, ipm.theta_0, ipm.alpha, ipm.n_iter
            # rounding stalled it near the optimum: DCD from there certifies in a few epochs
            res = self._dcd(X, y, seed, s, (ipm.alpha, ipm.theta_0, None), None, None,
                            products, hand_over=False)
            if res.converged:
                return res.theta, res.theta_0, res.alpha, ipm.n_iter + res.n_iter
        nnz = X.nnz if sp.issparse(X) else X.size
        check_allocation("SVC", _QP_PRIMAL_BYTES * (nnz + X.shape[1] ** 2),
                         f"the interior point on {X.shape[0]} x {X.shape[1]} rows",
                         "Use solver='dcd' (dual coordinate descent), or sparse input.")
        # The hard margin is the same problem on X 2^-e (theta 2^e, alpha 2^2e), where the
        # interior point's absolute tolerances hold at every scale of the data.
        e = scale_exponent(X) if np.isinf(C) else 0
        Xq = times_power_of_two(X, -e) if e else X
        res = svm_primal_qp(Xq, y, C, fit_intercept=fit_b, loss=self.loss,
                            max_iter=self.max_iter, verbose=bool(self.verbose),
                            sample_weight=s, callback=listener())
        if res.status != "solved" and np.isfinite(C):
            # The soft margin is always feasible: a failed interior point (example constants
            # C s_i spanning many orders of magnitude) is solved by DCD, certified by its gap.
            span = "" if s is None else (f" (example constants C_i = C sample_weight_i up to"
                                         f" {C * float(s.max()):.3g})")
            warnings.warn(f"SVC: the interior-point QP stopped with status {res.status!r}"
                          f"{span}; solving this problem by dual coordinate descent instead.",
                          convergence_warning(), stacklevel=4)
            dcd = self._dcd(X, y, seed, s, None, None, None, products)
            self._warn_unconverged(dcd)
            return dcd.theta, dcd.theta_0, dcd.alpha, dcd.n_iter
        self._check_qp(res, X, y, k)
        if e:
            return np.ldexp(res.theta, -e), res.theta_0, np.ldexp(res.alpha, -2 * e), res.n_iter
        return res.theta, res.theta_0, res.alpha, res.n_iter

    def _dcd(self, X, y: NDArray, seed: int, s: NDArray | None, warm, checkpoint, resume,
             products=None, hand_over: bool = True):
        """DCD's result on one binary problem, from ``warm = (alpha, theta_0, C0)`` (see
        ``dcd_svm``) or zero; ``hand_over``: it may give up early for the interior point."""
        alpha0, theta_0, C0 = (None, 0.0, None) if warm is None else warm
        return dcd_svm(X, y, self.C_, loss=self.loss, fit_intercept=bool(self.fit_intercept),
                       tol=self.tol, max_iter=self.max_iter, shrinking=bool(self.shrinking),
                       rng=seed, verbose=bool(self.verbose), owner="SVC", sample_weight=s,
                       alpha0=alpha0, theta_0=theta_0, C0=C0, callback=listener(),
                       checkpoint=checkpoint, resume=resume, products=products,
                       give_up_after=_ipm_epochs(X) if hand_over and checkpoint is None
                       and self._ipm_applies(X) and _qp_fits(X) else np.inf)

    def _ipm_applies(self, X) -> bool:
        """Whether ``solver="auto"`` solves the QP of this linear problem by the low-rank
        interior point (the hinge loss, a finite ``C``, at most ``_IPM_MAX_FEATURES``)."""
        return (self.solver == "auto" and self.loss == "hinge" and bool(np.isfinite(self.C_))
                and X.shape[1] <= _IPM_MAX_FEATURES)

    def _warn_unconverged(self, res) -> None:
        """A ConvergenceWarning when DCD's ``res`` did not reach ``tol``."""
        if res.converged:
            return
        gap = (res.primal - res.dual) / abs(res.primal)
        warnings.warn(
            f"SVC: dual coordinate descent did not reach tol={self.tol:g} in"
            f" max_iter={self.max_iter} epochs; its objective is within a relative"
            f" duality gap of {gap:.2g} of the optimum. Increase max_iter, scale the"
            " features (e.g. StandardScaler), lower C, or use solver='qp'.",
            convergence_warning(), stacklevel=5)

    def _solve(self, X, y: NDArray, problems: list[NDArray], s: NDArray | None, warm,
               joint: bool) -> None:
        """Fit the binary ``problems`` (one-vs-rest) or, when ``joint``, Crammer-Singer's."""
        if joint:
            self._fit_crammer_singer(X, y, s)
        elif self.solver_ == "smo":
            self._fit_smo(X, problems, s)
        elif self._is_linear():
            gap = self._fit_linear(X, problems, s, warm)
            if gap is not None:  # solver="auto": DCD did not certify a problem the QP can hold
                self.solver_ = "qp"
                within = (f"within max_iter={self.max_iter} epochs"
                          if gap.epochs >= self.max_iter else
                          f"in {gap.epochs} epochs, and at its rate would need more than the"
                          f" interior point costs (about {_ipm_epochs(X):.0f} epochs)")
                how = ("the low-rank interior point" if self._ipm_applies(X) else "the QP")
                self.solver_reason_ = (
                    f"solver='auto': dual coordinate descent did not certify its duality gap"
                    f" {within} (relative gap {gap.gap:.2g}, wanted {0.01 * self.tol:.2g}),"
                    f" so {how} solved the problem")
                if self.verbose:
                    print(f"SVC: {self.solver_reason_}")
                warnings.warn(f"SVC: {self.solver_reason_}: exact, certified. To keep dual"
                              " coordinate descent, increase max_iter or scale the features"
                              " (e.g. StandardScaler), or pass solver='dcd'.",
                              SolverFallbackWarning, stacklevel=3)
                self._fit_linear(X, problems, s, warm)
        else:
            self._fit_kernel(X, problems, s)

    def _check_qp(self, res, Z, y: NDArray, k: int) -> None:
        """Raise or warn when the QP of problem ``k`` was not solved.

        The hard margin is decided by the separability LPs on ``Z`` (``X``, or the Gram
        matrix for a kernel): an interior point's infeasibility certificate is approximate
        and dense, the LP's is a vertex (at most ``d + 2`` rows) verified to a relative
        residual of 1e-8 (:mod:`halfspaces.solvers.lp`).
        """
        if res.status == "solved":
            return
        if np.isinf(self.C_):
            which = "" if len(self.classes_) == 2 else (
                f" (class {self.classes_[k]!r} against the rest)")
            linear = self._is_linear()
            space = "" if linear else f" in the feature space of kernel={self.kernel!r}"
            separate_or_certify(Z, y, bool(self.fit_intercept), owner="SVC",
                                problem=f"the data{which}{space}",
                                features="x_i" if linear else "phi(x_i)",
                                hint="The hard-margin SVM (C=inf) has no solution; use a"
                                     " finite C for the soft-margin SVM.")
            if res.alpha is None:  # a claim of infeasibility that the LP refutes
                raise RuntimeError(
                    f"SVC: Clarabel stopped with status {res.status!r} (its certificate's"
                    f" relative residual is {res.residual:.1e}) on the hard-margin QP, but the"
                    " separating LP found a separator: the data is separable by a margin too"
                    " thin for the interior point. Rescale the features (e.g. divide by"
                    " their largest absolute value) or use a finite C.")
        warnings.warn(f"SVC: the interior-point solver stopped with status {res.status!r};"
                      " the solution may be inaccurate. Rescale the features or raise"
                      " max_iter.", convergence_warning(), stacklevel=4)

    def _fit_linear(self, X, problems: list[NDArray], s: NDArray | None,
                    warm=None) -> _Unconverged | None:
        """Solve every binary problem: None, or (nothing set) the largest relative duality
        gap of the problems where ``_solve_linear`` gave up."""
        rng = check_random_state(self.random_state)
        n_models, d = len(problems), X.shape[1]
        # each problem's seed of DCD's permutations, drawn in class order: the same for
        # every n_jobs (and the draws of one thread solving the problems in turn)
        seeds = rng.randint(0, 2**31 - 1, size=n_models)
        products = sparse_product_rows(X)  # once for every problem's products and gap
        solutions = None if self.solver_ != "dcd" else \
            self._checkpointed(X, problems, seeds, s, warm, products)
        if solutions is None:
            solutions = map_problems(
                lambda k: self._solve_linear(X, problems[k], k, seeds[k], s, warm,
                                             products=products),
                n_models, self.n_jobs)
        gaps_left = [solution for solution in solutions if isinstance(solution, _Unconverged)]
        if gaps_left:
            return max(gaps_left)
        coef, intercept = np.zeros((n_models, d)), np.zeros(n_models)
        alphas = np.zeros((n_models, X.shape[0]))
        zs = np.zeros_like(alphas)
        margins, objectives, gaps, iters = [], [], [], []
        for k, (y, (theta, theta_0, alpha, n_iter)) in enumerate(
                zip(problems, solutions, strict=True)):
            coef[k], intercept[k], alphas[k] = theta, theta_0, alpha
            primal, dual, zs[k] = primal_dual(products, y, self.C_, self.loss,
                                              bool(self.fit_intercept), alpha, theta, theta_0,
                                              s)
            iters.append(n_iter)
            norm = float(np.sqrt(dot_dense(theta, theta)))  # no BLAS threads
            margins.append(1.0 / norm if norm > 0 else np.inf)
            objectives.append(primal)
            gaps.append(max(primal - dual, 0.0) if np.isfinite(primal) else np.inf)
        self.coef_, self.intercept_ = coef, intercept
        self._set_support(X, problems, alphas, zs)
        self._set_summaries(margins, objectives, gaps, iters)
        return None

    def _checkpointed(self, X, problems: list[NDArray], seeds, s: NDArray | None, warm,
                      products):
        """The solutions of DCD's problems with checkpoints, None when no checkpointer
        follows this fit (:mod:`halfspaces.linear._svc_checkpoint`)."""
        resumed = solver_resume(self)  # None: no checkpoints; {}: none to resume from
        if resumed is None:
            return None
        U = (self.C_ if s is None else self.C_ * s) if self.loss == "hinge" else np.inf
        return solve_with_checkpoints(
            resumed, solver_writer(self), *X.shape, len(problems), U,
            lambda k, checkpoint, start: self._solve_linear(X, problems[k], k, seeds[k], s,
                                                            warm, checkpoint, start, products),
            self.n_jobs)

    def _fit_kernel(self, X, problems: list[NDArray], s: NDArray | None) -> None:
        n = X.shape[0]
        check_allocation("SVC", _QP_DUAL_BYTES * n * n,
                         f"the interior point on the dual of {n} rows", _SMO_FIX)
        self.gamma_ = resolve_gamma(self.gamma, X, s)
        K = gram(X, X, self.kernel, self.gamma_, self.degree, self.coef0, owner="SVC",
                 fix=_SMO_FIX)
        C = self.C_
        Ci = C if s is None or np.isinf(C) else C * s  # C_i = C s_i
        U = Ci if self.loss == "hinge" else np.inf
        n_models = len(problems)
        self.intercept_ = np.zeros(n_models)
        alphas = np.zeros((n_models, X.shape[0]))
        zs = np.zeros_like(alphas)
        margins, objectives, gaps, iters = [], [], [], []
        results = map_problems(
            lambda k: svm_dual_qp(K, problems[k], C, fit_intercept=bool(self.fit_intercept),
                                  loss=self.loss, max_iter=self.max_iter,
                                  verbose=bool(self.verbose), sample_weight=s,
                                  callback=listener()),
            n_models, self.n_jobs)
        for k, (y, res) in enumerate(zip(problems, results, strict=True)):
            self._check_qp(res, K, y, k)
            alpha = res.alpha
            alphas[k], self.intercept_[k] = alpha, res.theta_0
            iters.append(res.n_iter)
            ay = alpha * y
            sq_norm = max(float(ay @ K @ ay), 0.0)  # ||theta||^2 in feature space
            margins.append(1.0 / np.sqrt(sq_norm) if sq_norm > 0 else np.inf)
            z = zs[k] = y * (K @ ay + res.theta_0)
            if np.isinf(C):  # feasible to the QP's tolerance: the objective is 1/2 ||theta||^2
                primal = 0.5 * sq_norm
            else:
                losses = hinge(z) if self.loss == "hinge" else squared_hinge(z)
                primal = 0.5 * sq_norm + float((Ci * losses).sum())
            a = feasible_dual(alpha, y, U, bool(self.fit_intercept))
            dual = a.sum() - 0.5 * float((a * y) @ K @ (a * y))
            if self.loss == "squared_hinge" and np.isfinite(C):
                dual -= float((a * a / Ci).sum()) / 4.0
            objectives.append(primal)
            gaps.append(max(primal - dual, 0.0) if np.isfinite(primal) else np.inf)
        self._set_support(X, problems, alphas, zs)
        self._set_summaries(margins, objectives, gaps, iters)

    def _fit_smo(self, X, problems: list[NDArray], s: NDArray | None) -> None:
        """Every binary problem by SMO (:mod:`halfspaces.solvers.smo`)."""
        linear = self._is_linear()
        self.gamma_ = resolve_gamma(self.gamma, X, s)
        if callable(self.kernel):
            K = gram(X, X, self.kernel, self.gamma_, self.degree, self.coef0, owner="SVC",
                     fix="Give the kernel by name ('rbf', 'poly' or 'linear'): SMO then"
                         " computes its columns as needed.")
            kernel, rows = "precomputed", None
        else:
            K, kernel, rows = None, self.kernel, X
        if linear:  # a linear model keeps coef_, not gamma_
            del self.gamma_
        n = X.shape[0]
        max_steps = int(self.max_iter) * max(n, 1)
        results = map_problems(
            lambda k: smo_svm(rows, problems[k], self.C_, kernel=kernel,
                              gamma=getattr(self, "gamma_", 1.0), degree=int(self.degree),
                              coef0=float(self.coef0), fit_intercept=bool(self.fit_intercept),
                              gap_rtol=_GAP_PER_TOL * self.tol, max_steps=max_steps,
                              cache_size=float(self.cache_size), shrinking=bool(self.shrinking),
                              sample_weight=s, gram=K, verbose=bool(self.verbose),
                              owner="SVC"),
            len(problems), self.n_jobs)
        alphas = np.vstack([res.alpha for res in results])
        self.intercept_ = np.array([res.theta_0 for res in results])
        margins, objectives, gaps = [], [], []
        for k, res in enumerate(results):
            if not res.converged:
                gap = (res.primal - res.dual) / abs(res.primal)
                warnings.warn(
                    f"SVC: SMO did not reach tol={self.tol:g} in max_iter={self.max_iter}"
                    f" times {n} steps (problem {k}); its objective is within a relative"
                    f" duality gap of {gap:.2g} of the optimum. Increase max_iter, scale the"
                    " features, or lower C.", convergence_warning(), stacklevel=4)
            sq_norm = 2.0 * (res.primal - res.hinge)
            margins.append(1.0 / np.sqrt(sq_norm) if sq_norm > 0 else np.inf)
            objectives.append(res.primal)
            gaps.append(max(res.primal - res.dual, 0.0))
        signed = alphas * np.vstack(problems)
        self.support_ = np.flatnonzero((alphas > 0.0).any(axis=0))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = signed[:, self.support_]
        if linear:
            self.coef_ = np.asarray(self.dual_coef_ @ self.support_vectors_)
        # epochs of n pair steps (rounded up), as DCD's of n coordinate steps
        self._set_summaries(margins, objectives, gaps,
                            [-(-res.n_iter // max(n, 1)) for res in results])

    def _set_support(self, X, problems: list[NDArray], alphas: NDArray, z: NDArray) -> None:
        # alpha_i > 0 needs z_i = y_i f(x_i) <= 1 (KKT); an interior-point alpha is only
        # complementary to its tolerance, so a tiny alpha on a point outside the margin is 0.
        top = alphas.max(axis=1, keepdims=True)
        slack = self.tol if self.solver_ == "dcd" else 1e-6
        is_sv = ((alphas > _SV_RELATIVE_THRESHOLD * np.maximum(top, np.finfo(float).tiny))
                 & (z <= 1.0 + slack))
        self.support_ = np.flatnonzero(is_sv.any(axis=0))
        self.support_vectors_ = X[self.support_]
        signed = alphas * np.vstack(problems)
        signed[~is_sv] = 0.0
        self.dual_coef_ = signed[:, self.support_]

    def _set_summaries(self, margins, objectives, gaps, iters) -> None:
        one = len(margins) == 1
        self.margin_ = float(margins[0]) if one else np.asarray(margins)
        self.objective_ = float(objectives[0]) if one else np.asarray(objectives)
        self.duality_gap_ = float(gaps[0]) if one else np.asarray(gaps)
        self.n_iter_ = int(max(iters))

    # -- predict ---------------------------------------------------------------------------
    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``theta.x + theta_0`` (linear) or ``sum_i alpha_i y_i k(x_i, x) + theta_0``.

        Shape ``(n,)`` for two classes, ``(n, n_classes)`` for one-vs-rest.
        """
        check_is_fitted(self, "intercept_")
        X = validate_X(self, X, reset=False)
        if hasattr(self, "coef_"):
            scores = np.asarray(X @ self.coef_.T)
        else:  # in blocks of rows: the kernel block stays small
            n_sv = max(self.support_vectors_.shape[0], 1)
            step = max(1, _PREDICT_BLOCK_BYTES // (8 * n_sv))
            scores = np.empty((X.shape[0], self.dual_coef_.shape[0]))
            for start in range(0, X.shape[0], step):
                K = gram(X[start:start + step], self.support_vectors_, self.kernel,
                         self.gamma_, self.degree, self.coef0, owner="SVC.decision_function")
                scores[start:start + step] = K @ self.dual_coef_.T
        scores = scores + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        """``classes_[1]`` where the score is ``>= 0`` (binary), the argmax (one-vs-rest)."""
        return decode_scores(self.decision_function(X), self.classes_)
