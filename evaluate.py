#!/usr/bin/env python3
"""``connectx-evaluate`` from the checkout: ``python evaluate.py --help``.

The command lives in the package (``connectx_toolkit.cli.evaluate``) so that an installed wheel has it too.
"""

import sys

from connectx_toolkit.cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
