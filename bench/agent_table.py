#!/usr/bin/env python3
"""The agent table: every agent in ``agents/`` against the built-in opponents, on Kaggle's own referee.

    python bench/agent_table.py [--games 100] [--opponents random negamax] [--agents NAME ...]
                                [--rows 6 --columns 7 --inarow 4] [--workers N] [--seed 0]
                                [--out bench/out/agent_table.md] [--resume]

Every module in ``agents/`` that exposes ``agent`` plays ``--games`` games against each opponent
through the project's evaluator (``evaluation.scheduling.match.run_match``: isolated workers, Kaggle's time
rules, the opening suite played in pairs with seats swapped). One row per (agent, opponent): win,
draw and loss percentages (an invalid move, error or timeout is a loss and is also counted in its own
column) and the agent's median and maximum seconds per move as Kaggle's runner measured them.
The Markdown table goes to stdout and to ``--out``. Each finished match is appended to a JSON Lines
file next to it, which ``--resume`` reuses when the agent, opponent, games, configuration, seed and
the agent's sources (its module, the project modules it imports and the data files it loads) are
unchanged: after editing one agent, ``--resume`` replays only that agent's rows.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import json
import os
import statistics
import sys
from typing import Any, Sequence

from tqdm import tqdm

from connectx_toolkit.agents.core import Config
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
from connectx_toolkit.evaluation.scheduling.match import run_match
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.referees.record import GameRecord

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEFAULT_OUT = os.path.join("bench", "out", "agent_table.md")
AGENTS_DIR = os.path.join(ROOT, "agents")


def discover_agents() -> list[str]:
    """Names of the modules in ``agents/`` that expose a callable ``agent``, sorted."""
    names = []
    for entry in sorted(os.listdir(AGENTS_DIR)):
        name, ext = os.path.splitext(entry)
        if ext != ".py" or name.startswith("_"):
            continue
        module = importlib.import_module(f"connectx_toolkit.agents.{name}")
        if callable(getattr(module, "agent", None)):
            names.append(name)
    return names


def agent_sources(name: str) -> list[str]:
    """Files the agent's behaviour depends on: its module, every ``agents`` module it imports
    (transitively, as the submission builder inlines them) and every ``load_resource`` data file."""
    seen: dict[str, None] = {}
    todo = [f"agents.{name}"]
    while todo:
        dotted = todo.pop()
        base = os.path.join(ROOT, *dotted.split("."))
        path = base + ".py" if os.path.exists(base + ".py") else os.path.join(base, "__init__.py")
        if path in seen or not os.path.exists(path):
            continue
        seen[path] = None
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names if alias.name.split(".")[0] == "agents"]
            elif isinstance(node, ast.ImportFrom) and node.level:  # the agents import each other relatively
                package = dotted.split(".")[:-1] if not path.endswith("__init__.py") else dotted.split(".")
                base_module = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
                todo.append(base_module)
                todo += [f"{base_module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] == "agents":
                    todo.append(node.module)
                    todo += [f"{node.module}.{alias.name}" for alias in node.names]
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "load_resource"
                  and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                seen[os.path.join(AGENTS_DIR, "data", node.args[0].value)] = None
    return sorted(seen)


def sources_digest(name: str) -> str:
    digest = hashlib.sha256()
    for path in agent_sources(name):
        digest.update(path.encode())
        if os.path.exists(path):
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()[:16]


def match_row(agent: str, opponent: str, records: Sequence[GameRecord]) -> dict[str, Any]:
    """One table row, from the agent's side (index 0 of the match)."""
    outcomes = [record.outcome_of(0) for record in records]
    times = sorted(t for record in records for t in record.times_of(0))
    games = len(records)
    wins, draws = outcomes.count("win"), outcomes.count("draw")
    return {
        "agent": agent,
        "opponent": opponent,
        "games": games,
        "win": wins / games,
        "draw": draws / games,
        "loss": (games - wins - draws) / games,
        "invalid": outcomes.count("invalid"),
        "errors": outcomes.count("error"),
        "timeouts": outcomes.count("timeout"),
        "median_move_s": statistics.median(times) if times else 0.0,
        "max_move_s": times[-1] if times else 0.0,
        "distinct_games": len({tuple(record.moves) for record in records}),
    }


def markdown(rows: Sequence[dict[str, Any]], config: Config, games: int, command: str) -> str:
    """The table, and a closing line naming the agents that score best against the last opponent."""
    lines = [
        f"{games} games per row on {config.rows}x{config.columns}, {config.inarow} in a row, "
        f"openings played in pairs with seats swapped (`{command}`).",
        "",
        "| agent | opponent | win % | draw % | loss % | invalid / error / timeout | median ms/move | max ms/move |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['agent']} | {row['opponent']} | {100 * row['win']:.0f} | {100 * row['draw']:.0f} | "
            f"{100 * row['loss']:.0f} | {row['invalid']} / {row['errors']} / {row['timeouts']} | "
            f"{1000 * row['median_move_s']:.1f} | {1000 * row['max_move_s']:.0f} |"
        )
    hardest = rows[-1]["opponent"] if rows else None
    scores = {row["agent"]: row["win"] + row["draw"] / 2 for row in rows if row["opponent"] == hardest}
    if scores:
        top = max(scores.values())
        best = ", ".join(f"**{name}**" for name, score in scores.items() if score == top)
        lines += ["", f"Strongest against {hardest}: {best} (score {top:.3f})."]
    return "\n".join(lines) + "\n"


def load_done(path: str) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    entry = json.loads(line)
                    done[entry["key"]] = entry["row"]
    return done


def match_key(agent: str, opponent: str, games: int, config: Config, seed: int) -> str:
    shape = f"{config.rows}x{config.columns}x{config.inarow}"
    return f"{agent}|{opponent}|{games}|{shape}|{seed}|{sources_digest(agent)}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per agent and opponent (default 100)")
    parser.add_argument("--opponents", nargs="+", default=["random", "negamax"], help="weakest first")
    parser.add_argument("--agents", nargs="+", help="agent modules (default: every agent in agents/)")
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--columns", type=int, default=7)
    parser.add_argument("--inarow", type=int, default=4)
    parser.add_argument("--openings", help="evaluate.py's --openings (default: its suite)")
    parser.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"Markdown file (default {DEFAULT_OUT})")
    parser.add_argument("--resume", action="store_true", help="reuse matches already in the results file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.games < 1:
            raise ValueError("--games must be >= 1")
        config = Config(args.rows, args.columns, args.inarow)
        agents = args.agents or discover_agents()
        specs = {name: resolve_agent(name) for name in [*agents, *args.opponents]}
    except (ValueError, AgentSpecError) as error:
        print(f"agent_table: {error}", file=sys.stderr)
        return 2
    results_path = os.path.splitext(args.out)[0] + ".jsonl"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    done = load_done(results_path) if args.resume else {}
    if not args.resume and os.path.exists(results_path):
        os.remove(results_path)
    rows = []
    for agent in agents:
        for opponent in args.opponents:
            key = match_key(agent, opponent, args.games, config, args.seed)
            if key not in done:
                with tqdm(total=args.games, desc=f"{agent} vs {opponent}", file=sys.stderr, leave=False) as bar:
                    settings = PlaySettings(rows=config.rows, columns=config.columns, inarow=config.inarow,
                                            openings=args.openings, seed=args.seed, workers=args.workers)
                    records = run_match(specs[agent], specs[opponent], args.games, settings,
                                        on_game=lambda _: bar.update())
                done[key] = match_row(agent, opponent, records)
                with open(results_path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"key": key, "row": done[key]}) + "\n")
            row = done[key]
            print(
                f"{agent} vs {opponent}: W/D/L {row['win']:.0%}/{row['draw']:.0%}/{row['loss']:.0%}, "
                f"median {row['median_move_s']:.3f} s, max {row['max_move_s']:.3f} s",
                file=sys.stderr,
            )
            rows.append(row)
    # --resume only reuses finished matches; the table is the one the command without it produces.
    given = [arg for arg in (sys.argv[1:] if argv is None else argv) if arg != "--resume"]
    command = " ".join(["python bench/agent_table.py", *given])
    text = markdown(rows, config, args.games, command)
    write_atomically(args.out, text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
