"""``structify`` gives agents exactly what Kaggle's gives them: the same values, Structs and fresh copies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.utils import Struct as KaggleStruct
from kaggle_environments.utils import structify as kaggle_structify

from connectx_toolkit.evaluation.seats.observation import Struct, structify

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5))
KEYS = st.sampled_from(["board", "mark", "step", "items", "rows", "remainingOverageTime", "a", "b"])
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(KEYS, inner, max_size=5),
                    max_leaves=30)


def same_shape(ours, theirs) -> bool:
    """Equal values, a ``Struct`` wherever Kaggle has one (with the same attributes), lists where it has lists."""
    if isinstance(theirs, KaggleStruct):
        return (type(ours) is Struct and list(ours) == list(theirs) and vars(ours).keys() == vars(theirs).keys()
                and all(same_shape(ours[key], theirs[key]) for key in theirs)
                and all(same_shape(vars(ours)[key], vars(theirs)[key]) for key in vars(theirs)))
    if isinstance(theirs, list):
        return type(ours) is list and len(ours) == len(theirs) and all(map(same_shape, ours, theirs))
    return type(ours) is type(theirs) and ours == theirs


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_structify_matches_kaggles(value):
    assert same_shape(structify(value), kaggle_structify(value))


def test_an_observation_is_a_fresh_copy_with_attribute_access():
    observation = {"remainingOverageTime": 60, "step": 3, "board": [0] * 42, "mark": 1}
    given_to_agent = structify(observation)
    assert given_to_agent.board == observation["board"] and given_to_agent.mark == 1
    given_to_agent.board[0] = 2  # what an agent does to its observation never reaches the referee's
    given_to_agent.mark = 9
    assert observation["board"][0] == 0 and observation["mark"] == 1
    assert given_to_agent["mark"] == 9  # Kaggle's Struct keeps the attribute and the key together


def test_non_string_keys_fail_as_kaggles_do():
    with pytest.raises(TypeError):
        kaggle_structify({1: 2})
    with pytest.raises(TypeError):
        structify({1: 2})
