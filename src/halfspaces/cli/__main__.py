"""``python -m halfspaces.cli ...`` runs the ``halfspaces`` command."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
