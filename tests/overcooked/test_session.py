"""The session's behaviour through the contract: feasibility refusals, how a dispatcher step maps to
timesteps, carrying on a busy chef, the text map, layout files, and the domain's spec checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindagent.core import registry as domains
from mindagent.core.domain import SpecError
from mindagent.core.spec import GameSpec
from overcooked_game.engine import STEP_CAP
from overcooked_game.session import OvercookedSession


async def session(level: str = "cramped_room", **spec: object) -> OvercookedSession:
    made = domains.make_session(GameSpec(domain="overcooked", level=level, **spec))  # type: ignore[arg-type]
    assert isinstance(made, OvercookedSession)
    await made.reset(seed=0)
    return made


def codes(s: OvercookedSession, commands: list[str]) -> list[str | None]:
    return [None if v.ok else v.reason.code for v in s.check(commands)]  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_only_feasible_medium_level_commands_are_offered_and_the_rest_refused_with_reasons() -> None:
    s = await session()
    assert s.legal_commands(0)[:4] == ["pickup_onion(chef0)", "pickup_dish(chef0)", "wait(chef0)", "move_away(chef0)"]
    assert codes(s, ["put_onion(chef0, pot0)", "fill_dish(chef1, pot0)", "wait(chef0)"]) == \
        ["hands_empty", "hands_empty", None]  # a refused command does not use up chef0's turn
    assert codes(s, ["put_onion(chef0, pot7)"]) == ["hands_empty"]
    verdict = s.check(["pickup_soup(chef0)"])[0]
    assert not verdict.ok and verdict.text == "chef0 cannot pickup_soup: nothing it can reach has one"
    assert verdict.to_dict()["reason"] == {"code": "nothing_reachable", "chef": 0, "verb": "pickup_soup"}
    await s.step(["pickup_onion(chef0)", "pickup_onion(chef1)"])
    while s.engine.tasks[0] is not None:
        await s.step([s.idle_command(0), s.idle_command(1)])
    assert codes(s, ["pickup_dish(chef0)"]) == ["hands_full"]
    assert codes(s, ["put_onion(chef0, pot0)", "wait(chef0)"]) == [None, "second_command"]
    assert codes(s, ["fill_dish(chef0, pot0)"]) == ["wrong_item"]
    assert "put_onion(chef0, pot0)" in s.legal_commands(0)


@pytest.mark.asyncio
async def test_a_step_runs_until_a_chef_is_free_and_says_which_timesteps() -> None:
    s = await session()
    step = await s.step(["pickup_onion(chef0)", "pickup_dish(chef1)"])
    first = s.engine.timestep
    assert step.notes[0] == f"timesteps 0-{first}" and 1 < first <= STEP_CAP
    assert any(note.endswith("done") for note in step.notes[1:])
    busy = [a for a in range(2) if s.engine.tasks[a] is not None]
    assert len(busy) == 1 and s.idle_command(busy[0]) == str(s.engine.tasks[busy[0]].command)  # type: ignore[union-attr]
    step = await s.step(["up(chef0)", "stay(chef1)"])
    assert step.notes[0] == f"timesteps {first}-{first + 1}" and s.step_index == 2


@pytest.mark.asyncio
async def test_forced_coordination_splits_the_kitchen_and_hands_over_on_shared_counters() -> None:
    s = await session("forced_coordination")
    regions = {s.kitchen.region[p.position] for p in s.engine.state.players}
    assert len(regions) == 2
    pot_side = next(a for a in range(2) if "pickup_onion" not in " ".join(s.legal_commands(a)))
    assert codes(s, [f"pickup_onion(chef{pot_side})"]) == ["nothing_reachable"]
    onion_side = 1 - pot_side
    while s.engine.held(onion_side) != "onion":
        await s.step([f"pickup_onion(chef{onion_side})" if a == onion_side else f"wait(chef{a})" for a in range(2)])
    assert codes(s, [f"put_onion(chef{onion_side}, pot0)"]) == ["unreachable"]
    places = [c for c in s.legal_commands(onion_side) if c.startswith("place(")]
    assert places and all(s.kitchen.reaches(s.engine.state.players[pot_side].position, s.kitchen.by_name[c[:-1].split(", ")[1]])
                          for c in places)


@pytest.mark.asyncio
async def test_state_text_shows_the_map_with_coordinates_chefs_pots_and_options() -> None:
    s = await session()
    text = s.state_text()
    assert text.splitlines()[:3] == ["timestep 0 of 400; soups delivered 0 (score 0)", "map:", "    0 1 2 3 4"]
    assert "  1 O . . B O" in text and "  2 X A . . X" in text
    assert "pot0 at (2,0): empty" in text
    assert "chef0 (A) at (1,2) facing north, holding nothing, free" in text
    assert "chef1 can: pickup_onion(chef1), pickup_dish(chef1), wait(chef1), move_away(chef1)" in text


@pytest.mark.asyncio
async def test_a_user_layout_file_plays_and_a_malformed_one_gets_one_line(tmp_path: Path) -> None:
    good = tmp_path / "hall.layout"
    good.write_text('{"grid": """XXPXXX\nO 1  S\nX  2 X\nXDXXXX"""}', encoding="utf-8")
    s = await session(str(good))
    assert s.name == "hall" and s.max_steps == 400
    bad = {"broken.layout": '{"grid": """XXPXX\nO 1 \nXDXSX"""}',
           "code.layout": '__import__("os").system("true")',
           "tomato.layout": '{"grid": """XXPXX\nT12 O\nXDXSX"""}'}
    for name, content in bad.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
        with pytest.raises(SpecError) as caught:
            domains.validate(GameSpec(domain="overcooked", level=str(tmp_path / name)))
        assert "\n" not in str(caught.value) and name in str(caught.value)
    with pytest.raises(SpecError, match="no layout"):
        domains.validate(GameSpec(domain="overcooked", level="kitchen_of_dreams"))


@pytest.mark.parametrize(("change", "words"), [
    ({"agents": 3}, "two chefs"), ({"tau": 2.0}, "no order deadlines"), ({"rules": "fixed"}, "one rule set"),
    ({"options": {"mc_host": "x"}}, "takes no mc_host"), ({"steps": 0}, "1 to"),
])
def test_spec_checks_refuse_what_overcooked_cannot_honour(change: dict[str, object], words: str) -> None:
    with pytest.raises(SpecError, match=words):
        domains.validate(GameSpec(domain="overcooked", **change))  # type: ignore[arg-type]


def test_levels_list_the_five_classic_layouts_first() -> None:
    domain = domains.get("overcooked")
    names = domain.level_names()
    assert names[:5] == ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
                         "counter_circuit"]
    assert domain.parse_levels("paper") == names[:5] and "counter_circuit_o_1order" not in names
