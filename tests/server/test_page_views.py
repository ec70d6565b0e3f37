"""What the page is told about actions and words (`mindagent.server.views`), and that both shipped
games describe every legal command of theirs so the shared page never has to read one."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core.spec import GameSpec
from mindagent.domains import make_session
from mindagent.server.views import OTHER, PageActions, checked_static, page_actions, page_words
from minecraft.commands import Command, Verb
from minecraft.kitchen import BLOCKS, CRAFTABLE, ITEMS, MOBS, STATIONS
from minecraft.page import GROUPS as MC_GROUPS
from minecraft.page import page_actions as mc_page_actions


class Plain:
    """A session stand-in without the `PageActions` capability (only what the helper reads)."""

    domain = "plain"


class Answering(Plain):
    """A session whose `page_actions` answers whatever the test gives it."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]


def test_a_game_without_the_capability_gets_every_command_as_text() -> None:
    assert not isinstance(Plain(), PageActions)
    out = page_actions(Plain(), 0, ["a", "b"])  # type: ignore[arg-type]
    assert [(a["command"], a["label"], a["group"], a["tile"]) for a in out] == [("a", "a", OTHER, None),
                                                                                 ("b", "b", OTHER, None)]


def test_described_actions_keep_the_order_of_legal_and_undescribed_ones_fall_back() -> None:
    session = Answering([{"command": "b", "label": "bee", "group": "go", "tile": "t1"},
                         {"command": "zzz", "label": "not legal now", "group": "go"}])
    out = page_actions(session, 0, ["a", "b"])  # type: ignore[arg-type]
    assert [a["command"] for a in out] == ["a", "b"]
    assert out[1] == {"command": "b", "label": "bee", "group": "go", "tile": "t1", "item": None, "short": None}
    assert out[0]["group"] == OTHER


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12))
def test_whatever_a_game_answers_the_page_gets_one_action_per_legal_command(answer: Any) -> None:
    out = page_actions(Answering(answer), 0, ["x", "y"])  # type: ignore[arg-type]
    assert [a["command"] for a in out] == ["x", "y"]
    assert all(isinstance(a["label"], str) and isinstance(a["group"], str) for a in out)


def test_a_failing_hook_is_a_log_line_and_text_buttons(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        out = page_actions(Answering(ValueError("broken")), 0, ["x"])  # type: ignore[arg-type]
    assert out[0]["group"] == OTHER and "page_actions" in caplog.text


def test_words_fall_back_to_neutral_defaults() -> None:
    assert page_words({})["director"] == "director"
    assert page_words({"page": {"words": {"director": "bandleader", "n": 3}}}) == {"director": "bandleader"}


@pytest.mark.asyncio
@pytest.mark.parametrize("level", ["level_0", "level_3", "pass_sushi"])
async def test_the_kitchen_describes_every_legal_command_with_its_tile(level: str) -> None:
    session = make_session(GameSpec("cuisineworld", level, 2, 1.0, 0, "reference", None))
    await session.reset(seed=0)
    static, view = session.static_view(), session.view()
    groups = {g["id"]: g for g in static["page"]["groups"]}
    tiles = {t["id"] for t in view["tiles"]}
    assert tiles == {loc["name"] for loc in view["locations"]}
    for _ in range(6):  # a few steps in, the agents hold things and stand elsewhere
        legal = session.legal_commands(0)
        actions = page_actions(session, 0, legal)
        assert [a["command"] for a in actions] == legal
        for a in actions:
            assert a["group"] in groups, a
            assert a["tile"] is None or a["tile"] in tiles, a
            assert (a["item"] is not None) <= groups[a["group"]]["many"], a
        await session.step([legal[-1], session.idle_command(1)])
    keys = [g["key"] for g in groups.values()]
    assert len(set(keys)) == len(keys)


def test_minecraft_describes_every_command_it_can_be_given() -> None:
    agents = ["Alex", "Steve"]
    texts = [Command(Verb.NOOP, "Alex").text, Command(Verb.TAKE_OUT_FURNACE, "Alex").text]
    texts += [Command(Verb.GOTO, "Alex", t).text for t in (*STATIONS, *MOBS, *BLOCKS)]
    texts += [Command(Verb.KILL_MOB, "Alex", m).text for m in MOBS]
    texts += [Command(Verb.MINE_BLOCK, "Alex", b).text for b in BLOCKS]
    for verb in (Verb.PUT_FUEL_FURNACE, Verb.PUT_ITEM_FURNACE, Verb.PUT_IN_CHEST):
        texts += [Command(verb, "Alex", item).text for item in ITEMS]
    texts += [Command(Verb.CRAFT, "Alex", item).text for item in CRAFTABLE]
    described = mc_page_actions(agents, 0, texts)
    assert [a["command"] for a in described] == texts
    groups = {g["id"] for g in MC_GROUPS}
    assert all(a["group"] in groups and a["label"] for a in described)
    many = {g["id"] for g in MC_GROUPS if g["many"]}
    items = [(a["tile"], a["item"]) for a in described if a["group"] in many]
    assert len(items) == len(set(items)), "two buttons of one tile would carry the same item"


# ------------------------------------------------------------------ a declared sprite grid
GRID = {"cell": 15, "cols": 2, "rows": 1, "sheets": {"t": {"image": "t.png", "frames": {"floor": [0, 0, 15, 15]}}},
        "terrain": {"sheet": "t", "rows": [["floor", "floor"]]}}


def test_a_well_formed_grid_reaches_the_page_unchanged() -> None:
    static = {"domain": "g", "page": {"words": {"board": "Yard"}, "grid": GRID}}
    assert checked_static(static) is static


@pytest.mark.parametrize("broken", [
    {**GRID, "cell": 0},
    {**GRID, "sheets": {"t": {"image": "../t.png", "frames": {}}}},
    {**GRID, "sheets": {"t": {"image": "t.png", "frames": {"floor": [0, 0, 15]}}}},
    {**GRID, "terrain": {"sheet": "elsewhere", "rows": []}},
    {k: v for k, v in GRID.items() if k != "terrain"},
    "a grid",
])
def test_a_malformed_grid_is_left_out_and_the_page_keeps_its_tiles(broken: Any, caplog: pytest.LogCaptureFixture) -> None:
    static = {"domain": "g", "page": {"words": {"board": "Yard"}, "grid": broken}}
    with caplog.at_level(logging.WARNING):
        checked = checked_static(static)
    assert checked["page"] == {"words": {"board": "Yard"}} and "page.grid is unusable" in caplog.text
    assert static["page"]["grid"] == broken  # the game's own dict is not changed


def test_the_overcooked_grid_passes(require: Any) -> None:
    require("overcooked", "pip install -e '.[overcooked]'")
    static = make_session(GameSpec("overcooked", "coordination_ring", 2)).static_view()
    assert checked_static(static)["page"]["grid"]["cols"] == 5
