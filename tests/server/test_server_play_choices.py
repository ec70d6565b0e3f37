"""A person picks a level, team, partner and pace in the lobby (`protocol.Play`, `choices.py`).

Hostile values get one clear error and change nothing; a good choice opens a private room with
exactly that game, the person in it, and the choice in the recording's header and the results.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.server import GameServer
from mindagent.server.protocol import Play, parse_client

GOOD = {"v": 1, "type": "play", "level": "level_2", "agents": 2, "partner": "planner", "pace": 3.0}
HOSTILE = [
    {"level": "../../etc/passwd"}, {"level": ""}, {"level": "x" * 65}, {"agents": 0}, {"agents": 9},
    {"agents": "2"}, {"agents": 2.0}, {"agents": True}, {"partner": "gpt-4"}, {"partner": None},
    {"pace": 0}, {"pace": -3}, {"pace": "3"}, {"pace": 1e308}, {"level": None}, {"extra": 1},
]


@pytest.mark.parametrize("change", HOSTILE, ids=[json.dumps(c)[:40] for c in HOSTILE])
def test_a_hostile_play_frame_is_invalid(change: dict[str, Any]) -> None:
    msg, err, _ = parse_client(json.dumps({**GOOD, **change}))
    assert msg is None and err is not None and err.code == "invalid", (change, err)


def test_not_a_number_and_infinity_are_refused() -> None:
    for text in ('{"v":1,"type":"play","level":"level_2","agents":2,"partner":"planner","pace":NaN}',
                 '{"v":1,"type":"play","level":"level_2","agents":2,"partner":"planner","pace":Infinity}'):
        msg, err, _ = parse_client(text)
        assert msg is None and err is not None and err.code == "invalid"


def test_a_good_frame_parses() -> None:
    msg, err, _ = parse_client(json.dumps(GOOD))
    assert err is None and isinstance(msg, Play) and (msg.level, msg.agents, msg.partner, msg.pace) == ("level_2", 2, "planner", 3.0)


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["level", "agents", "partner", "pace", "id", "junk"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=80))))
def test_any_play_frame_parses_or_is_invalid(change: dict[str, Any]) -> None:
    msg, err, _ = parse_client(json.dumps({**GOOD, **change}))
    assert (msg is None) != (err is None)
    assert err is None or err.code == "invalid"


@pytest.mark.asyncio
async def test_the_welcome_offers_choices_within_the_servers_limits(server: GameServer, client: Any) -> None:
    c = await client()
    welcome = c.seen[0]
    choices = welcome["choices"]
    assert choices["agents"] == [1, 4] and choices["paces"][0] == 3.0
    assert {p["id"] for p in choices["partners"]} == {"planner", "model", "random"}
    labels = {lv["level"]: lv["difficulty"] for lv in choices["levels"]}
    assert labels["level_2"] == "easy" and labels["level_12"] == "hard"


@pytest.mark.asyncio
@pytest.mark.parametrize("change", [{"level": "level_99"}, {"agents": 6}, {"pace": 0.5}],
                         ids=["unknown level", "team over the limit", "pace not offered"])
async def test_a_choice_outside_the_limits_is_refused(server: GameServer, client: Any, change: dict[str, Any]) -> None:
    c = await client()
    before = set(server.registry.rooms)
    reply = await c.request("play", **{k: v for k, v in {**GOOD, **change}.items() if k not in ("v", "type")})
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    assert set(server.registry.rooms) == before


@pytest.mark.asyncio
async def test_a_choice_opens_that_game_and_is_recorded(server: GameServer, client: Any) -> None:
    c = await client()
    reply = await c.request("play", level="level_2", agents=3, partner="random", pace=2.0)
    assert reply["type"] == "joined" and reply["role"] == "player" and reply["agent"] == 0, reply
    room = server.registry.get(reply["room"])
    assert room.secret is not None, "a person's own room is private"
    assert (room.settings.spec.level, room.session.n_agents, room.settings.model, room.period) == ("level_2", 3, "random", 2.0)
    room.start()
    assert await room.step()  # the recording opens with the first played step
    header = json.loads(room.log.path.read_text().splitlines()[0]) if room.log.path else {}
    assert header["chosen"] == {"level": "level_2", "agents": 3, "partner": "random", "pace": 2.0}
    await c.request("leave")
    assert room.id not in server.registry.rooms, "the room closes when its person leaves"
