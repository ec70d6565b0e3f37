"""Fan-out that scales: a spectator's join or leave costs the others one coalesced state (not a
full state each, encoded per member), a broadcast is encoded once for all members, and rooms and
addresses have caps. Before, 500 spectators joining one room let another room run 30 of 189 steps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from mindagent.server import GameServer, ServerConfig
from mindagent.server.fanout import Frame
from mindagent.server.protocol import ProtocolError
from mindagent.server.room import COALESCE_S


@pytest.mark.asyncio
async def test_spectator_churn_costs_one_coalesced_state(make_room: Any, member: Any) -> None:
    room = await make_room()
    crowd = [member(f"s{n}") for n in range(50)]
    for person in crowd:
        room.join(person, "spectator")
    await asyncio.sleep(COALESCE_S * 2)
    for person in crowd:
        person.inbox.clear()
    for n in range(20):  # twenty more come and go
        extra = member(f"x{n}")
        room.join(extra, "spectator")
        assert extra.of_type("joined")  # the newcomer is greeted with its state at once
        room.leave(extra)
    assert all(not p.inbox for p in crowd)  # nothing yet: no state per join
    await asyncio.sleep(COALESCE_S * 2)
    states = [p.of_type("state") for p in crowd]
    assert all(len(s) == 1 for s in states)  # one state for all forty changes
    first = states[0][0]
    assert isinstance(first, Frame) and all(s[0] is first for s in states)  # encoded once for all of them
    assert first["people"]["spectator"] == 50


@pytest.mark.asyncio
async def test_a_player_joining_is_still_announced_at_once(make_room: Any, member: Any) -> None:
    room = await make_room()
    watcher, player = member("w"), member("p")
    room.join(watcher, "spectator")
    watcher.inbox.clear()
    room.join(player, "player", 0)
    assert watcher.of_type("event") and watcher.of_type("state")


@pytest.mark.asyncio
async def test_a_full_room_refuses_more_members(make_room: Any, member: Any) -> None:
    room = await make_room()
    room.settings.max_members = 3
    people = [member(f"m{n}") for n in range(3)]
    for person in people:
        room.join(person, "spectator")
    with pytest.raises(ProtocolError) as refused:
        room.join(member("late"), "spectator")
    assert refused.value.code == "bad_state" and "full" in refused.value.message
    room.join(people[0], "player", 0)  # a member changing seat is not a new member


@pytest.mark.slow
@pytest.mark.asyncio
async def test_connections_per_address_are_capped(tmp_path: Any) -> None:
    config = ServerConfig(port=0, model="planner", startup=None, recordings=tmp_path, max_per_address=2)
    async with GameServer(config) as server:
        first = await connect(server.ws_url)
        second = await connect(server.ws_url)
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.ws_url)
        assert refused.value.response.status_code == 429
        await first.close()
        await asyncio.sleep(0.1)
        third = await connect(server.ws_url)  # a slot freed
        await second.close()
        await third.close()


@pytest.mark.slow
@pytest.mark.asyncio
async def test_new_connections_per_address_are_rate_limited_before_the_handshake(tmp_path: Any) -> None:
    """An address reconnecting in a loop gets 429 before any welcome is built (it used to cost a
    listing of every room per connection, at any rate)."""
    config = ServerConfig(port=0, model="planner", startup=None, recordings=tmp_path, max_per_address=3,
                          handshake_rate=1.0)
    async with GameServer(config) as server:
        for _ in range(5):  # the burst: 3 tabs + 2 s of reconnects
            ws = await connect(server.ws_url)
            await ws.close()
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.ws_url)
        assert refused.value.response.status_code == 429
        assert b"new connections" in refused.value.response.body
        await asyncio.sleep(1.2)  # a token a second comes back
        ws = await connect(server.ws_url)
        await ws.close()
