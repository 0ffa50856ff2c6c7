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
