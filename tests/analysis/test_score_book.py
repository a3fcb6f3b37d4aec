"""The opening book's exact scores (analysis/score_book.py): packed from the book's checkpoint, right by bitbully."""

from __future__ import annotations

import random

from connectx_toolkit.agents.solver_engine.outcome_table import position_of_key
from connectx_toolkit.analysis.score_book import DEFAULT_SCORE_BOOK, load_score_book
from tests.helpers import shared_oracle
from tools.pack_scores import DEFAULT_CHECKPOINT, read_scores


def test_the_packed_file_holds_the_checkpoint_scores():
    book = load_score_book()
    assert book is not None
    assert dict(book.entries()) == read_scores(DEFAULT_CHECKPOINT)
    assert book.metadata["positions"] == len(book) == 182_658


def test_a_sample_of_scores_agrees_with_bitbully():
    book = load_score_book(DEFAULT_SCORE_BOOK)
    assert book is not None
    entries = list(book.entries())
    for key, score in random.Random(47).sample(entries, 12):
        ply = next(ply for ply in range(16) if _has_ply(key, ply))
        position = position_of_key(key, ply)
        assert book.score(position) == book.score(position.mirrored()) == score
        assert max(shared_oracle().position_scores(position).values()) == score, (key, ply)


def _has_ply(key: int, ply: int) -> bool:
    try:
        position_of_key(key, ply)
    except ValueError:
        return False
    return True
