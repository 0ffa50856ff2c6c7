"""Mixins shared by every estimator."""

from __future__ import annotations

import os


class SaveMixin:
    """Gives every estimator ``save(path)``; see :mod:`halfspaces.persistence`."""

    def save(self, path: str | os.PathLike) -> None:
        """Save the fitted estimator to ``path`` (versioned arrays + JSON, no pickle)."""
        from .persistence import save

        save(self, path)
