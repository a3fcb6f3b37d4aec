"""``python -m connectx_toolkit``: the ``connectx`` command."""

import sys

from connectx_toolkit.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
