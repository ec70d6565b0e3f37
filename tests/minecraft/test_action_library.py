"""The action catalogue, its parser and its prompt text (fast tier: no Node, no server).

The parser is fuzzed: any text either parses into a call of the catalogue whose canonical text
parses back to the same call, or raises ActionSyntaxError with a one-line message; long and
hostile inputs finish in bounded time.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minecraft.actions import (
    CATALOGUE,
    CATALOGUE_BY_NAME,
    ActionSyntaxError,
    ArgKind,
    extract_actions,
    parse_action,
    render,
    select,
)
from minecraft.actions.parse import MAX_COMMAND_CHARS
from minecraft.actions.spec import ActionSpec, Param

AGENTS = ["Alex", "Steve"]


def test_every_entry_is_described_confirmed_and_bounded() -> None:
    assert len(CATALOGUE) == len(CATALOGUE_BY_NAME)
    for spec in CATALOGUE:
        assert spec.description and spec.confirms and 0 < spec.timeout_s <= 120
    assert {"placeBlock", "digBlock", "craft", "smelt", "openContainer", "takeFromContainer", "putInContainer",
            "goTo", "follow", "attack", "useItem", "equip", "drop", "say"} <= set(CATALOGUE_BY_NAME)
    assert {s.name for s in CATALOGUE if s.query} == {"inventory", "nearbyBlocks", "entities", "containerContents"}


def test_the_node_side_implements_exactly_the_catalogue() -> None:
    import json
    import os
    import shutil
    import subprocess

    from minecraft.transport import NODE_DIR

    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        message = "needs Node 18+ and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    out = subprocess.run(["node", "-e", "const l = require('./lib/library'); console.error(JSON.stringify([...l.ACTIONS, ...l.QUERIES]))"],
                         cwd=NODE_DIR, capture_output=True, text=True, timeout=60, check=True)
    assert sorted(json.loads(out.stderr.strip().splitlines()[-1])) == sorted(CATALOGUE_BY_NAME)


@pytest.mark.parametrize(("text", "name", "args"), [
    ("placeBlock(Alex, oak_planks, 3, 5, -2)", "placeBlock", {"item": "oak_planks", "x": 3, "y": 5, "z": -2}),
    ("  digblock( steve ,1,2,3 ) ", "digBlock", {"x": 1, "y": 2, "z": 3}),
    ("craft(Alex, minecraft:Bowl)", "craft", {"item": "bowl", "count": 1}),
    ("takeFromContainer(Alex, 'beef', 1, 5, 3, 4)", "takeFromContainer",
     {"item": "beef", "x": 1, "y": 5, "z": 3, "count": 4}),
    ('say(Alex, "wait, (I) am coming")', "say", {"text": "wait, (I) am coming"}),
    ("equip(Alex, iron_helmet, HEAD)", "equip", {"item": "iron_helmet", "slot": "head"}),
    ("goTo(Alex, Steve)", "goTo", {"target": "Steve"}),
    ("inventory(Alex)", "inventory", {}),
])
def test_well_formed_commands(text: str, name: str, args: dict[str, object]) -> None:
    call = parse_action(text, AGENTS)
    assert (call.name, dict(call.args)) == (name, args)
    assert parse_action(call.text, AGENTS) == call
    request = call.bridge_args({"corner": (1, 2, 3)})
    assert request["action"] == name and request["timeout_ms"] == int(call.spec.timeout_s * 1000)
    assert request["places"] == {"corner": [1, 2, 3]}


@pytest.mark.parametrize(("text", "says"), [
    ("fly(Alex)", "unknown action 'fly'"),
    ("digBlock(Bob, 1, 2, 3)", "unknown agent 'Bob'"),
    ("digBlock(Alex, 1, 2)", "takes 3 argument(s) after the agent, got 2"),
    ("digBlock(Alex, 1, 2, 3.5)", "z must be a whole number from -30000 to 30000"),
    ("digBlock(Alex, 1, 2, 99999999999)", "z must be a whole number"),
    ("craft(Alex, bowl, 0)", "count must be a whole number from 1 to 64"),
    ("craft(Alex, Bowl!)", "must be a Minecraft id"),
    ('say(Alex, "/op Alex")', "may not be a server command"),
    ("say(Alex, hello)", "must be quoted text"),
    ("equip(Alex, iron_helmet, nose)", "must be one of hand"),
    ("digBlock(Alex, 1, 2, 3) now", "text after the command"),
    ("digBlock(Alex, 1, (2), 3)", "another '('"),
    ('say(Alex, "never closed)', "not closed"),
])
def test_refusals_say_what_was_expected_in_one_line(text: str, says: str) -> None:
    with pytest.raises(ActionSyntaxError) as error:
        parse_action(text, AGENTS)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_subset_catalogue_refuses_the_rest() -> None:
    subset = select(["digBlock", "inventory"])
    assert parse_action("digBlock(Alex, 1, 2, 3)", AGENTS, subset).name == "digBlock"
    with pytest.raises(ActionSyntaxError, match="unknown action 'placeBlock'"):
        parse_action("placeBlock(Alex, dirt, 1, 2, 3)", AGENTS, subset)
    with pytest.raises(ValueError, match="no action called teleport"):
        select(["teleport"])


def test_free_text_gives_the_first_action_per_agent_in_agent_order() -> None:
    text = ('Steve should say(Steve, "ok, go") then dig. Alex: placeBlock(Alex, dirt, 1, 5, 1) '
            "and placeBlock(Alex, dirt, 2, 5, 1); xdigBlock(Steve, 1, 2, 3) is not one; fly(Alex)")
    calls = extract_actions(text, AGENTS)
    assert [c.text for c in calls] == ["placeBlock(Alex, dirt, 1, 5, 1)", 'say(Steve, "ok, go")']


def test_prompt_text_comes_from_the_catalogue() -> None:
    text = render(["digBlock", "equip", "inventory"], agent="Alex")
    assert "- digBlock(Alex, x, y, z): " + CATALOGUE_BY_NAME["digBlock"].description in text
    assert "slot: where it goes (hand | off-hand | head | torso | legs | feet), default hand" in text
    assert text.index("Actions") < text.index("- digBlock") < text.index("Queries") < text.index("- inventory")
    assert "placeBlock" not in text
    full = render()
    assert all(spec.signature() in full for spec in CATALOGUE)


def test_an_entry_with_a_required_argument_after_an_optional_one_is_refused() -> None:
    with pytest.raises(ValueError, match="follows an optional one"):
        ActionSpec(name="bad", group="x", description="d", confirms="c", timeout_s=1,
                   params=(Param(name="a", kind=ArgKind.COUNT, doc="a", default=1), Param(name="b", kind=ArgKind.COUNT, doc="b")))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_or_is_refused_in_one_line(text: str) -> None:
    found = extract_actions(text, AGENTS)
    assert [c.agent for c in found] == [a for a in AGENTS if a in {c.agent for c in found}]
    try:
        call = parse_action(text, AGENTS)
    except ActionSyntaxError as error:
        assert "\n" not in str(error)
        return
    assert call.name in CATALOGUE_BY_NAME and parse_action(call.text, AGENTS) == call


_ARG = st.one_of(
    st.integers(-40000, 40000).map(str),
    st.sampled_from(["oak_planks", "minecraft:beef", "Steve", "hand", "HEAD", "'dirt'", '"hi, there"', "", "()", "1e9"]),
    st.text(alphabet="abc_,() \"'0123456789-", max_size=12),
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from([s.name for s in CATALOGUE]), st.sampled_from(["Alex", "steve", "Bob", ""]),
       st.lists(_ARG, max_size=7))
def test_near_miss_commands_parse_to_the_catalogue_or_are_refused(verb: str, agent: str, args: list[str]) -> None:
    text = f"{verb}({', '.join([agent, *args])})"
    try:
        call = parse_action(text, AGENTS)
    except ActionSyntaxError as error:
        assert "\n" not in str(error)
        return
    assert call.name == verb and call.agent in AGENTS
    for param, (name, value) in zip(call.spec.params, call.args, strict=True):
        assert param.name == name
        if param.kind in (ArgKind.COORD, ArgKind.COUNT):
            assert isinstance(value, int) and param.lo <= value <= param.hi
    assert parse_action(call.text, AGENTS) == call


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["(", "digBlock(", "a(" * 3, '"', "say(Alex, \"", ",", "9", "digBlock(Alex, 1, 2, 3)"]),
       st.integers(1_000, 200_000))
def test_hostile_long_inputs_finish_quickly(piece: str, size: int) -> None:
    text = piece * (size // len(piece))
    started = time.perf_counter()
    with pytest.raises(ActionSyntaxError):
        parse_action(text, AGENTS)
    extract_actions(text, AGENTS)
    assert time.perf_counter() - started < 2.0
    assert len(text) > MAX_COMMAND_CHARS


def test_the_how_to_page_shows_the_catalogue_as_it_is() -> None:
    from pathlib import Path

    from minecraft.actions.prompt import markdown_table

    page = Path(__file__).resolve().parents[2] / "docs" / "howto" / "minecraft-actions.md"
    assert markdown_table() in page.read_text(encoding="utf-8")


def test_feedback_lines_for_the_model() -> None:
    from minecraft.actions.feedback import failure_line, success_line

    call = parse_action("placeBlock(Alex, oak_planks, 3, 5, -2)", AGENTS)
    assert success_line(call, {"placed": "oak_planks", "position": [3, 5, -2]}) == \
        "placeBlock(Alex, oak_planks, 3, 5, -2) done: placed oak_planks; position 3 5 -2"
    opened = parse_action("openContainer(Steve, 1, 5, 3)", AGENTS)
    line = success_line(opened, {"container": "chest", "items": {"oak_planks": 3, "bowl": 1}})
    assert line == "openContainer(Steve, 1, 5, 3) done: container chest; items bowl 1, oak_planks 3"
    assert success_line(opened, {"items": {}}).endswith("items nothing")
    big = success_line(opened, {"items": {f"item_{k}": k for k in range(100)}})
    assert len(big) < 260 and big.endswith("...")
    assert failure_line(call, "occupied", "a stone is\nalready there") == \
        "placeBlock(Alex, oak_planks, 3, 5, -2) failed (occupied): a stone is already there"
