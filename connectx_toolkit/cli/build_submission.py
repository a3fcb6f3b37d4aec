#!/usr/bin/env python3
"""Build one self-contained Kaggle ConnectX submission from any agent, validated by Kaggle's own loader.

    connectx build [AGENT[:FUNCTION]] [-o OUT] [--path DIR]... [--allow-import NAME]...

(``connectx-build`` and ``python build_submission.py`` are its old names: the same command.)

AGENT is a module in ``agents/`` (default: the strongest, ``solver``), a dotted module of the project, a
``.py`` file anywhere, or a folder (``main.py`` in it, or a package). Without ``:FUNCTION`` the entry is
Kaggle's: ``agent`` if defined, else the last callable. Imports are looked up in the agent's folder, then
each ``--path DIR``, then ``PYTHONPATH``. The agent and every module it imports are embedded with the data files it reads through
``load_resource``; the file is then checked in a clean interpreter (Kaggle's loader, the validation
episode, games against the built-ins) before it replaces OUT. Exit codes: 0 built and valid; 1
validation failed (OUT untouched); 2 bad input (one line; OUT untouched). The work is done by the
``building`` package, which is also the Python API: ``build_submission.build(target, out=...)``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO

from connectx_toolkit.building import BuildError, BuildReport, Project, ValidationError, build, build_text  # noqa: F401 (API)
from connectx_toolkit.building.sources import AGENT_PACKAGE, ROOT, agent_names  # noqa: F401
from connectx_toolkit.building.template import sources_digest, triple_quoted  # noqa: F401
from connectx_toolkit.building.validation import VALIDATION_TIMEOUT_S, format_report, validate  # noqa: F401
from connectx_toolkit.cli.program import build_program
from connectx_toolkit.errors import UsageError
from connectx_toolkit.sandbox import SandboxUnavailable, outside_warning
from connectx_toolkit.sandbox import require as require_sandbox

DEFAULT_AGENT = "solver"  # the strongest agent the project has
DEFAULT_OUT = os.path.join("submissions", "submission.py")


HELP = "build one self-contained submission file from an agent, validated by Kaggle's loader"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agent", nargs="?", default=DEFAULT_AGENT, metavar="AGENT[:FUNCTION]",
        help=f"a module in {AGENT_PACKAGE}/ ({', '.join(agent_names(Project()))}; default {DEFAULT_AGENT}), "
        "a dotted module, a .py file or a folder (main.py or a package); :FUNCTION picks a callable other "
        "than agent",
    )
    parser.add_argument("-o", "--out", default=DEFAULT_OUT, help=f"output file (default: {DEFAULT_OUT})")
    parser.add_argument("--allow-import", action="append", default=[], metavar="NAME",
                        help="admit third-party package NAME (only if Kaggle's image has it; repeatable)")
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="an import root searched after the agent's folder and before PYTHONPATH (repeatable)")
    parser.add_argument("--data", action="append", default=[], metavar="SRC[:NAME]",
                        help="a file or folder to ship beside main.py in a bundle, e.g. one a notebook writes in "
                        "code outside %%%%writefile; SRC:NAME ships SRC as NAME, the name the agent reads "
                        "(repeatable; -o ....tar.gz)")
    parser.add_argument("--sandbox", action="store_true",
                        help="run the validation inside a bubblewrap sandbox (no network, no home directory)")
    parser.add_argument("--timeout", type=float, default=VALIDATION_TIMEOUT_S, metavar="SECONDS",
                        help=f"wall-clock cap on validation (default: {VALIDATION_TIMEOUT_S:g})")
    # Where modules and data come from; the test suite points these at fixture projects.
    parser.add_argument("--search-path", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--package", default=AGENT_PACKAGE, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)


def main(argv: list[str] | None = None) -> int:
    """``connectx-build`` and ``build_submission.py``: the old form of ``connectx build``, the same command.
    Bad options exit through ``SystemExit(2)`` (as they always have); everything else returns the code."""
    from connectx_toolkit.cli.main import execute

    return execute("build", argv, program=build_program(), exit_on_bad_options=True)


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """Build, validate, then write ``--out``: 0 built; 1 validation failed, 2 bad input (OUT untouched)."""
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    project = Project(
        search_path=tuple(os.path.abspath(p) for p in args.search_path) + (ROOT,),
        package=args.package,
        data_dir=os.path.abspath(args.data_dir) if args.data_dir else None,
    )
    try:
        if args.sandbox:
            require_sandbox()
        # A bundle is always validated in the sandbox (it is unpacked at /kaggle_simulations/agent there).
        note = None if args.sandbox or args.out.endswith(".tar.gz") else outside_warning([args.agent], args.program)
        report = build(args.agent, args.out, allow_imports=args.allow_import, paths=args.path, data=args.data,
                       project=project,
                       timeout=args.timeout,
                       sandbox=args.sandbox, before_validation=(lambda: print(note, file=sys.stderr)) if note else None)
    except SandboxUnavailable as error:
        print(f"{args.program}: error: {error}", file=sys.stderr)
        return 2
    except ValidationError as error:
        detail = format_report(error.report) if error.report else str(error)
        print(f"{args.program}: {args.out} not written, validation failed:\n{detail}", file=sys.stderr)
        return error.exit_code
    except BuildError as error:
        print(f"{args.program}: error: {error}", file=sys.stderr)
        return error.exit_code
    out.write(report.summary() + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
