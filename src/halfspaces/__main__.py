"""``python -m halfspaces ...`` runs the ``halfspaces`` command."""

from .cli import run

if __name__ == "__main__":
    run()
