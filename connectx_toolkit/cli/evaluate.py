#!/usr/bin/env python3
"""``connectx-evaluate`` and ``python evaluate.py``: the old form of ``connectx``'s game commands, kept so that
every command typed before ``connectx`` still works, with the same output, exit codes and files.

The job is found from the old flags, in their old order of priority, and the arguments are rewritten into the
subcommand's form, which then runs as ``connectx`` runs it (messages still name ``evaluate.py`` or
``connectx-evaluate``):

    evaluate.py --submit FILE -m M ...       connectx submit FILE -m M ...
    evaluate.py --ladder ID ...              connectx ladder ID ...
    evaluate.py --board [AGENT] ...          connectx board [AGENT] ...
    evaluate.py --analyze-file FILE ...      connectx analyze FILE ...
    evaluate.py --league A B C ...           connectx league A B C ...
    evaluate.py --gate C --baseline B ...    connectx gate C --baseline B ...
    evaluate.py --accuracy A [B ...] ...     connectx accuracy A [B ...] ...
    evaluate.py A B ... / --resume FILE      connectx match A B ... / connectx match --resume FILE

An option of the old command that its job never read (``--results`` with ``--gate``, ``--rows`` with
``--analyze-file``, ...) is still taken and ignored, as it was; one the old command refused for that job
(``--sprt`` with ``--league``, ``--max`` without ``--ladder``, ...) is refused, now as ``connectx`` refuses an
option its subcommand does not have (one line, exit 2). ``--accuracy`` came after ``connectx``: it takes
exactly the options of ``connectx accuracy`` (none of the old command's is taken and ignored), and after
``--gate`` it is the gate's own ``--accuracy`` check.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from connectx_toolkit.cli.main import PROGRAM, execute
from connectx_toolkit.cli.options import ANALYSIS, GAMES, OUTPUT, PLAY, RULES, Parser, port, positive_id, positive_int
from connectx_toolkit.cli.program import EVALUATE, evaluate_program, rerun_command
from connectx_toolkit.errors import UsageError

__all__ = ["JOBS", "main", "route"]

# (old flag, subcommand, whether the flag takes a value that becomes the subcommand's first argument), in the
# old order of priority: with several, the first one found here is the job (and the others are refused).
JOBS = (
    ("--submit", "submit", True),
    ("--ladder", "ladder", True),
    ("--board", "board", False),
    ("--analyze-file", "analyze", True),
    ("--league", "league", False),  # its values stay where they are: the league's positional agents
    ("--gate", "gate", True),
    ("--accuracy", "accuracy", False),  # after --gate, whose own --accuracy flag it then is; its values: the agents
)
HELP = """usage: {prog} A B [options] | --resume FILE | --league A B C... | --gate CANDIDATE --baseline B |
       --submit FILE -m MESSAGE | --ladder SUBMISSION_ID | --board [AGENT] | --analyze-file FILE |
       --accuracy A [B ...]

The old form of the 'connectx' command: each job is now a subcommand of its own, with its own options
('connectx COMMAND --help'); this form still runs every job, rewritten as follows:

  {prog} A B ...                    connectx match A B ...
  {prog} --resume FILE              connectx match --resume FILE
  {prog} --league A B C ...         connectx league A B C ...
  {prog} --gate C --baseline B ...  connectx gate C --baseline B ...
  {prog} --submit FILE -m M ...     connectx submit FILE -m M ...
  {prog} --ladder ID ...            connectx ladder ID ...
  {prog} --board [AGENT] ...        connectx board [AGENT] ...
  {prog} --analyze-file FILE ...    connectx analyze FILE ...
  {prog} --accuracy A [B ...] ...   connectx accuracy A [B ...] ...

'{prog} --gate C --help' (or any job's flag with --help) shows that job's options.
"""


# What the old command refused for a job: another job's flag (the old "two commands" rules), a flag that belonged
# to one job given to another ("--max goes with --ladder"), and the few flags each job refused besides. Every
# other flag of the old command was taken by every job, read or not.
OWNED = {"--game": "board", "--port": "board", "--no-browser": "board", "-m": "submit", "--message": "submit",
         "--force": "submit", "--max": "ladder", "--dir": "ladder"}
REFUSED = {
    "match": set(),
    "league": {"--baseline", "--resume", "--sprt", "--analyze"},
    "gate": {"--resume", "--analyze"},
    "submit": {"--resume", "--analyze"},
    "ladder": {"--resume", "--analyze", "--replays", "--baseline"},
    "board": {"--resume", "--analyze"},
    "analyze": set(),
}


def old_parser() -> Parser:
    """Every flag of the old command, to read the ones a job ignored (their values are checked as before)."""
    parser = Parser(add_help=False)
    parser.add_argument("agents", nargs="*")
    for group in (GAMES, RULES, PLAY, OUTPUT, ANALYSIS):
        group.add_to(parser)
    for flag in ("--resume", "--gate", "--baseline", "--analyze-file", "--game", "--dir", "--submit", "-m", "--message"):
        parser.add_argument(flag)
    for flag in ("--analyze", "--board", "--no-browser", "--force"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("--league", nargs="+")
    parser.add_argument("--port", type=port)
    parser.add_argument("--max", type=positive_int)
    parser.add_argument("--ladder", type=positive_id("a submission id", "41234567"))
    return parser


def without_ignored(command: str, argv: list[str]) -> list[str]:
    """``argv`` without the old command's flags (and their values) that ``command`` does not take and the old
    command took and ignored for that job; their values are still checked, as they were (``UsageError``)."""
    from connectx_toolkit.cli.main import command_parser

    if command == "accuracy":  # newer than the old command: nothing of it is taken and ignored
        return argv
    takes = {flag for action in command_parser(command, PROGRAM)._actions for flag in action.option_strings}
    jobs = {flag for flag, _, _ in JOBS}
    old_parser_ = old_parser()
    old = {flag: action for action in old_parser_._actions for flag in action.option_strings}
    kept: list[str] = []
    ignored: list[str] = []
    at = 0
    while at < len(argv):
        token = argv[at]
        flag = token.split("=", 1)[0]
        if token == "--":
            kept += argv[at:]
            break
        refused = flag in jobs or flag in REFUSED[command] or OWNED.get(flag, command) != command
        if flag in old and flag not in takes and not refused:
            nargs = old[flag].nargs
            values = 0 if "=" in token else nargs if isinstance(nargs, int) else 1
            ignored += argv[at:at + 1 + values]
            at += 1 + values
            continue
        kept.append(token)
        at += 1
    if ignored:
        old_parser_.parse_args(ignored)  # a bad value of an ignored flag is still the one line it was
    return kept


def route(argv: Sequence[str]) -> tuple[str, list[str], str]:
    """The subcommand of an old command line, its arguments in the subcommand's form, and the old flag that
    named the job ("" for a match). ``--flag=value`` is understood as ``--flag value``."""
    argv = list(argv)
    end = argv.index("--") if "--" in argv else len(argv)  # after "--": arguments, never flags

    def find(flag: str) -> int | None:
        return next((i for i, token in enumerate(argv[:end]) if token == flag or token.startswith(flag + "=")), None)

    for flag, command, takes_value in JOBS:
        at = find(flag)
        if at is None:
            continue
        token = argv.pop(at)
        if "=" in token:
            argv.insert(at, token.split("=", 1)[1])
            token = flag
        if takes_value and (at >= len(argv) or argv[at].startswith("-")):
            raise UsageError(f"argument {flag}: expected one argument")
        if flag == "--ladder":  # its value is checked here, so that the line names the old flag
            try:
                positive_id("a submission id", "41234567")(argv[at])
            except argparse.ArgumentTypeError as error:
                raise UsageError(f"argument {flag}: {error}") from None
        if takes_value and at > 0:  # the value becomes the subcommand's first positional argument
            argv.insert(0, argv.pop(at))
        return command, argv, flag
    if find("--baseline") is not None:
        raise UsageError("--baseline needs --gate CANDIDATE")
    return "match", argv, ""


def main(argv: Sequence[str] | None = None) -> int:
    """``connectx-evaluate ARGS`` / ``python evaluate.py ARGS``: the exit code of the job they name."""
    argv = list(sys.argv[1:] if argv is None else argv)
    program = evaluate_program()
    try:
        command, rewritten, flag = route(argv)
    except UsageError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        return 2
    if command == "match" and any(token in ("-h", "--help") for token in argv) and \
            not any(not token.startswith("-") for token in argv):
        sys.stdout.write(HELP.format(prog=program))
        sys.exit(0)
    try:
        rewritten = without_ignored(command, rewritten)
    except UsageError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        return 2
    return execute(command, rewritten, program=program, job=flag or command, rerun=rerun_command(EVALUATE),
                   usage=f"{PROGRAM} {command}")


if __name__ == "__main__":
    sys.exit(main())
