"""``python -m controller.cli`` runs the ``tianhei`` command (for a checkout without the console script)."""

import sys

from controller.cli import main

sys.exit(main())
