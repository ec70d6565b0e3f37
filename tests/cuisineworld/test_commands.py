"""The command-string parser, table-driven and property-based."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld import Code, Command, Reason, parse_command

LOCS = {"storage0", "pot0", "servingtable0"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("goto_agent0_storage0", Command("goto", 0, "storage0")),
        ("get_agent1_tuna_storage0", Command("get", 1, "storage0", "tuna")),
        ("put_agent1_pot0", Command("put", 1, "pot0")),
        ("put_agent1_rice_pot0", Command("put", 1, "pot0", "rice")),
        ("activate_agent0_pot0", Command("activate", 0, "pot0")),
        ("noop_agent1", Command("noop", 1)),
        ("  noop_agent1\n", Command("noop", 1)),
        ("get_agent0_storage0", Command("get", 0, "storage0")),
    ],
)
def test_parses(text, expected):
    assert parse_command(text, 2, LOCS) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", Code.MALFORMED), ("noop", Code.MALFORMED), ("a_b_c_d_e", Code.MALFORMED),
        ("jump_agent0_pot0", Code.UNKNOWN_VERB), ("goto_bob_pot0", Code.UNKNOWN_AGENT),
        ("goto_agent2_pot0", Code.UNKNOWN_AGENT), ("goto_agent-1_pot0", Code.UNKNOWN_AGENT),
        ("goto_agent0_oven0", Code.UNKNOWN_LOCATION), ("goto_agent0", Code.MALFORMED),
        ("activate_agent0_rice_pot0", Code.MALFORMED), ("goto_agent0_x_pot0", Code.MALFORMED),
        ("goto_agent٣_pot0", Code.UNKNOWN_AGENT),
    ],
)
def test_refuses_with_a_reason(text, code):
    result = parse_command(text, 2, LOCS)
    assert isinstance(result, Reason) and result.code is code


@settings(max_examples=300)
@given(st.text(max_size=60))
def test_never_raises_on_any_text(text):
    result = parse_command(text, 3, LOCS)
    assert isinstance(result, (Command, Reason))
    if isinstance(result, Command):
        assert 0 <= result.agent < 3


@given(st.sampled_from(["goto", "put", "activate"]), st.integers(0, 1), st.sampled_from(sorted(LOCS)))
def test_round_trips(verb, agent, loc):
    cmd = Command(verb, agent, loc)
    assert parse_command(str(cmd), 2, LOCS) == cmd
