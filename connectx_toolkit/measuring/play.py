"""How an agent is asked the benchmark's positions: as a Kaggle game asks them.

Each source game becomes one evaluator game (``GameTask``) with the agent in both seats, two processes of its
own, loaded afresh, and the source game's moves as a forced opening (``evaluation.referees.native``): each seat
is called at each of its plies with Kaggle's observation (board, mark, ``step`` = the ply, the
``remainingOverageTime`` of its bank) on Kaggle's clock, and the game's own column is played instead of its
answer, which is kept (``GameRecord.forced_answers``). The game's last position is the first free move.

Why this is fair, to stateless and stateful agents alike: every position is asked in the order a game asks it,
from the empty board, in one process per seat, so an agent that sets itself up on its first call (``obs.step``
0 or 1) or keeps a tree or a table in globals between moves is called exactly as Kaggle calls it; the only
difference from a game is that its previous answer may not be the column that was played, which is what any
opponent's reply already does to a tree (a tree must be found again from the board). Loads, the 60 s bank and
timeouts are as in a game: the first call pays the load, a move past the act timeout draws on the bank, and an
agent that runs out of bank forfeits the game. Every agent meets the same positions in the same order, so two
agents' answers pair position by position.

A forfeit ends a game: the position where it happened is the forfeit (``invalid``, ``error`` or ``timeout``
with the evaluator's reason), and the positions of that game it never reached count as that forfeit too
("not reached: …"), as Kaggle's game would have ended there. An answer at a forced ply that Kaggle would
refuse (a full column, a column off the board, anything but a plain ``int``) is ``invalid`` at that position
only: the game goes on with the game's own column, as it was never played.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from connectx_toolkit.measuring.answers import NOT_REACHED, Answer
from connectx_toolkit.measuring.benchmark import Benchmark, SourceGame
from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.record import GameRecord, GameTask
from connectx_toolkit.evaluation.scheduling.match import run_match
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
from connectx_toolkit.evaluation.settings import PlaySettings
from connectx_toolkit.outcomes import FORFEITS, Outcome

__all__ = ["answers_of", "game_task", "play_benchmark"]

STANDARD = Config()


def game_task(spec: AgentSpec, game: SourceGame, settings: PlaySettings) -> GameTask:
    """The evaluator's game that asks ``spec`` every position of ``game`` up to its last labelled one.

    The opening is the game's moves before that position (each of its plies asked, the game's column played);
    the first free move answers the last position, and the game then plays on to its end like any other
    (those moves are not scored). The seed is the match's rule (``settings.seed`` with the game id), so a run
    is repeatable and every agent gets the same seeds.
    """
    from connectx_toolkit.evaluation.scheduling.match import game_seed

    opening = game.moves[:game.last_ply]
    shape = tuple((key, getattr(STANDARD, key)) for key in ("rows", "columns", "inarow"))
    return GameTask(game.id, spec, spec, False, tuple(opening), shape, settings.act_timeout, settings.overage,
                    game_seed(settings.seed, game.id))


def answers_of(record: GameRecord, game: SourceGame, agent: str, overridden: bool | None = None) -> list[Answer]:
    """Every labelled position of ``game`` with what ``record`` says the agent answered there; ``overridden`` says
    whether its forfeit may be put down to the game's columns replacing its answers (by default whenever they did,
    ``GameRecord.forfeited_under_forced_opening``)."""
    forced = len(record.opening)
    forfeited = next((seat for seat in (0, 1) if record.outcomes[seat] in FORFEITS), -1)
    if overridden is None:
        overridden = forfeited >= 0 and record.forfeited_under_forced_opening(forfeited)
    stop_ply = len(record.moves) if forfeited >= 0 else None  # the ply at which a seat forfeited
    answers = []
    for position in game.positions:
        ply, seat = position.ply, position.ply % 2
        call = ply // 2  # the seat's calls are its plies in order
        times = record.move_times[seat]
        seconds = times[call] if call < len(times) else None
        if stop_ply is not None and ply >= stop_ply:
            kind = Outcome(record.outcomes[forfeited])
            reason = record.error[forfeited] or record.note or kind.value
            if ply > stop_ply or seat != forfeited:
                reason, seconds = f"{NOT_REACHED}: the game ended at ply {stop_ply} ({reason})", None
            answers.append(Answer(agent, position, None, seconds, kind, reason, overridden=overridden))
            continue
        if ply < forced:
            given = record.forced_answers[seat]
            column = given[call] if call < len(given) else None
            if column is None:
                answers.append(Answer(agent, position, None, seconds, Outcome.INVALID,
                                      "invalid move: not a plain int (Kaggle refuses it)"))
                continue
        else:
            column = record.moves[ply]
        if not position.legal(column):
            where = "off the board" if not 0 <= column < STANDARD.columns else "full"
            answers.append(Answer(agent, position, None, seconds, Outcome.INVALID,
                                  f"invalid move: returned {column!r}, a column {where}"))
            continue
        answers.append(Answer(agent, position, column, seconds))
    return answers


def play_benchmark(specs: Sequence[AgentSpec], benchmark: Benchmark, settings: PlaySettings, *,
                   on_game: Callable[[list[Answer]], None] | None = None,
                   overridden: Callable[[AgentSpec, GameRecord, int], bool] | None = None) -> list[list[Answer]]:
    """Ask each of ``specs`` every labelled position of ``benchmark`` (see the module docstring), all in one
    run of the evaluator's workers (``settings``' workers, sandbox, memory cap, referee and clock); ``on_game``
    sees each game's answers as it ends; ``overridden(spec, record, seat)``, when given, says whether a forfeit
    after the game's columns had replaced answers of its may be put down to them (the gate asks it again first).
    Returns each agent's answers (in the order of ``specs``) in the benchmark's order, game by game and ply by ply."""
    games = [game for game in benchmark.games if game.positions]
    offset = max((game.id for game in games), default=0) + 1  # task ids: agent index * offset + game id
    tasks = [replace(game_task(spec, game, settings), game_id=index * offset + game.id)
             for index, spec in enumerate(specs) for game in games]
    by_id = {game.id: game for game in games}
    found: dict[int, list[Answer]] = {}

    def on_record(record: GameRecord) -> None:
        index, game_id = divmod(record.game_id, offset)
        forfeited = next((seat for seat in (0, 1) if record.outcomes[seat] in FORFEITS), -1)
        excused = (None if overridden is None or forfeited < 0 else
                   record.forfeited_under_forced_opening(forfeited) and overridden(specs[index], record, forfeited))
        answers = answers_of(record, by_id[game_id], specs[index].name, excused)
        found[record.game_id] = answers
        if on_game is not None:
            on_game(answers)

    if tasks:
        run_match(specs[0], specs[0], tasks, replace(settings, replays=None), on_game=on_record)
    return [[answer for game in games for answer in found.get(index * offset + game.id, [])]
            for index in range(len(specs))]
