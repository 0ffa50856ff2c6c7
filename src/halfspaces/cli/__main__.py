"""``python -m halfspaces.cli ...`` runs the ``halfspaces`` command."""

from . import run

if __name__ == "__main__":
    run()
