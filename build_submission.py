#!/usr/bin/env python3
"""``connectx-build`` from the checkout: ``python build_submission.py --help``.

The command lives in the package (``connectx_toolkit.cli.build_submission``) so that an installed wheel has it too.
"""

import sys

from connectx_toolkit.cli.build_submission import main

if __name__ == "__main__":
    sys.exit(main())
