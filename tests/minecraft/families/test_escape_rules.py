"""The escape family without a server: rooms and their files, the generator, commands, the checker,
the planner and the recorded metrics.

The planner is played against the pure world model (`EscapeWorld`), applying only what the
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
from minecraft.families.escape import load_level
from minecraft.families.escape_commands import EscapeSyntaxError, extract_escape_commands, parse_escape_command
from minecraft.families.escape_generate import BANDS, generate_room
from minecraft.families.escape_metrics import escape_metrics
from minecraft.families.escape_planner import plan
from minecraft.families.escape_room import Room, RoomError, Stage, mechanisms, parse_room, solvable
from minecraft.families.escape_world import EscapeWorld, check_all
from minecraft.families.registry import expand_levels

AGENTS = ["Alex", "Steve"]


def _room(*stages: Stage, decoys: tuple[int, ...] = ()) -> Room:
    return Room(name="t", stages=stages, decoys=decoys)


def _codes(world: EscapeWorld, commands: list[str]) -> list[str | None]:
    return [why.code if why else None for _, why in check_all(commands, AGENTS, world)]


def _play(world: EscapeWorld, commands: list[str]) -> None:
    for command, why in check_all(commands, AGENTS, world):
        assert why is None and command is not None, why
        world.apply(command)


@pytest.mark.parametrize(("text", "normal"), [
    ("stand(Alex, plate1)", "stand(Alex, plate1)"),
    ("FLIP( steve , Lever12 )", "flip(Steve, lever12)"),
    ("take(Alex,chest3)", "take(Alex, chest3)"),
    ("unlock(Steve, door2)", "unlock(Steve, door2)"),
    ("exit(Alex)", "exit(Alex)"),
    ("wait(Steve)", "wait(Steve)"),
])
def test_commands_read_and_print_back(text: str, normal: str) -> None:
    assert parse_escape_command(text, AGENTS).text == normal
    assert parse_escape_command(normal, AGENTS).text == normal


@pytest.mark.parametrize("text", ["stand(Alex)", "stand(Alex, lever1)", "flip(Alex, chest1)", "exit(Alex, door1)",
                                  "wait(Bob)", "unlock(Alex, door)", "open(Alex, chest1)", "take(Alex, chest1, 2)"])
def test_malformed_commands_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(EscapeSyntaxError):
        parse_escape_command(text, AGENTS)


def test_extraction_keeps_the_first_command_per_agent() -> None:
    text = "Plan: stand(Steve, plate2) then stand(Alex, plate1); later flip(Alex, lever1)."
    assert [c.text for c in extract_escape_commands(text, AGENTS)] == ["stand(Alex, plate1)", "stand(Steve, plate2)"]


@settings(max_examples=150, deadline=None)
@given(band=st.sampled_from(sorted(BANDS)), seed=st.integers(0, 10**6))
def test_every_generated_room_is_solvable_and_the_planner_escapes_it(band: str, seed: int) -> None:
    room = generate_room(band, seed)
    assert room == generate_room(band, seed)
    assert solvable(room) is None and parse_room(room.to_json()) == room
    world = EscapeWorld.fresh(room, AGENTS)
    for _ in range(60):
        if world.escaped:
            break
        _play(world, plan(world, AGENTS))
    assert world.escaped and world.conditions_met() == room.dependency + 1


def test_bands_grow_in_rooms_and_differ_by_seed() -> None:
    sizes = {band: [len(generate_room(band, s).stages) for s in range(40)] for band in BANDS}
    assert max(sizes["easy"]) <= 2 and min(sizes["hard"]) >= 3
    assert len({generate_room("medium", s).to_json() for s in range(10)}) > 5


def test_the_checker_refuses_before_anything_moves() -> None:
    room = _room(Stage(kind="plates", plates=2), Stage(kind="key", key="emerald", key_room=0),
                 Stage(kind="levers", order=(1, 0)))
    world = EscapeWorld.fresh(room, AGENTS)
    assert _codes(world, ["stand(Alex, plate1)", "stand(Steve, plate1)"]) == [None, "occupied"]
    assert _codes(world, ["flip(Alex, lever1)", "unlock(Steve, door2)"]) == ["door_closed", "door_closed"]
    assert _codes(world, ["exit(Alex)", "stand(Alex, plate9)"]) == ["door_closed", "duplicate_agent"]
    assert _codes(world, ["take(Alex, chest1)", "take(Steve, chest1)"]) == [None, "busy"]
    assert _codes(world, ["unlock(Alex, door1)", "hello"]) == ["no_lock", "syntax"]
    _play(world, ["stand(Alex, plate1)", "stand(Steve, plate2)"])
    assert world.opened == [True, False, False]
    assert _codes(world, ["stand(Alex, plate1)", "unlock(Steve, door2)"]) == ["solved", "missing_item"]
    _play(world, ["take(Alex, chest1)", "wait(Steve)"])
    assert _codes(world, ["unlock(Steve, door2)", "unlock(Alex, door2)"]) == ["missing_item", None]
    _play(world, ["unlock(Alex, door2)", "wait(Steve)"])
    assert _codes(world, ["flip(Alex, lever2)", "flip(Steve, lever1)"]) == [None, "busy"]


def test_a_lever_out_of_turn_works_and_switches_the_room_off() -> None:
    world = EscapeWorld.fresh(_room(Stage(kind="levers", order=(2, 0, 1))), AGENTS)
    _play(world, ["flip(Alex, lever3)", "wait(Steve)"])
    assert world.levers_on == ["lever3"]
    assert _codes(world, ["flip(Alex, lever3)", "wait(Steve)"]) == ["lever_on", None]
    _play(world, ["flip(Alex, lever2)", "wait(Steve)"])
    assert world.levers_on == [] and world.opened == [False]
    for lever in ("lever3", "lever1", "lever2"):
        _play(world, [f"flip(Alex, {lever})", "wait(Steve)"])
    assert world.opened == [True]


def test_a_bot_off_its_plate_releases_it() -> None:
    world = EscapeWorld.fresh(_room(Stage(kind="plates", plates=2), decoys=(0,)), AGENTS)
    _play(world, ["stand(Alex, plate1)", "wait(Steve)"])
    _play(world, ["take(Alex, chest1)", "stand(Steve, plate2)"])
    assert world.opened == [False] and world.on_plate == {"Alex": None, "Steve": "plate2"}
    assert world.inventory["Alex"]["bone"] == 2


@pytest.mark.parametrize(("text", "says"), [
    ("{", "not JSON"),
    ("[1]", "a JSON object"),
    ('{"name": "r", "stages": []}', "stages"),
    ('{"name": "r", "stages": [{"kind": "plates"}]}', "plates 1-3"),
    ('{"name": "r", "stages": [{"kind": "levers", "order": [0, 0]}]}', "permutation"),
    ('{"name": "r", "stages": [{"kind": "key", "key": "emerald", "key_room": 1}, {"kind": "plates", "plates": 1}]}',
     "cannot be escaped: the emerald for door 1 lies behind it, in room 2"),
    ('{"name": "r", "team": 2, "stages": [{"kind": "plates", "plates": 3}]}', "needs 3 plates held at once"),
    ('{"name": "r", "stages": [{"kind": "plates", "plates": 1}], "decoys": [0, 0, 0, 0]}', "at most 3 chests"),
    ('{"name": "r", "stages": [{"kind": "plates", "plates": 1}], "colour": "red"}', "colour"),
])
def test_a_malformed_room_file_gets_one_clear_line(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "bad.escape.json"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        DOMAIN.validate(GameSpec("minecraft", level=str(path), agents=2))
    message = str(info.value)
    assert says in message and str(path) in message and "\n" not in message


def test_a_room_file_plays_and_an_oversized_one_is_refused_unread(tmp_path: Path) -> None:
    good = tmp_path / "two.escape.json"
    good.write_text(_room(Stage(kind="plates", plates=2)).to_json())
    assert load_level(str(good)).stages[0].plates == 2
    big = tmp_path / "big.escape.json"
    big.write_text(" " * 70_000)
    with pytest.raises(RoomError, match="over the limit"):
        load_level(str(big))


def test_levels_bands_and_team_size() -> None:
    assert expand_levels("escape:easy") == [f"escape:easy:{s}" for s in range(5)]
    with pytest.raises(SpecError, match="escape:<easy|medium|hard>"):
        DOMAIN.validate(GameSpec("minecraft", level="escape:tiny:1", agents=2))
    with pytest.raises(SpecError, match="escape:easy:0 is made for 2 bots"):
        DOMAIN.validate(GameSpec("minecraft", level="escape:easy:0", agents=1))


def test_mechanism_names_are_stable_and_chests_hold_keys_before_junk() -> None:
    room = _room(Stage(kind="key", key="diamond", key_room=0), decoys=(0,))
    assert [(m.name, m.items) for m in mechanisms(room) if m.kind == "chest"] == [
        ("chest1", (("diamond", 1),)), ("chest2", (("bone", 2),))]


def test_recorded_metrics() -> None:
    room = _room(Stage(kind="plates", plates=2), Stage(kind="levers", order=(0, 1)))
    ok = lambda c: {"command": c, "ok": True}  # noqa: E731
    steps = [
        {"verdicts": [ok("stand(Alex, plate1)"), ok("stand(Steve, plate2)")], "completed": ["door1 open"]},
        {"verdicts": [ok("flip(Alex, lever1)"), ok("wait(Steve)")], "completed": []},
        {"verdicts": [ok("flip(Alex, lever2)"), {"command": "flip(Steve, lever1)", "ok": False}], "completed": ["door2 open"]},
        {"verdicts": [ok("exit(Alex)"), ok("exit(Steve)")], "completed": ["Alex out", "Steve out"]},
    ]
    got = escape_metrics({"room": room.model_dump(mode="json", by_alias=True), "agent_names": AGENTS}, steps)
    assert got["solved"] and got["steps_to_escape"] == 4 and got["completion_C"] == 1.0 and got["dependency_D"] == 4
    assert got["actions_per_agent"] == {"Alex": 4, "Steve": 2}
    assert got["mechanism_share_per_agent"] == {"Alex": 0.75, "Steve": 0.25}
    assert got["contribution_per_agent"] == {"Alex": 3, "Steve": 1} and got["agent_contribution"] == 0.5
    assert got["balance_B"] == 0.5
    half = escape_metrics({"room": room.model_dump(mode="json", by_alias=True), "agent_names": AGENTS}, steps[:1])
    assert not half["solved"] and half["steps_to_escape"] is None and half["completion_C"] == 0.4
