"""Label every move of every game with the mover's outcome before and after it, from exact values.

The value of each position of a game comes, cheapest first, from: the rules (a win or a loss at once, a
full board), the on-disk cache, the opening book, the table of solved ply-7 positions (the outcome
class of a position up to ply 7, see :mod:`analysis.table`), and a search under the per-position
budget in the worker pool. The book stores only the best move of a position (no score), but its move has the exact
best score, so a covered position is worth exactly minus its book child: when the game followed the
book that child is the next position of the game, solved anyway; otherwise one search one ply deeper
replaces a search of the whole position. Then, for the first move of each game that threw away a win or
a draw, every alternative is solved too, to say which moves would have kept the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, overload

from connectx_toolkit.agents.core import Position
from connectx_toolkit.agents.solver_engine.opening_book import book_move

from connectx_toolkit.analysis.cache import PositionCache
from connectx_toolkit.analysis.games import STANDARD, Game
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.values import Value, trivial_value, win_score
from connectx_toolkit.analysis.workers import Job, SolverPool
from connectx_toolkit.outcomes import Proven

__all__ = ["GameAnalysis", "MoveLabel", "label_games"]


@dataclass
class MoveLabel:
    """One move: the mover's value before it (best play from there) and after it (this move, then best play)."""

    ply: int  # stones on the board before the move
    agent: str | None  # None for an opening move
    column: int  # 0-based
    before: Value
    after: Value

    @property
    def known(self) -> bool:
        return self.before.outcome != Proven.UNKNOWN and self.after.outcome != Proven.UNKNOWN

    @property
    def loses_outcome(self) -> bool:
        """Did this move turn a win into a draw or loss, or a draw into a loss (both ends known)?"""
        return self.known and self.after.outcome.rank < self.before.outcome.rank

    @property
    def kept_outcome(self) -> bool:
        return self.known and self.after.outcome == self.before.outcome

    @property
    def exact(self) -> bool:
        return self.before.exact and self.after.exact

    @property
    def kept_exact(self) -> bool:
        return self.exact and self.after.score == self.before.score

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "agent": self.agent, "column": self.column, "before": self.before.outcome,
                "after": self.after.outcome, "score": self.after.score, "best_score": self.before.score}


@dataclass
class GameAnalysis:
    """The labels of one game, its first outcome-losing move and when the result was decided."""

    game: Game
    moves: list[MoveLabel]
    first_losing: MoveLabel | None = None
    alternatives: dict[int, Value] = field(default_factory=dict)  # column -> value for the first loser
    decided_ply: int | None = None

    @property
    def kept_by(self) -> list[int]:
        """Columns that would have kept the value the first losing move threw away."""
        if self.first_losing is None:
            return []
        wanted = self.first_losing.before.outcome
        return [c for c, v in sorted(self.alternatives.items()) if v.outcome == wanted]

    @property
    def best_columns(self) -> list[int]:
        """Columns with the exact best score at the first losing move (empty if not exact)."""
        if self.first_losing is None or self.first_losing.before.score is None:
            return []
        best = self.first_losing.before.score
        return [c for c, v in sorted(self.alternatives.items()) if v.score == best]

    def to_json(self) -> dict[str, Any]:
        first = None
        if self.first_losing is not None:
            first = dict(self.first_losing.to_json(), kept_by=self.kept_by, best_columns=self.best_columns,
                         alternatives={str(c): {"outcome": v.outcome, "score": v.score}
                                       for c, v in sorted(self.alternatives.items())})
        return {"game_id": self.game.game_id, "agents": list(self.game.agents), "outcomes": list(self.game.outcomes),
                "decided_ply": self.decided_ply, "first_losing_move": first,
                "moves": [label.to_json() for label in self.moves]}


@dataclass
class _Plan:
    values: dict[int, Value] = field(default_factory=dict)
    book_links: list[tuple[int, int, int]] = field(default_factory=list)  # (ply, key, child key)
    jobs: list[list[Job]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    table: OutcomeTable | None = None

    @overload
    def with_table(self, position: Position, found: Value) -> Value: ...
    @overload
    def with_table(self, position: Position, found: None) -> Value | None: ...

    def with_table(self, position: Position, found: Value | None) -> Value | None:
        """``found`` (None for nothing) with the outcome table's bounds on ``position`` added."""
        if found is not None and found.exact or self.table is None:
            return found
        settled = self.table.value(position)
        if settled is None:
            return found
        self.stats["from_table"] += 1
        return settled if found is None else found.merged(settled)


def label_games(games: Sequence[Game], budget: float, cache: PositionCache, workers: int, compiled: bool,
                progress: bool = False, stats: dict[str, int] | None = None,
                table: OutcomeTable | None = None) -> list[GameAnalysis]:
    """Analyse ``games`` (6x7): every move labelled, the first outcome-losing move and its alternatives.

    ``table``, if given, settles the outcome class of positions up to its ply without a search.
    ``stats``, if given, receives ``searched`` (positions sent to a search), ``timed_out`` (of those,
    not settled within the budget) and ``from_table`` (positions whose class came from ``table``).
    """
    engine = "compiled" if compiled else "python"
    stats = stats if stats is not None else {}
    for counter in ("searched", "timed_out", "from_table"):
        stats.setdefault(counter, 0)
    plan = _Plan(stats=stats, table=table)
    line_keys: list[list[int]] = []
    for game in games:
        line_keys.append(_plan_game(game, plan, cache, budget, engine))
    _solve(plan, cache, budget, workers, compiled, progress)
    analyses = [_label(game, keys, plan.values) for game, keys in zip(games, line_keys)]

    # Round two: every alternative at each game's first outcome-losing move.
    second = _Plan(values=plan.values, stats=stats, table=table)
    wanted: list[tuple[GameAnalysis, dict[int, int | Value]]] = []
    for analysis in analyses:
        if analysis.first_losing is None:
            continue
        ply = analysis.first_losing.ply
        prefix = list(analysis.game.moves[:ply])
        position = Position.from_moves(prefix, STANDARD)
        children: dict[int, int | Value] = {}
        jobs: list[Job] = []
        for column in position.legal_moves():
            child = position.played(column)
            if child.last_player_won():
                children[column] = Value.exact_score(win_score(ply), "trivial")
                continue
            key = child.canonical_key()
            children[column] = key
            if key not in second.values:
                found = second.with_table(child, trivial_value(child) or cache.get(key, budget, engine))
                if found is not None:
                    second.values[key] = found
                else:
                    jobs.append(Job(key, tuple(prefix + [column])))
        second.jobs.append(jobs)
        wanted.append((analysis, children))
    _solve(second, cache, budget, workers, compiled, progress)
    for analysis, children in wanted:
        for column, ref in children.items():
            child_value = ref if isinstance(ref, Value) else second.values[ref]
            analysis.alternatives[column] = child_value if isinstance(ref, Value) else child_value.negated()
    cache.commit()
    return analyses


def _plan_game(game: Game, plan: _Plan, cache: PositionCache, budget: float, engine: str) -> list[int]:
    """Keys of the game's positions (ply 0 .. end), values found without search, and the jobs left."""
    position = Position(STANDARD)
    keys: list[int] = []
    jobs: list[Job] = []
    for ply in range(len(game.moves) + 1):
        if ply:
            position.play(game.moves[ply - 1])
        key = position.canonical_key()
        keys.append(key)
        if position.last_player_won() or key in plan.values:
            continue
        found = trivial_value(position) or cache.get(key, budget, engine)
        if found is not None:
            plan.values[key] = plan.with_table(position, found)
            continue
        settled = plan.with_table(position, None)  # the class, for a position no search would settle
        if settled is not None:
            plan.values[key] = settled
        suggested = book_move(position)
        if suggested is not None:
            child_moves = game.moves[:ply] + (suggested,)
            child_key = position.played(suggested).canonical_key()
            plan.book_links.append((ply, key, child_key))
            if ply < len(game.moves) and suggested == game.moves[ply]:
                continue  # the next position of the game: on the list already
            if child_key not in plan.values and settled is None:
                child = position.played(suggested)
                found = trivial_value(child) or cache.get(child_key, budget, engine)
                if found is not None:
                    plan.values[child_key] = found
                else:
                    jobs.append(Job(child_key, child_moves))
            continue
        if settled is None:
            jobs.append(Job(key, game.moves[:ply]))
    jobs.reverse()  # last ply first: late positions are cheap and fill the worker's table
    plan.jobs.append(jobs)
    return keys


def _solve(plan: _Plan, cache: PositionCache, budget: float, workers: int, compiled: bool, progress: bool) -> None:
    total = sum(len(jobs) for jobs in plan.jobs)
    bar = _progress_bar(total) if progress and total else None

    def on_result(job: Job, value: Value) -> None:
        plan.values[job.key] = value
        plan.stats["searched"] += 1
        plan.stats["timed_out"] += value.timed_out
        cache.put(job.key, value, budget)
        if bar is not None:
            bar.update(1)

    try:
        if total:
            SolverPool(workers, compiled, budget).run(plan.jobs, on_result, plan.values.__contains__)
    finally:
        if bar is not None:
            bar.close()
        cache.commit()
    for ply, key, child_key in sorted(plan.book_links, reverse=True):  # deeper links first: they may chain
        if key in plan.values and plan.values[key].exact:
            continue
        child = plan.values.get(child_key)
        if child is not None:
            value = child.negated()
            value = Value(value.low, value.high, "book", value.seconds, value.timed_out)
            if key in plan.values:  # the outcome table's bounds
                value = value.merged(plan.values[key])
            plan.values[key] = value
            if value.exact:
                cache.put(key, plan.values[key], budget)


def _progress_bar(total: int) -> Any:
    from connectx_toolkit.evaluation.reports.progress import progress_bar

    return progress_bar(total, unit="position", desc="analysis")


def _label(game: Game, keys: list[int], values: dict[int, Value]) -> GameAnalysis:
    labels: list[MoveLabel] = []
    position = Position(STANDARD)
    for ply, column in enumerate(game.moves):
        before = values[keys[ply]]
        position.play(column)
        if position.last_player_won():
            after = Value.exact_score(win_score(ply), "trivial")
        elif position.is_full():
            after = Value.exact_score(0, "trivial")
        else:
            after = values[keys[ply + 1]].negated()
        if after.low > before.low:  # the position is worth at least the move that was played: a proven bound
            low = min(after.low, before.high)
            before = Value(low, before.high, before.engine, before.seconds, before.timed_out and low != before.high)
        labels.append(MoveLabel(ply, game.mover(ply), column, before, after))
    analysis = GameAnalysis(game, labels)
    analysis.first_losing = next((m for m in labels if m.agent is not None and m.loses_outcome), None)
    analysis.decided_ply = _decided_ply(game, position, labels)
    return analysis


def _decided_ply(game: Game, final: Position, labels: list[MoveLabel]) -> int | None:
    """The first ply from which every position's value was the game's final result (None after a forfeit)."""
    if final.last_player_won():
        winner = (len(game.moves) - 1) % 2
        expected: Callable[[int], Proven] = lambda ply: Proven.WIN if ply % 2 == winner else Proven.LOSS  # noqa: E731
    elif final.is_full():
        expected = lambda ply: Proven.DRAW  # noqa: E731
    else:
        return None
    decided = len(labels)
    for label in reversed(labels):
        if label.before.outcome != expected(label.ply):
            break
        decided = label.ply
    return decided
