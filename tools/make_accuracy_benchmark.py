"""Build the shipped accuracy benchmark (``connectx_toolkit/measuring/data/benchmark.json.gz``): real games, every
position labelled with the exact score of every legal column by the project's own solver.

Three steps, each resumable from ``--work`` (a folder of JSON Lines checkpoints; a killed run started again
with the same arguments goes on where it stopped):

1. **Play.** ``--games`` games between the built-in agents and Kaggle's ``random`` and ``negamax``, on the
   toolkit's own evaluator (``evaluation.scheduling.match.run_match`` with explicit ``GameTask``s, the
   native referee, two worker processes). The pairs (:data:`PAIRS`) mix weak against strong, strong against
   strong and weak against weak, so the positions range from the chaotic to the subtle; ``solver`` plays in
   two games of five; strong against strong is weighted twice, as its games are the long ones that fill the
   late phase. Each game starts from its own seeded random opening of 0-3 plies (forced through both
   seats, as the evaluator forces an opening), seats alternating. Half the games where ``solver`` plays get
   at most the plies before its first move, so it plays its opening book from the start: the book's
   positions are the early positions the labels can afford (see step 2); the other half leave the book at
   once, for variety. A game whose moves repeat an earlier game's (a deterministic pair from the same
   opening) is dropped, and so is a position already kept from an earlier game (the same board, however
   reached: the empty board begins every game), each counted in the metadata. Every position is kept once
   so that none weighs more than another in the intervals; the agent is still asked every ply of a game
   (``measuring.play``), only the kept ones are scored. The clock is shorter than Kaggle's (``--act-timeout``
   0.5 s: the searching agents think 0.1-0.2 s a move instead of 0.4-0.8 s): the games only have to be
   *played* by agents of different strengths; their positions' labels are exact whatever the clock, and
   Kaggle's 2 s would make the play step about four times longer (48 s measured at 0.5 s) for nothing.
   Each finished game is one line of ``games.jsonl``.
2. **Label.** Every position of a game, ply 0 up to the last ply before its final move, gets the exact score
   of every legal column (``analysis.scores.PositionScorer(...).solve(moves, every_column=True)``, the
   compiled solver, an in-memory cache). Positions of fewer than :data:`SEARCH_FROM` stones whose columns
   are not all settled without a search (the rules, the score book of the solver's opening book, one ply of
   look-ahead into it) are left out: each would take minutes of search. Their count by ply goes into the
   metadata. ``--jobs`` processes (default 2, one a core) label disjoint games (game id modulo jobs), each
   appending one line per finished game to ``labels-J.jsonl``.
3. **Write** the benchmark through ``Benchmark.save`` (gzip JSON, atomic) with metadata: the command, the
   seed, the agents and pairs, the openings, the clock, the counts of positions by phase and set, and what
   was left out.

Deterministic given ``--seed`` as far as the agents allow: the schedule, openings and seats are, and so are
the agents' random choices (the evaluator seeds each agent's process from the game's seed); the agents that
search against the clock (``alphabeta``, ``bitboard_minimax``, ``solver`` off its book) may reach another
depth and play another move on a busier machine. The labels of whatever positions arise are exact either way.

    nohup nice python tools/make_accuracy_benchmark.py --games 130 --work /tmp/bench48 &

How long (measured on this 2-core machine, shared): see docs/accuracy.md's "The benchmark".
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shlex
import sys
import time
from collections import Counter
from typing import Any

from connectx_toolkit.measuring.benchmark import (DEFAULT_BENCHMARK, PHASES, SETS, Benchmark, LabelledPosition,
                                                 SourceGame)
from connectx_toolkit.agents.core import Config, Position

STANDARD = Config()
SEARCH_FROM = 8  # positions with fewer stones are kept only when settled without a search
WEAK, MIDDLE, STRONG = "weak", "middle", "strong"
STRENGTH = {"random": WEAK, "greedy": WEAK, "td_lambda": WEAK, "threats": WEAK,
            "minimax": MIDDLE, "negamax": MIDDLE,
            "bitboard_minimax": STRONG, "alphabeta": STRONG, "solver": STRONG}
# (agent, agent, weight): game i plays pair i modulo the weighted cycle, seats alternating
PAIRS = (
    ("solver", "random", 1), ("solver", "greedy", 1), ("solver", "negamax", 1), ("solver", "td_lambda", 1),
    ("solver", "alphabeta", 2), ("solver", "bitboard_minimax", 2), ("solver", "threats", 1),
    ("alphabeta", "bitboard_minimax", 2), ("alphabeta", "negamax", 1), ("bitboard_minimax", "minimax", 1),
    ("alphabeta", "threats", 1), ("bitboard_minimax", "td_lambda", 1), ("alphabeta", "random", 1),
    ("minimax", "negamax", 1), ("minimax", "threats", 1), ("negamax", "greedy", 1),
    ("greedy", "td_lambda", 1), ("threats", "td_lambda", 1), ("random", "greedy", 1), ("random", "negamax", 1),
    ("random", "random", 1),
)
MAX_OPENING = 3


def pair_kind(a: str, b: str) -> str:
    return "-vs-".join(sorted((STRENGTH[a], STRENGTH[b]), key=(WEAK, MIDDLE, STRONG).index))


def plan(games: int, seed: int) -> list[dict[str, Any]]:
    """The games to play: id, the two agents in seat order, the forced opening (0-based columns)."""
    cycle = [(a, b) for a, b, weight in PAIRS for _ in range(weight)]
    rng = random.Random(f"accuracy-benchmark:{seed}")
    planned = []
    for game in range(games):
        a, b = cycle[game % len(cycle)]
        seats = (a, b) if (game // len(cycle)) % 2 == 0 else (b, a)
        plies = rng.randint(0, MAX_OPENING)
        if "solver" in seats and rng.random() < 0.5:  # the solver plays its book: no forced move of its own
            plies = min(plies, seats.index("solver"))
        opening: list[int] = []
        position = Position.from_moves((), STANDARD)
        while len(opening) < plies:
            column = rng.choice(position.legal_moves())
            opening.append(column)
            position = position.played(column)
        planned.append({"id": game, "seats": list(seats), "opening": opening})
    return planned


def read_lines(path: str) -> list[dict[str, Any]]:
    """The complete JSON lines of a checkpoint (a line cut short by a kill is ignored and rewritten)."""
    if not os.path.exists(path):
        return []
    found = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
    return found


def append_line(path: str, entry: dict[str, Any]) -> None:
    """One checkpoint line, flushed to the disk before the next game: a kill loses at most the game in hand."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def play(planned: list[dict[str, Any]], work: str, seed: int, act_timeout: float, overage: float,
         workers: int) -> None:
    """Play the planned games not yet in ``games.jsonl``, appending each as it ends."""
    from connectx_toolkit.evaluation.referees.record import GameTask
    from connectx_toolkit.evaluation.scheduling.match import game_seed, run_match
    from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

    path = os.path.join(work, "games.jsonl")
    done = {entry["id"] for entry in read_lines(path)}
    todo = [game for game in planned if game["id"] not in done]
    if not todo:
        return
    settings = PlaySettings(workers=workers, act_timeout=act_timeout, overage=overage)
    specs = {name: resolve_agent(name) for name in sorted({name for game in todo for name in game["seats"]})}
    shape = tuple(STANDARD.as_dict().items())
    tasks = [GameTask(game_id=game["id"], spec_a=specs[game["seats"][0]], spec_b=specs[game["seats"][1]],
                      swapped=False, opening=tuple(game["opening"]), config=shape, act_timeout=act_timeout,
                      overage=overage, seed=game_seed(seed, game["id"]))
             for game in todo]
    started = time.monotonic()

    def on_game(record: Any) -> None:
        append_line(path, {"id": record.game_id, "seats": record.agents, "opening": list(record.opening),
                           "moves": list(record.moves), "outcomes": [str(o) for o in record.outcomes],
                           "error": record.error})
        done.add(record.game_id)
        print(f"played {len(done)}/{len(planned)} games ({time.monotonic() - started:.0f} s)", file=sys.stderr,
              flush=True)

    run_match(tasks[0].spec_a, tasks[0].spec_b, tasks, settings, on_game=on_game)


def label_game(entry: dict[str, Any]) -> dict[str, Any]:
    """Every position of one game labelled, or left out (the plies of those), with the seconds it took."""
    from connectx_toolkit.analysis.scores import PositionScorer, SolveSettings

    scorer = _scorer(PositionScorer, SolveSettings)
    moves = [int(column) for column in entry["moves"]]
    labelled: dict[str, list[int | None]] = {}
    left_out: list[int] = []
    started = time.monotonic()
    for ply in range(len(moves)):
        prefix = moves[:ply]
        if ply < SEARCH_FROM and not settled_without_search(scorer, prefix):
            left_out.append(ply)
            continue
        columns = scorer.solve(prefix, every_column=True).columns
        assert columns is not None
        if not all(value is None or value.exact for value in columns):
            raise RuntimeError(f"game {entry['id']} ply {ply}: a column's score is not exact")
        labelled[str(ply)] = [None if value is None else value.score for value in columns]
    return {"id": entry["id"], "positions": labelled, "left_out": left_out,
            "seconds": round(time.monotonic() - started, 2)}


_SCORERS: list[Any] = []


def _scorer(scorer_class: Any, settings_class: Any) -> Any:
    """One scorer a process, kept between games: its in-memory cache of solved positions carries over (a
    game's positions share their children's children). No cache file: nothing outside the checkpoint."""
    if not _SCORERS:
        _SCORERS.append(scorer_class(settings_class(cache_path=None)))
    return _SCORERS[0]


def settled_without_search(scorer: Any, moves: list[int]) -> bool:
    """Is every legal column's score known without a search: a win at once, or a child the rules, the score
    book or one ply of look-ahead into it settle? (The scorer's own first step, ``_settled``, before it
    would search.)"""
    position = Position.from_moves(tuple(moves), STANDARD)
    return all(position.is_winning_move(column) or scorer._settled(position.played(column)).exact
               for column in position.legal_moves())


def label_share(job: int, jobs: int, games: list[dict[str, Any]], work: str) -> int:
    """Label the games of this job (id modulo jobs) not yet in ``labels-JOB.jsonl``; returns how many."""
    path = os.path.join(work, f"labels-{job}.jsonl")
    done = {entry["id"] for entry in read_lines(path)}
    count = 0
    for entry in games:
        if entry["id"] % jobs != job or entry["id"] in done:
            continue
        append_line(path, label_game(entry))
        count += 1
        print(f"labelled game {entry['id']} (job {job})", file=sys.stderr, flush=True)
    return count


def label(work: str, jobs: int) -> None:
    games = sorted(read_lines(os.path.join(work, "games.jsonl")), key=lambda entry: entry["id"])
    if jobs == 1:
        label_share(0, 1, games, work)
        return
    # plain processes, not a pool's daemons: each scorer starts a process of its own for every search
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=label_share, args=(job, jobs, games, work)) for job in range(jobs)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    failed = [job for job, process in enumerate(processes) if process.exitcode != 0]
    if failed:
        raise RuntimeError(f"labelling job(s) {failed} failed: run again to resume")


def assemble(planned: list[dict[str, Any]], work: str, jobs: int,
             metadata: dict[str, Any]) -> tuple[Benchmark, float]:
    """The benchmark of the played and labelled games, in id order, with its counts in the metadata, and the
    seconds the labelling took (summed over the games)."""
    games = {entry["id"]: entry for entry in read_lines(os.path.join(work, "games.jsonl"))}
    labels = {entry["id"]: entry for job in range(jobs)
              for entry in read_lines(os.path.join(work, f"labels-{job}.jsonl"))}
    missing = sorted(game["id"] for game in planned if game["id"] not in games or game["id"] not in labels)
    if missing:
        raise RuntimeError(f"games not played or labelled yet: {missing[:10]}")
    built, left_out, seconds, seen, repeats = [], Counter(), 0.0, set(), 0
    boards: set[tuple[int, ...]] = set()
    repeated_positions = 0
    for game in planned:
        entry, label_entry = games[game["id"]], labels[game["id"]]
        moves = tuple(int(column) for column in entry["moves"])
        if moves in seen:
            repeats += 1
            continue
        seen.add(moves)
        text = "".join(str(column + 1) for column in moves)
        positions, repeated = [], 0
        for ply, scores in sorted(label_entry["positions"].items(), key=lambda item: int(item[0])):
            board = tuple(Position.from_moves(moves[:int(ply)], STANDARD).to_board())
            if board in boards:  # asked again (the empty board in every game): scored once, at its first game
                repeated += 1
                continue
            boards.add(board)
            positions.append(LabelledPosition(game["id"], int(ply), text[:int(ply)], tuple(scores)))
        seconds += label_entry["seconds"]
        if positions:  # (a game all of whose positions are repeats is dropped whole, and not counted)
            left_out.update(label_entry["left_out"])
            repeated_positions += repeated
            built.append(SourceGame(game["id"], moves, tuple(entry["seats"]), tuple(positions)))
    benchmark = Benchmark(tuple(built))
    counts = {name: {phase: sum(1 for p in benchmark.of_set(name) if p.phase == phase) for phase, _, _ in PHASES}
              for name in SETS}
    for name in SETS:
        counts[name]["total"] = len(benchmark.of_set(name))
    outcomes = Counter(str(p.outcome) for p in benchmark.positions)
    pairs = Counter(pair_kind(*game.agents) for game in built)
    metadata = dict(metadata, games=len(built), repeated_games_dropped=repeats,
                    repeated_positions_dropped=repeated_positions, positions=counts, outcomes=dict(sorted(outcomes.items())),
                    pair_kinds=dict(sorted(pairs.items())),
                    left_out={"rule": f"positions of fewer than {SEARCH_FROM} stones not settled without a search",
                              "total": sum(left_out.values()),
                              "by_ply": {str(ply): left_out[ply] for ply in sorted(left_out)}},
                    )
    return Benchmark(benchmark.games, metadata), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=130, help="games to play (default 130)")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--work", required=True, help="folder of the resumable checkpoints")
    parser.add_argument("--out", default=DEFAULT_BENCHMARK, help="the benchmark file (default: the shipped one)")
    parser.add_argument("--jobs", type=int, default=2, help="processes that play and label (default 2)")
    parser.add_argument("--act-timeout", type=float, default=0.5)
    parser.add_argument("--overage", type=float, default=10.0)
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1 or args.act_timeout <= 0 or args.overage < 0:
        print("make_accuracy_benchmark: --games and --jobs must be >= 1, --act-timeout > 0, --overage >= 0",
              file=sys.stderr)
        return 2
    try:
        os.makedirs(args.work, exist_ok=True)
    except OSError as error:
        print(f"make_accuracy_benchmark: {args.work}: cannot make the folder ({error.strerror})", file=sys.stderr)
        return 2
    planned = plan(args.games, args.seed)
    started = time.monotonic()
    play(planned, args.work, args.seed, args.act_timeout, args.overage, args.jobs)
    played = time.monotonic()
    label(args.work, args.jobs)
    labelled = time.monotonic()
    metadata = {
        "made_by": "python tools/make_accuracy_benchmark.py " + shlex.join(
            arg for arg in (argv if argv is not None else sys.argv[1:])),
        "seed": args.seed, "board": "6x7, four in a row", "labels": "exact Pons scores, analysis.scores "
        "(compiled solver, score book)",
        "agents": {name: STRENGTH[name] for name in sorted(STRENGTH)},
        "pairs": [[a, b, weight] for a, b, weight in PAIRS],  # weight: games per cycle of the schedule
        "openings": f"0-{MAX_OPENING} seeded random plies per game, forced through both seats; in half the "
                    "solver's games none of the solver's own plies (it plays its book from the start)",
        "clock": {"act_timeout": args.act_timeout, "overage": args.overage},
    }
    benchmark, seconds = assemble(planned, args.work, args.jobs, metadata)
    benchmark.save(args.out)
    print(f"played in {played - started:.0f} s, labelled in {labelled - played:.0f} s "
          f"({seconds:.0f} s of labelling summed over the jobs)", file=sys.stderr)
    print(f"wrote {args.out}: {len(benchmark.games)} games, {json.dumps(benchmark.metadata['positions'])}, "
          f"left out {benchmark.metadata['left_out']['total']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
