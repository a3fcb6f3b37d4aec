"""The shipped benchmark of labelled positions: it loads, its metadata tells the truth about it, every position is
a real, legal, unfinished position of its game with consistent labels, a bad file is one line naming it, and the
labels agree with bitbully (an independent perfect solver, not the project's code) on a sample of positions."""

from __future__ import annotations

import gzip
import json
import os
import random
import time

import pytest

from connectx_toolkit.measuring.benchmark import (BLUNDERS, CRITICAL, DEFAULT_BENCHMARK, PHASES, SETS, Benchmark,
                                                 BenchmarkError, LabelledPosition, SourceGame, load_benchmark,
                                                 outcome_of, phase_of)
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.analysis.values import score_range
from tests.helpers import REPO

STANDARD = Config()
PHASE_NAMES = [name for name, _, _ in PHASES]
# The independent check: 110 positions of each phase, half of them critical, in the default run (bitbully with its
# book: about 2 s); every position of the benchmark under ``-m slow``. Figures in docs/accuracy.md.
PER_PHASE = 110


@pytest.fixture(scope="module")
def shipped() -> Benchmark:
    return load_benchmark(DEFAULT_BENCHMARK)


def test_the_shipped_benchmark_loads_with_enough_positions_in_every_phase_and_set(shipped):
    positions = shipped.positions
    assert 2000 <= len(positions) <= 3500 and 100 <= len(shipped.games) <= 150
    assert len(shipped.of_set(CRITICAL)) >= 600
    for phase in PHASE_NAMES:
        assert sum(1 for p in positions if p.phase == phase) >= 250, phase
        assert any(p.phase == phase for p in shipped.of_set(CRITICAL)), phase
    assert {str(p.outcome) for p in positions} == {"win", "draw", "loss"}


def test_its_metadata_counts_are_the_positions_it_holds(shipped):
    metadata = shipped.metadata
    assert metadata["games"] == len(shipped.games)
    for name in SETS:
        chosen = shipped.of_set(name)
        assert metadata["positions"][name]["total"] == len(chosen)
        for phase in PHASE_NAMES:
            assert metadata["positions"][name][phase] == sum(1 for p in chosen if p.phase == phase), (name, phase)
    # every position once (a board asked again in a later game is scored at its first game only)
    boards = [tuple(Position.from_moves([int(char) - 1 for char in p.moves], STANDARD).to_board())
              for p in shipped.positions]
    assert len(set(boards)) == len(boards) and metadata["repeated_positions_dropped"] > 0
    left_out = metadata["left_out"]
    assert left_out["total"] == sum(left_out["by_ply"].values()) and all(int(ply) < 8 for ply in left_out["by_ply"])
    assert metadata["made_by"].startswith("python tools/make_accuracy_benchmark.py")
    # every ply of every game (the last position before its final move included) is kept, left out (before
    # ply 8) or a board kept from an earlier game
    assert sum(len(game.moves) for game in shipped.games) == (
        len(shipped.positions) + left_out["total"] + metadata["repeated_positions_dropped"])
    earlier: set[tuple[int, ...]] = set()
    for game in shipped.games:
        kept = {p.ply for p in game.positions}
        boards = {ply: tuple(Position.from_moves(game.moves[:ply], STANDARD).to_board()) for ply in range(len(game.moves))}
        assert all(ply < 8 or boards[ply] in earlier for ply in boards if ply not in kept), game.id
        earlier |= {boards[ply] for ply in kept}
    agents = set(metadata["agents"])
    assert {name for game in shipped.games for name in game.agents} <= agents
    assert {"solver", "random", "negamax"} <= {name for game in shipped.games for name in game.agents}


def test_every_position_replays_legally_from_its_games_moves_with_consistent_labels(shipped):
    ids = [game.id for game in shipped.games]
    assert len(ids) == len(set(ids))
    assert len({game.moves for game in shipped.games}) == len(ids)  # no game twice
    for game in shipped.games:
        text = "".join(str(column + 1) for column in game.moves)
        Position.from_moves(game.moves, STANDARD)  # the whole game is legal
        plies = [p.ply for p in game.positions]
        assert plies == sorted(set(plies)) and game.last_ply < len(game.moves)
        for position in game.positions:
            assert position.game == game.id and position.moves == text[:position.ply]
            board = Position.from_moves(game.moves[:position.ply], STANDARD)
            assert not board.last_player_won() and not board.is_full()
            assert len(position.scores) == STANDARD.columns
            legal = set(board.legal_moves())
            assert {c for c, s in enumerate(position.scores) if s is not None} == legal, position
            low, high = score_range(position.ply)
            for column in legal:
                score = position.scores[column]
                assert type(score) is int and low <= score <= high, (position, column)
                if board.is_winning_move(column):
                    assert score == (STANDARD.cells + 1 - position.ply) // 2, (position, column)
            classes = {outcome_of(position.scores[c]) for c in legal}
            assert position.critical == (len(classes) > 1), position
            assert position.phase == phase_of(position.ply)
            assert all(position.verdict(c) in ("best", "kept", *BLUNDERS) for c in legal)


def test_a_save_and_a_load_give_back_the_same_benchmark(shipped, tmp_path):
    part = shipped.only([game.id for game in shipped.games[:5]])
    for name in ("part.json.gz", "part.json"):
        path = str(tmp_path / name)
        part.save(path)
        again = load_benchmark(path)
        assert again.games == part.games and again.metadata == part.metadata and again.source == path
    with open(str(tmp_path / "part.json.gz"), "rb") as handle:
        assert handle.read(2) == b"\x1f\x8b"
    made = Benchmark((SourceGame(3, (3, 3), ("a", "b"), (LabelledPosition(3, 1, "4", (-3, -2, -2, -1, -2, -2, -3)),)),),
                     {"note": "x"})
    made.save(str(tmp_path / "made.json.gz"))
    assert load_benchmark(str(tmp_path / "made.json.gz")).games == made.games


@pytest.mark.parametrize("name, content", [
    ("garbage.json.gz", b"\x1f\x8b\x08\x00 not gzip at all"),
    ("text.json", b"this is not JSON"),
    ("other.json", json.dumps({"format": "something else", "games": []}).encode()),
    ("list.json", b"[1, 2, 3]"),
    ("bad-game.json", json.dumps({"format": "connectx accuracy benchmark", "games": [{"id": 0}]}).encode()),
    ("bad-moves.json.gz", gzip.compress(json.dumps({"format": "connectx accuracy benchmark", "games": [
        {"id": 0, "moves": "44x", "positions": {"0": [1, 2, 3, 4, 5, 6, 7]}}]}).encode(), mtime=0)),
    # mtime=0: the same bytes in every pytest-xdist worker (they are the test's id, which every worker must agree on)
    ("cut.json.gz", gzip.compress(json.dumps({"format": "connectx accuracy benchmark", "games": []}).encode(),
                                  mtime=0)[:20]),
    ("list-positions.json", json.dumps({"format": "connectx accuracy benchmark", "games": [
        {"id": 0, "moves": "44", "positions": [[1, 2, 3, 4, 5, 6, 7]]}]}).encode()),
    ("past-the-end.json", json.dumps({"format": "connectx accuracy benchmark", "games": [
        {"id": 0, "moves": "44", "positions": {"2": [1, 2, 3, 4, 5, 6, 7]}}]}).encode()),
    ("three-columns.json", json.dumps({"format": "connectx accuracy benchmark", "games": [
        {"id": 0, "moves": "44", "positions": {"1": [1, 2, 3]}}]}).encode()),
    ("column-nine.json", json.dumps({"format": "connectx accuracy benchmark", "games": [
        {"id": 0, "moves": "49", "positions": {"0": [1, 2, 3, 4, 5, 6, 7]}}]}).encode()),
    ("missing.json.gz", None),
])
def test_a_file_that_is_not_a_benchmark_is_one_line_naming_it(tmp_path, name, content):
    path = str(tmp_path / name)
    if content is not None:
        with open(path, "wb") as handle:
            handle.write(content)
    with pytest.raises(BenchmarkError) as caught:
        load_benchmark(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message


def _sample(benchmark: Benchmark, per_phase: int) -> list[LabelledPosition]:
    """``per_phase`` positions of each phase, half of them critical, drawn with a fixed seed."""
    rng = random.Random(48)
    chosen = []
    for phase in PHASE_NAMES:
        of_phase = [p for p in benchmark.positions if p.phase == phase]
        critical = [p for p in of_phase if p.critical]
        others = [p for p in of_phase if not p.critical]
        half = min(per_phase // 2, len(critical))
        chosen += rng.sample(critical, half) + rng.sample(others, min(per_phase - half, len(others)))
    return chosen


def _disagreements(positions: list[LabelledPosition]) -> list[str]:
    """The positions whose labels differ from bitbully's scores in any column, each with both."""
    pytest.importorskip("bitbully")
    from tools.oracle import Oracle

    oracle = Oracle()
    started = time.monotonic()
    wrong = []
    for position in positions:
        truth = tuple(oracle.column_scores([int(char) - 1 for char in position.moves]))
        if truth != position.scores:
            wrong.append(f"{position.moves or '(empty)'}: {position.scores} != bitbully {truth}")
    print(f"{len(positions)} positions checked against bitbully in {time.monotonic() - started:.1f} s")
    return wrong


def test_a_sample_of_330_positions_over_the_phases_agrees_with_bitbully_column_by_column(shipped):
    sample = _sample(shipped, PER_PHASE)
    assert len(sample) == 3 * PER_PHASE >= 300 and sum(p.critical for p in sample) >= len(sample) // 2
    assert {p.phase for p in sample} == set(PHASE_NAMES) and min(p.ply for p in sample) < 8
    assert _disagreements(sample) == []


@pytest.mark.slow
def test_every_position_of_the_benchmark_agrees_with_bitbully_column_by_column(shipped):
    assert _disagreements(shipped.positions) == []


def test_the_check_against_bitbully_catches_a_wrong_label(shipped):
    position = next(p for p in shipped.positions if p.critical and p.ply >= 12)
    column = position.kept_columns[0]
    scores = list(position.scores)
    scores[column] = -scores[column] if scores[column] else 1  # the class of one column turned
    wrong = LabelledPosition(position.game, position.ply, position.moves, tuple(scores))
    assert len(_disagreements([position, wrong])) == 1


def test_the_default_benchmark_is_the_packaged_file_and_small():
    assert DEFAULT_BENCHMARK == os.path.join(REPO, "connectx_toolkit", "measuring", "data", "benchmark.json.gz")
    assert os.path.getsize(DEFAULT_BENCHMARK) < 200_000  # package data every install carries


def test_the_small_test_benchmark_is_what_its_maker_makes():
    """tests/data/small_benchmark.json.gz is kept so that the tests do not solve it again in every worker; it must
    still be exactly what ``small_benchmark()`` makes with the project's scorer (labels, games, plies)."""
    from tests.measuring.conftest import SMALL, small_benchmark

    kept, made = load_benchmark(SMALL), small_benchmark()
    assert kept.positions == made.positions and [g.moves for g in kept.games] == [g.moves for g in made.games]
