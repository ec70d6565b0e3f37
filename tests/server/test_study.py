"""The study kit: a study file walks each participant through consent and its episodes
(`serve --study`), and `mindagent study export` makes one table of what they recorded."""

from __future__ import annotations

import csv
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from websockets.asyncio.client import connect

from mindagent.cli import build_app
from mindagent.server import GameServer, ServerConfig
from mindagent.server.protocol import QUESTIONNAIRE, ProtocolError, StudyConsent, parse_client
from mindagent.server.settings import PlayerLimits
from mindagent.server.study import StudyError, StudyFile, load_study, new_participant
from tests.server.conftest import Client

ENTRY = {"agents": 2, "partner": "planner", "pace": 0.1, "steps": 6}
STUDY = {"name": "pilot", "consent": "You will play two short games. Your answers are kept without your name.",
         "order": "counterbalanced", "entries": [{"level": "level_1", **ENTRY}, {"level": "level_2", **ENTRY, "seat": 1}]}


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "study.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_study_file_loads_and_orders_by_participant(tmp_path: Path) -> None:
    study = load_study(write(tmp_path, STUDY))
    assert study.total == 2 and study.welcome()["episodes"] == 2
    assert study.order_for(1) == [1, 0] and study.order_for(2) == [0, 1] and study.order_for(1) == study.order_for(3)
    fixed = StudyFile.model_validate({**STUDY, "order": "fixed", "episodes": 1})
    assert fixed.order_for(1) == [0] and fixed.order_for(7) == [0]
    first = new_participant(1)
    assert first.startswith("0001-") and first != new_participant(1)
    assert study.entry_for(first, 0).level == "level_2"


@pytest.mark.parametrize("bad, says", [
    ("{not json", "not a JSON study file"),
    ({**STUDY, "entries": []}, "entries"),
    ({**STUDY, "entries": [{"level": "level_1", "partner": "gpt-4"}]}, "entries.0.partner"),
    ({**STUDY, "consent": ""}, "consent"),
    ({**STUDY, "surprise": 1}, "surprise"),
    ([1, 2], "(file)"),
], ids=["not json", "no entries", "unknown partner", "no consent", "unknown field", "a list"])
def test_a_malformed_study_file_is_one_clear_line(tmp_path: Path, bad: Any, says: str) -> None:
    with pytest.raises(StudyError) as caught:
        load_study(write(tmp_path, bad))
    message = str(caught.value)
    assert "\n" not in message and says in message and "study.json" in message


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                       max_leaves=12)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["name", "consent", "order", "entries", "episodes", "extra"]), JSONISH))
def test_any_study_file_loads_or_is_one_line(tmp_path: Path, change: dict[str, Any]) -> None:
    path = write(tmp_path, {**STUDY, **change})
    try:
        study = load_study(path)
    except StudyError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:
        assert 1 <= study.total <= len(study.entries) and sorted(study.order_for(5)) == sorted(set(study.order_for(5)))


def test_a_participant_id_outside_the_study_is_refused(tmp_path: Path) -> None:
    study = load_study(write(tmp_path, STUDY))
    for participant, index in (("nobody", 0), (new_participant(2), 2), (new_participant(2), -1)):
        with pytest.raises(ProtocolError):
            study.entry_for(participant, index)


def test_consent_must_be_given() -> None:
    msg, err, _ = parse_client('{"v":1,"type":"study_consent","agree":true}')
    assert isinstance(msg, StudyConsent) and err is None
    for frame in ('{"v":1,"type":"study_consent","agree":false}', '{"v":1,"type":"study_consent"}',
                  '{"v":1,"type":"study_next","participant":"../x","index":0}'):
        msg, err, _ = parse_client(frame)
        assert msg is None and err is not None and err.code == "invalid", frame


@pytest_asyncio.fixture
async def study_server(tmp_path: Path) -> AsyncIterator[GameServer]:
    config = ServerConfig(port=0, model="planner", tick=0.05, human_tick=None, countdown=0,
                          recordings=tmp_path / "rooms", startup=None, player_limits=PlayerLimits(paces=(0.1,)),
                          study=load_study(write(tmp_path, STUDY)))
    server = GameServer(config)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def play_episode(c: Client, answer: int) -> dict[str, Any]:
    over = await c.next("episode_over", timeout=30)
    reply = await c.request("questionnaire", answers={q["id"]: answer for q in QUESTIONNAIRE}, comment=f"round {answer}")
    assert reply["type"] == "ack", reply
    return over


@pytest.mark.asyncio
async def test_a_served_study_walks_a_participant_and_exports_their_table(study_server: GameServer,
                                                                          tmp_path: Path) -> None:
    async with connect(study_server.ws_url, max_size=None) as ws:
        c = Client(ws)
        welcome = await c.next("welcome")
        assert welcome["study"] == {"name": "pilot", "consent": STUDY["consent"], "episodes": 2}
        sent = await c.send(type="study_consent", agree=True)
        study = await c.next("study", lambda m: m.get("re") == sent)
        participant = study["participant"]
        joined = await c.next("joined")
        assert joined["agent"] == 1, "participant 1 starts at the second entry (counterbalanced), seat 1"
        first = await play_episode(c, 4)
        assert first["study"]["index"] == 0 and first["chosen"]["level"] == "level_2"
        sent = await c.send(type="study_next", participant=participant, index=1)
        await c.next("study", lambda m: m.get("re") == sent)
        assert (await c.next("joined"))["agent"] == 0
        second = await play_episode(c, 2)
        assert second["study"] == {"name": "pilot", "participant": participant, "index": 1, "of": 2, "seat": 0}
        over = await c.request("study_next", participant=participant, index=2)
        assert over["type"] == "error" and over["code"] == "invalid"
    rooms = tmp_path / "rooms"
    (rooms / "junk.jsonl").write_text("not a recording\n")
    runner = CliRunner()
    out = tmp_path / "study.csv"
    result = runner.invoke(build_app(), ["study", "export", "--recordings", str(rooms), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 2 row(s) for 1 participant(s)" in result.output
    rows = list(csv.DictReader(out.open()))
    assert [(r["participant"], r["index"], r["level"], r["seat"]) for r in rows] == [
        (participant, "0", "level_2", "1"), (participant, "1", "level_1", "0")]
    assert [r["enjoyment"] for r in rows] == ["4", "2"] and [r["comment"] for r in rows] == ["round 4", "round 2"]
    for row, shown in zip(rows, (first, second), strict=True):
        assert row["ended"] == "True" and row["steps"] == "6" and row["partner"] == "planner"
        assert float(row["score"]) == pytest.approx(shown["score"])
        assert int(row["completed"]) == shown["counts"]["completed"]
        seat = int(row["seat"])
        assert row["share"] == str(shown["team"][seat].get("share", "")) and int(row["refused"]) >= 0
    as_json = tmp_path / "study.json.out.json"
    result = runner.invoke(build_app(), ["study", "export", "--recordings", str(rooms), "--out", str(as_json)])
    assert result.exit_code == 0 and json.loads(as_json.read_text())[1]["trust"] == 2


def test_export_refuses_a_folder_without_study_recordings(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("{}\n")
    result = CliRunner().invoke(build_app(), ["study", "export", "--recordings", str(tmp_path), "--out",
                                              str(tmp_path / "t.csv")])
    assert result.exit_code == 1 and "no study recordings" in result.output
    result = CliRunner().invoke(build_app(), ["study", "export", "--recordings", str(tmp_path), "--out",
                                              str(tmp_path / "t.txt")])
    assert result.exit_code == 2 and ".csv or a .json" in result.output


@pytest.mark.parametrize("change, says", [
    ({"entries": [{"level": "level_99"}]}, "entry 1: unknown level 'level_99'"),
    ({"entries": [{"level": "level_1", "pace": 0.7}]}, "entry 1: this server offers a step every"),
    ({"entries": [{"level": "level_1", "agents": 2, "seat": 2, "pace": 3}]}, "entry 1: seat 2 but 2 agents"),
    ({"entries": [{"level": "level_1", "agents": 2, "seat": "1"}]}, "entries.0.seat"),
], ids=["unknown level", "pace not offered", "seat outside the team", "seat not a number"])
@pytest.mark.timeout(60)  # a study wrongly accepted would start the server and wait for Ctrl-C
def test_serve_refuses_a_study_it_could_not_run_in_one_line(tmp_path: Path, change: dict[str, Any], says: str) -> None:
    path = write(tmp_path, {**STUDY, **change})
    result = CliRunner().invoke(build_app(), ["serve", "--study", str(path), "--port", "0",
                                              "--recordings", str(tmp_path / "rooms")])
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output
