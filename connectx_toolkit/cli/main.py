"""``connectx``: the toolkit's one command, with a subcommand per job.

    connectx build [AGENT]                    one submission file, validated by Kaggle's loader
    connectx match A B [-n 100] [--sprt 0 10] which of two agents is stronger
    connectx league A B C ...                 a round robin: ratings and cross tables
    connectx gate CANDIDATE --baseline B      a submission's checks before an upload
    connectx submit FILE -m MESSAGE           the gate, then the upload on PASS
    connectx ladder SUBMISSION_ID             fetch and analyse a submission's ladder games
    connectx board [AGENT]                    play an agent in the browser, with exact values
    connectx analyze FILE                     label every move of saved games with its exact value
    connectx accuracy AGENT [AGENT ...]       accuracy against perfect play, on positions with exact values
    connectx train --out DIR                  a TD(lambda) agent trained by self-play
    connectx solve [MOVES ...]                exact scores of positions (a filter, as Pons' solver)

Each subcommand lives in a module of this package that has ``configure(parser)`` (its arguments: its own, and
the shared groups of :mod:`options` it uses) and ``run(args, out) -> int`` (the job: its output on ``out``,
its exit code; bad input raises ``UsageError``). :func:`execute` runs one, for ``connectx`` and for the old
commands (``connectx-evaluate``, ``evaluate.py``, ``connectx-build``, ``build_submission.py``,
``connectx-train``), which name themselves in their messages. Exit codes: 0 done, 1 the job's own failure
(a gate FAIL, a validation that failed), 2 bad input (one line on stderr), 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Sequence

from connectx_toolkit.cli.options import Parser
from connectx_toolkit.errors import UsageError

__all__ = ["COMMANDS", "PROGRAM", "build_parser", "command_module", "commands", "execute", "main", "version"]

PROGRAM = "connectx"
# Each subcommand and the module of this package that holds it, in the order --help lists them.
COMMANDS = {
    "build": "build_submission",
    "match": "match",
    "league": "league",
    "gate": "gate",
    "submit": "submit",
    "ladder": "ladder",
    "board": "board",
    "analyze": "analyze",
    "accuracy": "accuracy",
    "train": "train",
    "solve": "solve",
}


def commands() -> list[str]:
    """The subcommands, in the order ``connectx --help`` lists them."""
    return list(COMMANDS)


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{COMMANDS[name]}")


def version() -> str:
    """``connectx_toolkit.__version__`` when the package says it, else the installed distribution's version."""
    import connectx_toolkit

    found = getattr(connectx_toolkit, "__version__", None)
    if found:
        return str(found)
    from importlib import metadata

    try:
        return metadata.version("connectx-toolkit")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def command_parser(name: str, prog: str) -> Parser:
    """The parser of subcommand ``name``, called ``prog`` in its usage."""
    module = command_module(name)
    doc = (module.__doc__ or "").strip().replace("``", "")  # reStructuredText's quotes, not the reader's
    parser = Parser(prog=prog, description=doc.split("\n\n")[0] if doc else None,
                    epilog="\n\n".join(doc.split("\n\n")[1:]) or None,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    module.configure(parser)
    return parser


def build_parser() -> Parser:
    """The top parser: ``--help`` (the subcommands, one line each) and ``--version``."""
    doc = (__doc__ or "").replace("``", "")
    parser = Parser(prog=PROGRAM, description=doc.split("\n\n")[0],
                    epilog="'connectx COMMAND --help' shows a command's options. Exit codes: 0 done, 1 the job's "
                           "own failure (a gate FAIL, a validation that failed), 2 bad input, 130 interrupted.")
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in commands():
        module = command_module(name)
        line = getattr(module, "HELP", None) or (module.__doc__ or "").strip().split("\n")[0].replace("``", "")
        sub.add_parser(name, help=line, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``connectx COMMAND ...``: the exit code of the command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in commands():
        return execute(argv[0], argv[1:], program=f"{PROGRAM} {argv[0]}")
    try:
        build_parser().parse_args(argv)  # --help, --version (both exit 0), or an unknown command
        raise UsageError(f"a command is needed: {', '.join(commands())} ('{PROGRAM} --help' says what each does)")
    except UsageError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2


def execute(name: str, argv: Sequence[str] | None, program: str, job: str | None = None, rerun: str | None = None,
            usage: str | None = None, exit_on_bad_options: bool = False) -> int:
    """Run subcommand ``name`` with ``argv``, ``program`` being the name it was run as (``connectx gate``,
    ``evaluate.py``, ...): its messages say ``PROGRAM: error: ...``. ``job`` is how the job was asked for
    (``gate``, ``--gate``), ``rerun`` the command that runs it again (``connectx match``, ``python
    evaluate.py``), ``usage`` the name its ``--help`` shows (default ``program``). ``exit_on_bad_options``: bad options raise ``SystemExit(2)`` after their line, as
    ``connectx-build`` has always done, instead of returning 2."""
    from connectx_toolkit.on_kaggle.errors import KaggleError

    parser = command_parser(name, usage or program)
    real_stdout = sys.stdout
    try:
        try:
            args = parser.parse_intermixed_args(argv)  # options may stand between the positional arguments
        except TypeError:  # a parser intermixed parsing cannot take (argparse.REMAINDER, ...)
            args = parser.parse_args(argv)
        args.program, args.job, args.rerun = program, job or name, rerun or f"{PROGRAM} {name}"
        if getattr(args, "json", False):
            sys.stdout = sys.stderr  # nothing but the JSON object may reach stdout (agents' own prints neither)
        return command_module(name).run(args, real_stdout)
    except (UsageError, KaggleError) as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        if exit_on_bad_options:
            sys.exit(2)
        return 2
    finally:
        sys.stdout = real_stdout


if __name__ == "__main__":
    sys.exit(main())
