"""Errors raised by halfspaces."""

from __future__ import annotations

import numpy as np


class NotSeparableError(ValueError):
    """No halfspace separates the data; ``certificate`` proves it.

    ``certificate`` is a vector ``alpha >= 0`` over the rows, not all zero, with
    ``sum_i alpha_i y_i x_i = 0`` (and ``sum_i alpha_i y_i = 0`` when an offset is allowed):
    by Farkas' lemma no ``w`` can have ``y_i <w, x_i> > 0`` on every row. ``rows`` are the
    indices where ``alpha_i > 0``; ``residual`` is the certificate's relative residual
    (:func:`halfspaces.solvers.lp.certificate_residual`) when it was checked.
    """

    def __init__(self, message: str, certificate: np.ndarray | None = None,
                 residual: float | None = None):
        super().__init__(message)
        self.certificate = certificate
        self.rows = None if certificate is None else np.flatnonzero(certificate > 0)
        self.residual = residual


class NotSeparableWarning(UserWarning):
    """No halfspace separates the data, and a fallback answer was returned instead.

    Emitted by ``LPSeparator(on_infeasible="least_violation")`` (the default), which keeps
    the Farkas certificate in ``certificates_``; ``on_infeasible="raise"`` raises
    :class:`NotSeparableError` instead.
    """


class InexactMarginWarning(UserWarning):
    """The max-margin QP was not solved to a certified optimum; a smaller margin was used.

    Emitted by :func:`halfspaces.theory.max_margin_separator` and
    :func:`halfspaces.theory.perceptron_bound` when the QP solver fails on separable data (or
    its answer's duality gap is too large): the margin returned is that of a verified
    separator (the separating LP's), a lower bound of the maximum margin, so a mistake bound
    ``(R/margin)^2`` computed from it is still valid, only looser. The results say so with
    ``exact=False``.
    """


class SolverFallbackWarning(UserWarning):
    """``solver="auto"`` handed the problem to another solver than the one it chose first.

    Emitted by :class:`~halfspaces.SVC` when dual coordinate descent did not certify its
    duality gap within ``max_iter`` epochs and the QP solved the problem instead
    (``solver_`` and ``solver_reason_`` say so): the model is exact, the fit slower. Filter
    it as any warning category, e.g.
    ``warnings.filterwarnings("ignore", category=SolverFallbackWarning)``.
    """


class NotRealizableError(ValueError):
    """No hypothesis of a finite class is consistent with the data seen (Halving).

    ``round`` is the 1-based round ``t`` at which the version space would have become empty.
    """

    def __init__(self, message: str, round: int | None = None):
        super().__init__(message)
        self.round = round


class NumericalError(ValueError):
    """A compiled pass produced a non-finite weight or score (inf or nan) and stopped.

    Raised instead of returning a model whose scores are ``inf`` or ``nan`` (``nan <= 0`` is
    false, so such a row would never count as a mistake and a fit would look converged).
    ``row`` is the 0-based index of the row whose score or update was not finite.
    """

    def __init__(self, owner: str, row: int, what: str = "the score"):
        super().__init__(
            f"{owner}: {what} became non-finite (inf or nan) at row {row}: the features or the"
            " weights overflow float64. Scale the features (e.g. divide by their largest"
            " absolute value) or lower the step size / C."
        )
        self.row = row


class MemoryBudgetError(MemoryError):
    """An allocation would not fit in the memory this process may still use; refused before
    it is made (instead of an abort or the kernel's OOM killer).

    ``needed`` and ``available`` are in bytes (``available``: the least of the system's
    MemAvailable, the cgroup's limit less its usage, and ``RLIMIT_AS`` less the address space
    in use); the message says what the allocation was for and how to do without it.
    """

    def __init__(self, owner: str, what: str, needed: int, available: int, fix: str):
        super().__init__(
            f"{owner}: {what} needs about {needed / 2**20:,.0f} MB, more than the"
            f" {available / 2**20:,.0f} MB this process may still allocate. {fix}"
        )
        self.needed = needed
        self.available = available
