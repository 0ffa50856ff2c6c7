"""Errors raised by halfspaces."""

from __future__ import annotations

import numpy as np


class NotSeparableError(ValueError):
    """No halfspace separates the data; ``certificate`` proves it.

    ``certificate`` is a vector ``alpha >= 0`` over the rows, not all zero, with
    ``sum_i alpha_i y_i x_i = 0`` (and ``sum_i alpha_i y_i = 0`` when an offset is allowed):
    by Farkas' lemma no ``w`` can have ``y_i <w, x_i> > 0`` on every row. ``rows`` are the
    indices where ``alpha_i > 0``.
    """

    def __init__(self, message: str, certificate: np.ndarray | None = None):
        super().__init__(message)
        self.certificate = certificate
        self.rows = None if certificate is None else np.flatnonzero(certificate > 0)


class NotRealizableError(ValueError):
    """No hypothesis of a finite class is consistent with the data seen (Halving).

    ``round`` is the 1-based round ``t`` at which the version space would have become empty.
    """

    def __init__(self, message: str, round: int | None = None):
        super().__init__(message)
        self.round = round
