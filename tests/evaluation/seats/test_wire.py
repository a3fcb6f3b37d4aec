"""The JSON on an agent's socket: what ``json`` writes and reads, and nothing else read as a frame."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectx_toolkit.evaluation.seats import wire

VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_encode_writes_what_json_writes_and_decode_reads_it_back(value):
    text = json.dumps(value, separators=(",", ":"))
    assert wire.encode(value) == text.encode()
    assert json.dumps(wire.decode(text)) == json.dumps(json.loads(text))  # NaN-safe comparison


@pytest.mark.parametrize("text", ["", " 1", "1 ", "[1] [2]", "{'a': 1}", "[1,", "nul", "[" * 100_000 + "]" * 100_000])
def test_anything_but_one_json_value_is_refused(text):
    with pytest.raises(ValueError):
        wire.decode(text)


def test_values_json_cannot_write_are_refused():
    with pytest.raises(TypeError):
        wire.encode({"action": object()})


def test_a_frame_is_its_bodys_length_then_the_body():
    framed = wire.frame(b'{"id":1}')
    assert framed == b"\x00\x00\x00\x08" + b'{"id":1}' and wire.body_length(framed) == 8
