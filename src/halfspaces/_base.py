"""Mixins shared by every estimator."""

from __future__ import annotations

import os

from ._specs import validate_params


class SaveMixin:
    """Gives every estimator ``save(path)``; see :mod:`halfspaces.persistence`."""

    def save(self, path: str | os.PathLike) -> None:
        """Save the fitted estimator to ``path`` (versioned arrays + JSON, no pickle)."""
        from .persistence import save

        save(self, path)


class ParamsMixin:
    """Checks the constructor parameters against the class's table
    ``_parameter_constraints`` (``{name: Spec}``) and its ``_parameter_rules`` (functions of
    the estimator that check parameters together); see :mod:`halfspaces._specs`. It takes
    the place of scikit-learn's ``_validate_params``, whose constraint lists these tables
    are not."""

    _parameter_rules: tuple = ()

    def _validate_params(self) -> None:
        validate_params(self)
