"""Overcooked's page description: a sprite grid whose every frame exists in the package's sheets,
keys that map to the person's own primitive commands, and pots and counters in words."""

from __future__ import annotations

import asyncio
import random

import pytest

from mindagent.core.capabilities import PageActions, PageAssets
from mindagent.core.conformance_capabilities import page_asset_problems
from mindagent.core.spec import GameSpec
from mindagent.server.views import OTHER, page_actions
from overcooked_game.domain import DOMAIN
from overcooked_game.page import sheets
from overcooked_game.session import OvercookedSession


def _session(level: str) -> OvercookedSession:
    session = DOMAIN.make_session(GameSpec("overcooked", level, 2))
    asyncio.run(session.reset(0))
    return session


def _frames_exist(grid: dict, layer: dict) -> None:
    for sprite in layer["sprites"]:
        assert sprite["frame"] in grid["sheets"][sprite["sheet"]]["frames"], sprite
        assert 0 <= sprite["x"] < grid["cols"] and 0 <= sprite["y"] < grid["rows"], sprite
    for label in layer["labels"]:
        assert 0 <= label["x"] < grid["cols"] and 0 <= label["y"] < grid["rows"] and label["text"], label


def test_the_domain_and_its_sessions_declare_their_page() -> None:
    assert isinstance(DOMAIN, PageAssets)
    assert sorted(DOMAIN.page_assets()) == ["chefs.png", "objects.png", "soups.png", "terrain.png"]
    assert page_asset_problems(DOMAIN) == []
    assert isinstance(_session("cramped_room"), PageActions)


def test_both_sheet_formats_are_read() -> None:
    found = sheets()
    assert found["chefs"]["frames"]["EAST"] == [1, 1, 15, 15]  # "EAST.png" in the sheet's frames mapping
    assert len(found["soups"]["frames"]) == 27 and "soup_done_tomato_0_onion_3" in found["soups"]["frames"]
    assert {"counter", "floor", "pot", "onions", "dishes", "serve"} <= set(found["terrain"]["frames"])
    for sheet in found.values():
        assert all(len(rect) == 4 and rect[2] > 0 and rect[3] > 0 for rect in sheet["frames"].values())


@pytest.mark.parametrize("level", DOMAIN.level_names())
def test_every_layouts_terrain_is_drawable(level: str) -> None:
    session = _session(level)
    grid = session.static_view()["page"]["grid"]
    rows = session.layout.rows
    assert (grid["cols"], grid["rows"]) == (len(rows[0]), len(rows)) and grid["cell"] == 15
    terrain = grid["terrain"]
    assert [len(r) for r in terrain["rows"]] == [len(r) for r in rows]
    assert all(frame in grid["sheets"][terrain["sheet"]]["frames"] for row in terrain["rows"] for frame in row)
    _frames_exist(grid, session.view()["grid"])


@pytest.mark.parametrize("level", ["cramped_room", "forced_coordination", "counter_circuit"])
def test_every_sprite_of_an_episode_is_in_its_sheet(level: str) -> None:
    """The planner cooks and serves (soups in pots, on dishes, in hands), random moves add the rest."""
    session = _session(level)
    grid = session.static_view()["page"]["grid"]
    planner = DOMAIN.make_policy("planner", 0)
    rng = random.Random(7)
    seen: set[str] = set()
    while not session.done:
        commands = planner.act(session)
        if rng.random() < 0.2:
            commands = [rng.choice(session.legal_commands(a)) for a in range(2)]
        session.step_now(commands)
        layer = session.view()["grid"]
        _frames_exist(grid, layer)
        seen.update(s["frame"] for s in layer["sprites"])
    assert session.score > 0
    assert any(f.endswith("soup-onion") for f in seen) and any(f.startswith("soup_idle") for f in seen)


def test_the_hud_counts_down_and_scores() -> None:
    session = _session("cramped_room")
    hud = {h["label"]: h for h in session.view()["grid"]["hud"]}
    assert hud["Time left"]["steps"] == 400 and hud["Reward"]["value"] == "0"
    session.step_now(["up(chef0)", "stay(chef1)"])
    assert {h["label"]: h for h in session.view()["grid"]["hud"]}["Time left"]["steps"] == 399


def test_keys_are_the_persons_own_primitives() -> None:
    session = _session("cramped_room")
    groups = session.static_view()["page"]["groups"]
    assert [(g["id"], g["key"]) for g in groups] == [("up", "ArrowUp"), ("down", "ArrowDown"), ("left", "ArrowLeft"),
                                                      ("right", "ArrowRight"), ("interact", " ")]
    for agent in (0, 1):
        legal = session.legal_commands(agent)
        actions = page_actions(session, agent, legal)  # checked against the page's action shape
        keyed = {a["group"]: a["command"] for a in actions if a["group"] != OTHER}
        assert keyed == {v: f"{v}(chef{agent})" for v in ("up", "down", "left", "right", "interact")}
        assert all(a["tile"] is None for a in actions)
    assert session.page_actions(0, ["up(chef1)", "pickup_onion(chef0)", "nonsense"]) == []


def test_pots_and_counters_in_words() -> None:
    session = _session("cramped_room")
    assert session.view()["locations"] == [{"name": "pot0", "type": "pot", "location": [2, 0], "content": [],
                                            "in_use": False, "busy": 0, "gettable": False}]
    planner = DOMAIN.make_policy("planner", 0)
    said: list[str] = []
    while not session.done and not any(c.startswith("cooking") for c in said):
        session.step_now(planner.act(session))
        said = session.view()["locations"][0]["content"]
    pot = session.view()["locations"][0]
    assert pot["in_use"] and pot["busy"] > 0 and pot["content"] == [f"cooking, {pot['busy']} left"], pot
    agent = session.view()["agents"][0]
    assert agent["location"].startswith("(") and "facing" in agent["location"]
