"""The farm family without a server: the task reader, commands, the generator, the checker, the
planner played on the pure world model and the recorded metrics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core.domain import SpecError
from mindagent.core.spec import GameSpec
from minecraft.domain import DOMAIN
from minecraft.families.farm import load_level
from minecraft.families.farm_commands import FarmSyntaxError, extract_farm_commands, parse_farm_command
from minecraft.families.farm_generate import (
    BANDS,
    COOK_TICKS,
    STEP_TICKS,
    chain_problems,
    generate,
    raw_needs,
    solvable_steps,
)
from minecraft.families.farm_metrics import farm_metrics
from minecraft.families.farm_planner import simulate
from minecraft.families.farm_task import FarmTask, FarmTaskError, FieldSpec, load_farm_task
from minecraft.families.farm_world import FarmWorld, check_all
from minecraft.families.team_metrics import agent_contribution

AGENTS = ["Alex", "Steve"]


def _task(**kw: object) -> FarmTask:
    base: dict[str, object] = {"name": "t", "dishes": ("bread",), "fields": (FieldSpec(crop="wheat", plots=3, ripe=3),)}
    return FarmTask(**{**base, **kw})  # type: ignore[arg-type]


@given(st.sampled_from(sorted(BANDS)), st.integers(min_value=0, max_value=10_000))
@settings(max_examples=25, deadline=None)
def test_generated_tasks_are_solvable_and_the_same_for_the_same_seed(band: str, seed: int) -> None:
    task = generate(band, seed)
    assert task == generate(band, seed)
    assert chain_problems(task) == []
    for n in range(1, 5):
        used = simulate(task, n, step_ticks=STEP_TICKS, cook_ticks=COOK_TICKS, max_steps=task.steps)
        assert used is not None and used <= task.steps


def test_every_easy_task_of_eval_is_served_by_the_planner_on_the_world_model() -> None:
    for level in DOMAIN.parse_levels("farm:easy"):
        task = load_level(level)
        assert simulate(task, 2, step_ticks=STEP_TICKS, cook_ticks=COOK_TICKS, max_steps=task.steps) is not None


def test_the_chain_check_names_what_the_farm_cannot_give() -> None:
    assert raw_needs(("cake",)) == {"bucket": 3, "sugar_cane": 2, "egg": 1, "wheat": 3}
    short = _task(dishes=("cake",), pantry={"bucket": 3})
    assert chain_problems(short) == ["sugar_cane: needs 2, the farm can give 0"]


@pytest.mark.parametrize(("text", "normal"), [
    ("take(Alex, bucket, 3)", "take(Alex, bucket, 3)"),
    ("HARVEST(steve, minecraft:wheat)", "harvest(Steve, wheat)"),
    ("milk( Alex )", "milk(Alex)"),
    ("gather(Alex, egg, 2)", "gather(Alex, egg, 2)"),
])
def test_commands_read_and_print_back(text: str, normal: str) -> None:
    assert parse_farm_command(text, AGENTS).text == normal


@pytest.mark.parametrize("text", ["take(Alex, bucket)", "milk(Alex, cow)", "noop(Bob)", "serve(Alex)", "eval(Alex)"])
def test_bad_commands_are_refused(text: str) -> None:
    with pytest.raises(FarmSyntaxError):
        parse_farm_command(text, AGENTS)


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_extraction_never_crashes_and_keeps_one_per_agent(text: str) -> None:
    found = extract_farm_commands(text, AGENTS)
    assert len({c.agent for c in found}) == len(found) <= len(AGENTS)


def test_the_checker_judges_in_order_with_a_reason() -> None:
    world = FarmWorld.fresh(_task(fields=(FieldSpec(crop="wheat", plots=2, ripe=1),), pantry={"bucket": 1}), AGENTS)
    verdicts = check_all(["harvest(Alex, wheat)", "harvest(Steve, wheat)"], AGENTS, world)
    assert [why.code if why else None for _, why, _ in verdicts] == [None, "not_ripe"]
    assert verdicts[0][2] is not None and verdicts[0][2].index == 0
    verdicts = check_all(["take(Alex, bucket, 1)", "take(Steve, bucket, 1)", "milk(Steve)"], AGENTS, world)
    assert [why.code if why else None for _, why, _ in verdicts] == [None, "missing_item", "duplicate_agent"]
    for text, code in [("craft(Alex, bread)", "missing_item"), ("plant(Alex, wheat)", "missing_item"),
                       ("smelt(Alex, wheat)", "not_smeltable"), ("serve(Alex, cake)", "not_ordered"),
                       ("harvest(Alex, pumpkin)", "no_field"), ("gather(Alex, egg, 1)", "missing_item"),
                       ("takeout(Alex)", "empty_output"), ("craft(Alex, pizza)", "unknown_target")]:
        (_, why, _), = check_all([text], AGENTS, world)
        assert why is not None and why.code == code and why.detail, text
    assert world.ripe("wheat") and world.pantry["bucket"] == 1  # the checker changed nothing


def test_the_world_clock_grows_crops_lays_eggs_and_smelts() -> None:
    world = FarmWorld.fresh(_task(fields=(FieldSpec(crop="potato", plots=1, ripe=0),), pantry={"potato": 1, "coal": 1},
                                  egg_ticks=50, grow_ticks=100), ["Alex"], cook_ticks=20)
    for text in ["take(Alex, potato, 1)", "plant(Alex, potato)"]:
        (cmd, why, _), = check_all([text], ["Alex"], world)
        assert why is None and cmd is not None
        world.apply(cmd)
    world.advance(99)
    assert world.growing("potato") and world.nest == 1
    world.advance(1)
    assert world.ripe("potato") and world.nest == 2
    for text in ["harvest(Alex, potato)", "take(Alex, coal, 1)", "smelt(Alex, potato)"]:
        (cmd, why, _), = check_all([text], ["Alex"], world)
        assert why is None and cmd is not None, why
        world.apply(cmd)
    world.advance(40)
    assert world.furnace.output == "baked_potato" and world.furnace.output_n == 2


def test_a_malformed_task_file_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.farm.json"
    for text, words in [("{", "not JSON"), ('{"schema": "mindagent/farm-task@1", "name": "x", "dishes": ["pizza"]}', "no dish 'pizza'"),
                        ('{"schema": "other"}', "schema must be"), ("[]", "JSON object")]:
        bad.write_text(text)
        with pytest.raises(FarmTaskError) as info:
            load_farm_task(bad)
        assert words in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(SpecError, match="bad.farm.json") as info:
        DOMAIN.validate(GameSpec("minecraft", level=str(bad), agents=2))
    assert "\n" not in str(info.value)
    good = tmp_path / "good.farm.json"
    good.write_text(_task().to_json())
    assert DOMAIN.validate(GameSpec("minecraft", level=str(good), agents=2)).level == str(good)


def test_levels_and_bands() -> None:
    assert DOMAIN.parse_levels("farm:easy") == [f"farm:easy:{s}" for s in range(5)]
    with pytest.raises(SpecError, match="farm:<easy"):
        DOMAIN.validate(GameSpec("minecraft", level="farm:tricky:1", agents=2))


def test_recorded_metrics_count_dishes_balance_and_contribution() -> None:
    task = _task(dishes=("bread",))
    header = {"task": task.model_dump(mode="json", by_alias=True), "agent_names": AGENTS}
    steps = [{"verdicts": [{"command": "harvest(Alex, wheat)", "ok": True}, {"command": "harvest(Steve, wheat)", "ok": True}]},
             {"verdicts": [{"command": "craft(Alex, bread)", "ok": False}, {"command": "noop(Steve)", "ok": True}]},
             {"verdicts": [{"command": "craft(Alex, bread)", "ok": True}, {"command": "noop(Steve)", "ok": True}]},
             {"verdicts": [{"command": "serve(Alex, bread)", "ok": True}]}]
    m = farm_metrics(header, steps)
    assert m["dishes_served"] == 1 and m["completion"] == 1.0
    assert m["actions_per_agent"] == {"Alex": 3, "Steve": 1} and m["items_brought_per_agent"] == {"Alex": 2, "Steve": 1}
    assert m["balance_B"] == 1.0 - 0.5 and m["agent_contribution"] == pytest.approx(2 / 3, abs=1e-4)
    assert agent_contribution([3, 3]) == 1.0 and agent_contribution([4, 0]) == 0.0 and agent_contribution([5]) is None


def test_the_task_file_in_the_howto_loads_and_is_solvable(tmp_path: Path) -> None:
    howto = Path(__file__).parents[3] / "docs" / "howto" / "minecraft-farm.md"
    example = re.search(r"```json\n(.*?)```", howto.read_text(), re.S)
    assert example is not None
    path = tmp_path / "example.farm.json"
    path.write_text(example.group(1))
    task = load_farm_task(path)
    steps = solvable_steps(task)
    assert steps is not None and steps <= task.steps
