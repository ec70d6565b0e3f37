"""The practice flood of issue #28, scaled down for the slow tier: one address opening practice
rooms as fast as the frame rate allows, on one process and on `--workers 2` (the budget is kept
by the front, so it holds across workers). The full flood, with the other room's lateness, is
benchmarks/practice_flood.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.disk_budget import PRACTICE_FOLDER

from .conftest import Client

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


async def flood(server: GameServer, connections: int, seconds: float) -> tuple[int, int]:
    """`connections` websockets from 127.0.0.1, each sending 9 ``practice`` frames a second;
    returns (rooms opened, refusals)."""
    opened: list[Any] = []
    clients = []
    for _ in range(connections):
        ws = await connect(server.ws_url, max_size=None)
        opened.append(ws)
        clients.append(Client(ws))

    async def one(c: Client) -> None:
        async def send() -> None:
            for _ in range(int(seconds * 9)):
                await c.send(type="practice")
                await asyncio.sleep(1 / 9)

        async def read() -> None:
            try:
                while True:
                    await c.next(timeout=1.0)
            except TimeoutError:
                return

        await asyncio.gather(send(), read())

    try:
        await asyncio.gather(*(one(c) for c in clients))
    finally:
        for ws in opened:
            await ws.close()
    joined = sum(1 for c in clients for m in c.seen if m["type"] == "joined")
    refused = sum(1 for c in clients for m in c.seen if m["type"] == "error")
    return joined, refused


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_practice_flood_leaves_the_admin_a_room_and_writes_nothing(tmp_path: Path, workers: int) -> None:
    config = ServerConfig(port=0, model="random", model_why="test", tick=0.1, human_tick=None, countdown=0,
                          recordings=tmp_path / "rooms", workers=workers, max_rooms=40, admin_reserve=10,
                          startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 5000))
    async with GameServer(config) as server:
        joined, refused = await flood(server, connections=16, seconds=4.0)
        limits = config.practice_limits()
        assert 1 <= joined <= limits.burst + 4 * limits.rate + 2
        assert refused >= 16 * 4 * 9 - joined - 16  # all but a few of the rest were refused, none lost
        async with connect(server.ws_url, max_size=None) as ws:
            admin = Client(ws)
            await admin.next("welcome")
            created = await admin.request("create_room", admin_token=server.admin_token, agents=2)
            assert created["type"] == "room_created"
        async with asyncio.timeout(10):  # the flood's connections are gone, and their rooms with them
            while server.rooms.room_count() > 2:
                await asyncio.sleep(0.05)
    folder = config.recordings / PRACTICE_FOLDER
    assert not folder.exists() or not list(folder.iterdir())
