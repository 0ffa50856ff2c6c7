"""SVC's ``multi_class="crammer_singer"``: its parameter rule and its solver call.

The Crammer-Singer SVM (:mod:`halfspaces.solvers.crammer_singer`, LIBLINEAR's ``-s 4``) fits
one weight vector per class jointly, by dual coordinate descent, with the hinge loss and no
offset.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray

from .._base import check_random_state, convergence_warning
from .._checkpoint import solver_resume, solver_state_error, solver_writer
from .._validation import param_error
from ..solvers.crammer_singer import check_state, crammer_singer

__all__ = ["crammer_singer_is_linear", "solve_crammer_singer"]


def crammer_singer_is_linear(svc) -> None:
    """The Crammer-Singer solver keeps one weight vector per class and fits no offset."""
    if svc.multi_class != "crammer_singer":
        return
    for name, ok, wanted in (("kernel", svc._is_linear(), "'linear'"),
                             ("fit_intercept", not svc.fit_intercept, "False"),
                             ("loss", svc.loss == "hinge", "'hinge'"),
                             ("solver", svc.solver != "qp", "'auto' or 'dcd'")):
        if not ok:
            raise param_error("SVC", name, f"{wanted} with multi_class='crammer_singer'",
                              getattr(svc, name), "The Crammer-Singer solver (as LIBLINEAR's"
                              " -s 4) fits one weight vector per class by dual coordinate"
                              " descent, with the hinge loss and no offset; add a constant"
                              " feature for an offset, or use multi_class='ovr'.")
    if np.isinf(svc.C):
        raise param_error("SVC", "C", "finite with multi_class='crammer_singer'", svc.C,
                          "Try C=1.0.")


def solve_crammer_singer(svc, X, y: NDArray, s: NDArray | None):
    """The Crammer-Singer solver's result for the fit of ``svc`` on ``(X, y)`` (example
    weights ``s``), with checkpoints of its passes when a checkpointer follows this fit
    (:mod:`halfspaces._checkpoint`; the solver's state, checked on resume)."""
    seed = check_random_state(svc.random_state).randint(0, 2**31 - 1)
    codes, k = np.searchsorted(svc.classes_, y), len(svc.classes_)
    resume = solver_resume(svc) or None  # the state of a checkpoint to go on from
    if resume is not None:
        try:
            check_state(resume, codes, k, X.shape[1],
                        svc.C_ if s is None else svc.C_ * s, svc.max_iter)
        except ValueError as exc:
            raise solver_state_error(str(exc)) from None
    res = crammer_singer(X, codes, k, svc.C_, tol=svc.tol, max_iter=svc.max_iter,
                         seed=seed, sample_weight=s, owner="SVC",
                         checkpoint=solver_writer(svc), resume=resume)
    if not res.converged:
        warnings.warn(
            f"SVC: the Crammer-Singer solver did not reach tol={svc.tol:g} in"
            f" max_iter={svc.max_iter} passes; its objective is within a relative"
            f" duality gap of {(res.primal - res.dual) / abs(res.primal):.2g} of the"
            " optimum. Increase max_iter, scale the features (e.g. StandardScaler) or"
            " lower C.", convergence_warning(), stacklevel=4)
    return res
