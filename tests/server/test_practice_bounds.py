"""Anonymous practice rooms are bounded work (issue #28): per address, in all, never the admin's
last rooms, opened only so fast; they close when their player leaves, and write a recording only
once something was played. Real websockets against a real `GameServer` on a free port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from mindagent.recordings.recording import read_recording
from mindagent.server import GameServer, ServerConfig
from mindagent.server.disk_budget import PRACTICE_FOLDER

from .conftest import Client, tiny_brain, tiny_config, welcomed

Opener = Callable[..., Any]


def practice_rooms(server: GameServer) -> list[Any]:
    return [room for room in server.registry.rooms.values() if room.settings.practice]


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


@pytest_asyncio.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """``await make_server(**config)``: a started server (start-up room public, 2 agents) with those settings."""
    started: list[GameServer] = []

    async def make(**fields: Any) -> GameServer:
        server = GameServer(tiny_config(tmp_path, **fields), brain_factory=lambda model, domain: tiny_brain())
        await server.start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            await server.stop()


@pytest_asyncio.fixture
async def opener() -> AsyncIterator[Opener]:
    """``await opener(server, source="127.0.0.1")``: a protocol client from that loopback address."""
    opened: list[Any] = []

    async def open_client(server: GameServer, source: str = "127.0.0.1") -> Client:
        return await welcomed(server, opened, source)

    try:
        yield open_client
    finally:
        for ws in opened:
            await ws.close()


@pytest.mark.asyncio
async def test_practice_rooms_per_address_are_capped(make_server: Any, opener: Opener) -> None:
    server = await make_server(max_practice_per_address=2)
    clients = [await opener(server) for _ in range(3)]
    assert (await clients[0].request("practice"))["type"] == "joined"
    assert (await clients[1].request("practice"))["type"] == "joined"
    refused = await clients[2].request("practice")
    assert refused["type"] == "error" and refused["code"] == "bad_state" and "per address" in refused["message"]
    other = await opener(server, "127.0.0.2")  # another address has its own share
    assert (await other.request("practice"))["type"] == "joined"
    assert len(practice_rooms(server)) == 3
    assert (await clients[0].request("leave"))["type"] == "left"  # leaving closes it and frees the slot
    await until(lambda: len(practice_rooms(server)) == 2)
    assert (await clients[2].request("practice"))["type"] == "joined"


@pytest.mark.asyncio
async def test_opening_practice_rooms_is_rate_limited_and_replacing_keeps_one(make_server: Any, opener: Opener) -> None:
    server = await make_server(practice_rate=0.2, practice_burst=3)
    me = await opener(server)
    answers = [await me.request("practice") for _ in range(5)]
    assert [a["type"] for a in answers[:3]] == ["joined"] * 3
    assert all(a["type"] == "error" and a["code"] == "rate_limited" for a in answers[3:])
    await until(lambda: len(practice_rooms(server)) == 1)  # each new one replaced the last


@pytest.mark.asyncio
async def test_practice_never_takes_the_admins_last_rooms(make_server: Any, opener: Opener) -> None:
    server = await make_server(max_rooms=6, admin_reserve=3, max_practice_per_address=10)
    people = [await opener(server, f"127.0.0.{n}") for n in range(2, 6)]
    answers = [await person.request("practice") for person in people]
    # the start-up room and two practice rooms make 3 = 6 - 3: the rest are the admin's
    assert [a["type"] for a in answers] == ["joined", "joined", "error", "error"]
    assert "nearly full" in answers[2]["message"]
    admin = await opener(server)
    for _ in range(3):
        created = await admin.request("create_room", admin_token=server.admin_token, agents=2)
        assert created["type"] == "room_created"
    assert server.rooms.room_count() == 6


@pytest.mark.asyncio
async def test_practice_rooms_in_all_are_capped(make_server: Any, opener: Opener) -> None:
    server = await make_server(max_practice=2)
    people = [await opener(server, f"127.0.0.{n}") for n in range(2, 5)]
    answers = [await person.request("practice") for person in people]
    assert [a["type"] for a in answers] == ["joined", "joined", "error"]
    assert "every practice room is taken" in answers[2]["message"]


CHOSEN = {"level": "level_2", "agents": 2, "partner": "planner", "pace": 3.0}


@pytest.mark.asyncio
async def test_chosen_games_share_the_practice_budget(make_server: Any, opener: Opener) -> None:
    """The lobby's `play` games cost what practice rooms cost, so a flood must not be able to
    open them past the budget: per address, in all, and the admin keeps the last rooms."""
    server = await make_server(max_practice_per_address=2)
    clients = [await opener(server) for _ in range(3)]
    assert (await clients[0].request("practice"))["type"] == "joined"
    assert (await clients[1].request("play", **CHOSEN))["type"] == "joined"
    refused = await clients[2].request("play", **CHOSEN)
    assert refused["type"] == "error" and refused["code"] == "bad_state" and "per address" in refused["message"]
    assert (await clients[1].request("play", **CHOSEN))["type"] == "joined"  # replacing your own game is fine
    assert (await clients[1].request("leave"))["type"] == "left"
    await until(lambda: not any(r.settings.chosen is not None for r in server.registry.rooms.values()))
    assert (await clients[2].request("play", **CHOSEN))["type"] == "joined"
    full = await make_server(max_rooms=4, admin_reserve=2, max_practice_per_address=10)
    first, second = await opener(full, "127.0.0.2"), await opener(full, "127.0.0.3")
    assert (await first.request("play", **CHOSEN))["type"] == "joined"  # the start-up room and this make 2 = 4 - 2
    assert "nearly full" in (await second.request("play", **CHOSEN))["message"]
    admin = await opener(full)
    assert (await admin.request("create_room", admin_token=full.admin_token, agents=2))["type"] == "room_created"


@pytest.mark.asyncio
async def test_opening_chosen_games_is_rate_limited(make_server: Any, opener: Opener) -> None:
    server = await make_server(practice_rate=0.2, practice_burst=2)
    me = await opener(server)
    answers = [await me.request("play" if i % 2 else "practice", **(CHOSEN if i % 2 else {})) for i in range(4)]
    assert [a["type"] for a in answers[:2]] == ["joined"] * 2
    assert all(a["type"] == "error" and a["code"] == "rate_limited" for a in answers[2:])


@pytest.mark.asyncio
async def test_a_practice_room_closes_when_its_player_goes(make_server: Any, opener: Opener) -> None:
    server = await make_server()
    mover = await opener(server)
    await mover.request("practice")
    startup = server.startup_room
    assert startup is not None
    assert (await mover.request("join", room=startup.id))["type"] == "joined"  # moving on closes it
    await until(lambda: not practice_rooms(server))
    leaver = await opener(server)
    await leaver.request("practice")
    await leaver.ws.close()  # disconnecting closes it
    await until(lambda: not practice_rooms(server))
    again = await opener(server)  # and the budget forgot both
    assert (await again.request("practice"))["type"] == "joined"
    assert server.practice.held("127.0.0.1") == 1


@pytest.mark.asyncio
async def test_a_practice_room_writes_a_recording_only_once_something_was_played(make_server: Any,
                                                                                 opener: Opener) -> None:
    server = await make_server()
    folder = server.config.recordings / PRACTICE_FOLDER
    idle = await opener(server)
    for _ in range(3):
        await idle.request("practice")
        assert (await idle.request("start"))["type"] == "ack"  # started, nothing played
    await idle.request("leave")
    await until(lambda: not practice_rooms(server))
    assert not folder.exists() or not list(folder.iterdir())
    player = await opener(server)
    await player.request("practice")
    await player.request("start")
    room = practice_rooms(server)[0]
    command = room.session.world.legal_commands(0)[0]
    assert (await player.request("command", command=command))["type"] == "queued"
    await until(lambda: room.session.step_index == 1)
    await player.request("leave")
    await until(lambda: not practice_rooms(server))
    files = list(folder.iterdir())
    assert len(files) == 1
    kinds = [r["type"] for r in read_recording(files[0])]
    assert kinds[0] == "header" and kinds.count("step") == 1


@pytest.mark.asyncio
async def test_practice_frames_under_the_frame_rate_open_few_rooms(make_server: Any, opener: Opener) -> None:
    """A small flood at 9 practice frames a second per connection: the rooms opened stay within
    the burst plus the rate, nothing is recorded, and the admin still creates rooms."""
    server = await make_server()
    flooders = [await opener(server) for _ in range(8)]

    async def flood(c: Client) -> None:
        for _ in range(18):
            await c.send(type="practice")
            await asyncio.sleep(1 / 9)

    async def drain(c: Client) -> None:
        try:
            while True:
                await c.next(timeout=0.5)
        except TimeoutError:
            return

    await asyncio.gather(*(asyncio.gather(flood(c), drain(c)) for c in flooders))
    opened = sum(1 for c in flooders for m in c.seen if m["type"] == "joined")
    limits = server.config.practice_limits()
    assert 1 <= opened <= limits.burst + 3 * limits.rate + 1
    assert len(practice_rooms(server)) <= limits.per_address
    admin = await opener(server)
    assert (await admin.request("create_room", admin_token=server.admin_token))["type"] == "room_created"
    folder = server.config.recordings / PRACTICE_FOLDER
    assert not folder.exists() or not list(folder.iterdir())


def test_the_practice_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        ServerConfig(practice_rate=0).practice_limits()
    with pytest.raises(ValueError):
        ServerConfig(max_practice=-1).practice_limits()


@pytest.mark.asyncio
async def test_any_room_started_and_closed_before_a_step_writes_nothing(make_room: Any, member: Any,
                                                                        tmp_path: Path) -> None:
    room = await make_room(mode="turns")
    me = member("me")
    room.join(me, "player", 0)
    room.start()
    assert room.status == "running"
    await room.close()
    assert not (tmp_path / "rec").exists() or not list((tmp_path / "rec").iterdir())


@pytest.mark.asyncio
async def test_a_practice_room_left_by_its_player_never_steps(make_server: Any, opener: Opener) -> None:
    """Between its player's leaving and its closing, a tick found the turn 'ready' (nobody left to
    wait for) and played an idle step, which wrote a recording of nothing."""
    server = await make_server()
    me = await opener(server)
    await me.request("practice")
    await me.request("start")
    room = practice_rooms(server)[0]
    room.leave(next(iter(room.seats.members)), quiet=True)  # as the desk does when it replaces the room
    assert not await room.step(force=True)
    assert room.session.step_index == 0 and not room.log.open
