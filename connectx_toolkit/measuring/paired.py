"""Two agents on the same positions, compared position by position (McNemar's exact test).

Accuracy shares with overlapping intervals often hide a real difference: both agents answer the same
positions, and most positions both get right (or both wrong). Only the discordant positions, where exactly
one of them errs, carry information, and under "equally accurate" each is a fair coin. So the test is the
exact two-sided binomial on those counts (``evaluation.reports.stats.mcnemar_exact``), per set.

>>> from connectx_toolkit.measuring.answers import Answer
>>> from connectx_toolkit.measuring.benchmark import LabelledPosition
>>> positions = [LabelledPosition(g, 0, "", (-2, -1, 0, 1, 0, -1, -2)) for g in range(11)]
>>> good = [Answer("good", p, 3) for p in positions]
>>> bad = [Answer("bad", p, 2 if p.game < 10 else 3) for p in positions]
>>> print(compare(good, bad)[1]["verdict"])
good is more accurate than bad on the critical set: 10 positions only bad got wrong, 0 only good (McNemar exact p = 0.00195)
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Mapping, Sequence, cast

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import SETS
from connectx_toolkit.measuring.scoring import by_agent
from connectx_toolkit.evaluation.reports.stats import mcnemar_exact

__all__ = ["ALPHA", "compare", "comparisons"]

ALPHA = 0.05  # the level at which a verdict names the more accurate agent


def keyed(answers: Iterable[Answer]) -> dict[tuple[int, int], Answer]:
    """The answers by (game, ply): the position's identity in a benchmark."""
    found: dict[tuple[int, int], Answer] = {}
    for answer in answers:
        key = (answer.position.game, answer.position.ply)
        if key in found:
            raise ValueError(f"two answers of {answer.agent} at game {key[0]}, ply {key[1]}")
        found[key] = answer
    return found


def more_accurate(first: str, second: str, only_first: int, only_second: int, p: float,
                  alpha: float = ALPHA) -> str | None:
    """The agent that errs on fewer discordant positions, when the difference is significant at ``alpha``
    (p < alpha implies the counts differ)."""
    if p >= alpha:
        return None
    return first if only_second > only_first else second


def verdict(first: str, second: str, name: str, only_first: int, only_second: int, p: float,
            alpha: float = ALPHA) -> str:
    """The comparison in one line: who is more accurate, or that the difference is not significant."""
    counts = f"(McNemar exact p = {p:.3g})"
    better = more_accurate(first, second, only_first, only_second, p, alpha)
    if better is None:
        return (f"no significant difference between {first} and {second} on the {name} set: "
                f"{positions(only_second)} only {second} got wrong, {only_first} only {first} {counts}")
    worse = second if better == first else first
    return (f"{better} is more accurate than {worse} on the {name} set: {positions(max(only_first, only_second))} "
            f"only {worse} got wrong, {min(only_first, only_second)} only {better} {counts}")


def positions(count: int) -> str:
    return f"{count} position" if count == 1 else f"{count} positions"


def compare(first: Sequence[Answer], second: Sequence[Answer], alpha: float = ALPHA,
            names: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    """Per set, the paired comparison of two agents' answers on the positions both answered: positions paired,
    ``only_first_wrong`` (b), ``only_second_wrong`` (c), the p-value, the more accurate agent (None when the
    difference is not significant at ``alpha``) and the one-line verdict. ``names``: the two agents' names
    (default: those their answers carry)."""
    a, b = keyed(first), keyed(second)
    name_a, name_b = names or (first[0].agent if first else "first", second[0].agent if second else "second")
    shared = [key for key in a if key in b]
    results = []
    for name in SETS:
        pairs = [(a[key], b[key]) for key in shared if a[key].position.in_set(name)]
        only_first = sum(not x.accurate and y.accurate for x, y in pairs)
        only_second = sum(x.accurate and not y.accurate for x, y in pairs)
        p = mcnemar_exact(only_first, only_second)
        results.append({"first": name_a, "second": name_b, "set": name, "positions": len(pairs),
                        "unpaired": len(a) + len(b) - 2 * len(shared), "only_first_wrong": only_first,
                        "only_second_wrong": only_second, "p_value": p,
                        "more_accurate": more_accurate(name_a, name_b, only_first, only_second, p, alpha),
                        "verdict": verdict(name_a, name_b, name, only_first, only_second, p, alpha)})
    return results


def comparisons(answers: Iterable[Answer] | Mapping[str, Sequence[Answer]], alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Every pair of agents, each compared per set: ``answers`` by agent (``{name: answers}``, in that order),
    or all of them in one list (agents in the order they first answer)."""
    agents: dict[str, Sequence[Answer]] = (dict(cast(Mapping[str, Sequence[Answer]], answers))
                                           if isinstance(answers, Mapping) else dict(by_agent(answers)))
    return [entry for x, y in itertools.combinations(agents, 2)
            for entry in compare(agents[x], agents[y], alpha, (x, y))]
