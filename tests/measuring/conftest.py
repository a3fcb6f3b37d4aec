"""A small labelled benchmark for the accuracy tests: ten random games, their positions from ply 18 on, labelled by
the project's own scorer. Kept as tests/data/small_benchmark.json.gz (made by ``small_benchmark()`` below; every
pytest-xdist worker would otherwise solve it again, some seconds each); a test checks the file is what
``small_benchmark()`` makes."""

import os
import random

import pytest

from connectx_toolkit.measuring.benchmark import Benchmark, LabelledPosition, SourceGame, load_benchmark
from tests.helpers import DATA
from connectx_toolkit.agents.core import Config, Position

FIRST_PLY = 18


def random_game(rng: random.Random, least: int) -> list[int]:
    while True:
        position, moves = Position(Config()), []
        while True:
            column = rng.choice(position.legal_moves())
            over = position.is_winning_move(column) or position.moves + 1 == Config().cells
            position.play(column)
            moves.append(column)
            if over:
                break
        if len(moves) >= least:
            return moves


def small_benchmark(games: int = 10, seed: int = 7, first_ply: int = FIRST_PLY) -> Benchmark:
    from connectx_toolkit.analysis.scores import PositionScorer, SolveSettings

    rng = random.Random(seed)
    scorer = PositionScorer(SolveSettings(cache_path=None))
    made = []
    try:
        for game_id in range(games):
            moves = random_game(rng, first_ply + 6)
            positions = tuple(
                LabelledPosition(game_id, ply, "".join(str(c + 1) for c in moves[:ply]),
                                 tuple(None if v is None else v.score
                                       for v in scorer.solve(moves[:ply], every_column=True).columns or ()))
                for ply in range(first_ply, len(moves)))
            made.append(SourceGame(game_id, tuple(moves), ("random", "random"), positions))
    finally:
        scorer.close()
    return Benchmark(tuple(made), {"made_by": "tests/measuring/conftest.py"}, "small benchmark")


SMALL = os.path.join(DATA, "small_benchmark.json.gz")


@pytest.fixture(scope="session")
def small():
    return load_benchmark(SMALL)


@pytest.fixture(scope="session")
def small_file(small):
    return SMALL
