"""The construction family without a server: commands, the checker, level choosing, the planner.

The planner is played against the pure world model (`BuildWorld`), applying only what the
checker accepts, the way the live session does before any bot moves.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core.domain import SpecError
from mindagent.core.spec import GameSpec
from minecraft.domain import DOMAIN
from minecraft.families.build_commands import BuildSyntaxError, extract_build_commands, parse_build_command
from minecraft.families.build_world import BuildWorld, check_all
from minecraft.families.construction import ConstructionSession, load_level
from minecraft.families.construction_planner import ConstructionPlanner
from minecraft.families.generate import BANDS, generate
from minecraft.families.metrics import completion_rate

AGENTS = ["Alex", "Steve"]


@pytest.mark.parametrize(("text", "normal"), [
    ("take(Alex, stone, 4)", "take(Alex, stone, 4)"),
    ("PLACE(steve, minecraft:oak_stairs, 1,0,2, e)", "place(Steve, oak_stairs, 1, 0, 2, E)"),
    ("dig( Alex , 3, 1, 2 )", "dig(Alex, 3, 1, 2)"),
    ("noop(Steve)", "noop(Steve)"),
])
def test_commands_read_and_print_back(text: str, normal: str) -> None:
    assert parse_build_command(text, AGENTS).text == normal
    assert parse_build_command(normal, AGENTS).text == normal


@pytest.mark.parametrize("text", ["take(Alex, stone)", "place(Alex, stone, 1, 2)", "dig(Alex, stone, 1, 2, 3)",
                                  "noop(Bob)", "take(Alex, 4)", "place(Alex, stone, 1, 0, 2, Q)", "eval(Alex)"])
def test_bad_commands_are_refused(text: str) -> None:
    with pytest.raises(BuildSyntaxError):
        parse_build_command(text, AGENTS)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_extraction_never_crashes_and_keeps_one_per_agent(text: str) -> None:
    found = extract_build_commands(text, AGENTS)
    assert len({c.agent for c in found}) == len(found) <= len(AGENTS)


def test_the_checker_judges_in_order_and_on_the_world_before_the_step() -> None:
    bp = generate("easy", 4)
    world = BuildWorld.fresh(bp, AGENTS)
    material, have = next(iter(bp.chest_contents().items()))
    verdicts = check_all([f"take(Alex, {material}, {have})", f"take(Steve, {material}, 1)"], AGENTS, world)
    assert [why.code if why else None for _, why in verdicts] == [None, "missing_item"]
    world.inventory["Alex"][material] = 2
    world.inventory["Steve"][material] = 2
    codes = [why.code if why else None for _, why in check_all(
        [f"place(Alex, {material}, 0, 0, 0)", f"place(Steve, {material}, 0, 1, 0)"], AGENTS, world)]
    assert codes == [None, "no_support"]  # the block under it is placed in the same step
    codes = [why.code if why else None for _, why in check_all(
        [f"place(Alex, {material}, 5, 0, 5)", f"place(Steve, {material}, 5, 0, 5)"], AGENTS, world)]
    assert codes == [None, "occupied"]
    codes = [why.code if why else None for _, why in check_all(
        [f"place(Alex, {material}, 16, 0, 0)", "dig(Steve, 1, 1, 1)", "noop(Alex)"], AGENTS, world)]
    assert codes == ["off_site", "not_found", "duplicate_agent"]


@given(st.sampled_from(sorted(BANDS)), st.integers(0, 10**6), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_planner_builds_every_generated_task_in_the_world_model(band: str, seed: int, bots: int) -> None:
    bp = generate(band, seed)
    session = ConstructionSession(bp, n_agents=bots)  # not started: the planner only reads the model
    planner = ConstructionPlanner()
    for _ in range(4 * len(bp.blocks) + 4):
        commands = planner.act(session)
        checked = check_all(commands, session.agents, session.world)
        assert all(why is None for _, why in checked), checked
        for command, _ in checked:
            assert command is not None
            session.world.apply(command)
        if completion_rate(bp, session.world.site) == 1.0:
            break
    assert completion_rate(bp, session.world.site) == 1.0
    assert session.state_text().count("Still to place: nothing.") == 1


def test_levels_are_chosen_by_name_or_file(tmp_path: Path) -> None:
    spec = DOMAIN.validate(GameSpec("minecraft", level="construction:medium:7", agents=3))
    assert spec.level == "construction:medium:7"
    session = DOMAIN.make_session(spec)
    assert isinstance(session, ConstructionSession) and session.blueprint == generate("medium", 7)
    assert session.max_steps == max(40, len(session.blueprint.blocks) + 20)  # the task's own length
    hard = DOMAIN.make_session(DOMAIN.validate(GameSpec("minecraft", level="construction:hard:0", agents=2)))
    assert hard.max_steps == 72 + 20  # eval --steps cannot lengthen a session, so a large task brings its own
    assert DOMAIN.parse_levels("construction:easy") == [f"construction:easy:{s}" for s in range(5)]
    assert DOMAIN.parse_levels("construction:hard:2,construction:easy:9") == ["construction:hard:2", "construction:easy:9"]
    assert DOMAIN.parse_levels("minecraft") == ["minecraft"]
    path = tmp_path / "hut.json"
    path.write_text(generate("easy", 2).to_json())
    assert load_level(str(path)) == generate("easy", 2)
    for level, says in [("construction:huge:1", "construction:<easy|medium|hard>:<seed>"),
                        ("construction:easy:x", "construction:<easy"), (str(tmp_path / "no.json"), "cannot read")]:
        with pytest.raises(SpecError, match=says):
            DOMAIN.validate(GameSpec("minecraft", level=level, agents=2))
    for options, says in [({"mc_host": "h"}, "needs --mc-site X,Y,Z"), ({"mc_site": "1,2,3"}, "on a server at --mc-host"),
                          ({"mc_host": "h", "mc_site": "1,2"}, "three whole numbers"),
                          ({"mc_host": "h", "mc_site": "1,2,3", "mc_accounts": "A=a@b"}, "do not use --mc-accounts")]:
        with pytest.raises(SpecError, match=says):
            DOMAIN.validate(GameSpec("minecraft", level="construction:easy:0", agents=2, options=options))
    foreign = DOMAIN.make_session(DOMAIN.validate(GameSpec("minecraft", level="construction:easy:0", agents=2,
                                                           options={"mc_host": "h", "mc_site": "10,-60,-10"})))
    assert isinstance(foreign, ConstructionSession) and foreign.site.foreign
    with pytest.raises(SpecError, match="kitchen does not use it"):
        DOMAIN.validate(GameSpec("minecraft", agents=2, options={"mc_site": "1,2,3"}))
    with pytest.raises(SpecError, match="1 to 4 bots"):
        DOMAIN.validate(GameSpec("minecraft", level="construction:easy:0", agents=5))


def test_prompt_lists_the_blueprint_and_the_commands() -> None:
    session = ConstructionSession(generate("medium", 0), n_agents=2)
    parts = session.prompt_parts()
    assert all(line in parts.recipes for line in [f"at ({b.x}, {b.y}, {b.z})" for b in session.blueprint.blocks])
    assert "place(Bot, material, x, y, z)" in parts.instructions
    assert "Materials chest:" in session.state_text() and "Alex carries: nothing." in session.state_text()
    assert session.legal_commands(0)[0] == "noop(Alex)"
    assert any(c.startswith("take(Alex, ") for c in session.legal_commands(0))


def test_recorded_episodes_give_c_vhr_and_balance() -> None:
    from minecraft.families.team_metrics import balance

    bp = generate("easy", 1)
    first, second = bp.blocks[0], bp.blocks[1]
    header = {"family": "construction", "agents": 2, "blueprint": bp.model_dump(mode="json", by_alias=True)}
    steps = [{"verdicts": [{"command": f"take(Alex, {first.material}, 1)", "ok": True},
                           {"command": f"take(Steve, {second.material}, 1)", "ok": True}]},
             {"verdicts": [{"command": f"place(Alex, {first.material}, {first.x}, {first.y}, {first.z})", "ok": True},
                           {"command": f"place(Steve, {second.material}, {second.x}, {second.y}, {second.z})", "ok": False}]}]
    got = DOMAIN.process_metrics(header, steps)
    assert got["completion_C"] == round(1 / len(bp.blocks), 4)
    assert got["blocks_placed_per_agent"] == {"Alex": 1, "Steve": 0} and got["actions_per_agent"] == {"Alex": 2, "Steve": 1}
    assert 0 < got["view_hit_rate"] < 1
    assert got["balance_B"] == 0.5  # min-max scaling leaves two unequal bots at 0 and 1: σ = 0.5
    assert balance([3, 3, 3]) == 1.0 and balance([4]) is None
    assert balance([0, 1, 2]) == pytest.approx(1 - (1 / 6) ** 0.5)
    assert got["agent_contribution"] == 0.0 and got["contribution_per_agent"] == {"Alex": 1, "Steve": 0}
