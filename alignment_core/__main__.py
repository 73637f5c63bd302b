"""``python -m alignment_core COMMAND ...``: see ``alignment_core.cli``."""

import sys

from alignment_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
