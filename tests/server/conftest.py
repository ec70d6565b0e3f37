"""Helpers for the game-server tests: a tiny test policy, a websocket client, a server fixture.

`TinyPolicy` stands in for the built-in planner so these tests do not depend on it: it is a
seeded pick among each agent's legal commands, which is all a room needs from a dispatcher.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from websockets.asyncio.client import ClientConnection, connect

from mindagent.core.registry import make_session
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, PolicyBrain
from mindagent.server import GameServer, ServerConfig
from mindagent.server.room import Room, RoomSettings


class TinyPolicy:
    """A seeded random pick among legal commands, for every agent (the room keeps the ones it controls)."""

    name = "tiny-test-policy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def reset(self, session: object) -> None:
        return None

    def act(self, session: Any) -> list[str]:
        return [self.rng.choice(session.world.legal_commands(a)) for a in range(session.n_agents)]


def tiny_brain(model: str = "tiny", domain: str = "cuisineworld") -> Brain:
    return PolicyBrain(TinyPolicy())


class FakeMember:
    """A room member that keeps what it is sent (for driving a `Room` without a network)."""

    def __init__(self, name: str = "tester") -> None:
        self.name = name
        self.inbox: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.inbox.append(message)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.inbox if m["type"] == kind]


@pytest.fixture
def make_room(tmp_path: Path) -> Callable[..., Awaitable[Room]]:
    """``await make_room(brain=None, agents=2, mode="realtime", steps=None)``: an open room, not scheduled."""

    async def _make(brain: Brain | None = None, *, agents: int = 2, mode: str = "realtime", steps: int | None = None,
                    turn_timeout: float = 30.0, level: str = "level_3") -> Room:
        settings = RoomSettings(GameSpec("cuisineworld", level, agents, 1.0, 0, "reference", steps), "tiny", "test", mode,  # type: ignore[arg-type]
                                0.05, turn_timeout)
        room = Room("testroom", None, settings, make_session(settings.spec), brain or tiny_brain(), tmp_path / "rec")
        await room.open()
        return room

    return _make


@pytest.fixture
def member() -> Callable[[str], FakeMember]:
    """``member("name")``: a room member that keeps what it is sent."""
    return FakeMember


class Client:
    """A protocol client over a real websocket; keeps every message it received."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []
        self._seq = 0

    async def send(self, **message: Any) -> int:
        self._seq += 1
        await self.ws.send(json.dumps({"v": 1, "id": self._seq, **message}))
        return self._seq

    async def raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def next(self, kind: str | None = None, where: Callable[[dict[str, Any]], bool] = lambda m: True,
                   timeout: float = 10.0) -> dict[str, Any]:
        """The next message of `kind` (any kind if None) for which `where` holds."""
        async def read() -> dict[str, Any]:
            while True:
                message = json.loads(await self.ws.recv())
                self.seen.append(message)
                if (kind is None or message["type"] == kind) and where(message):
                    return message

        return await asyncio.wait_for(read(), timeout)

    async def request(self, kind: str, timeout: float = 10.0, **message: Any) -> dict[str, Any]:
        """Send and return the direct reply (the message whose "re" is our id)."""
        sent = await self.send(type=kind, **message)
        return await self.next(None, lambda m: m.get("re") == sent, timeout)


ClientFactory = Callable[[], Awaitable[Client]]


@pytest.fixture
def brain_factory() -> Callable[[str], Brain]:
    return tiny_brain


@pytest_asyncio.fixture
async def server(tmp_path: Path, brain_factory: Callable[[str], Brain]) -> AsyncIterator[GameServer]:
    """A real server on a free loopback port; its start-up room is public, 2 agents, ticking every 0.05 s."""
    srv = GameServer(tiny_config(tmp_path), brain_factory=brain_factory)
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def tiny_config(tmp_path: Path, **fields: Any) -> ServerConfig:
    """The test server's settings: a public 2-agent start-up room ticking every 0.05 s."""
    return ServerConfig(port=0, model="tiny", model_why="the test's tiny policy", tick=0.05, human_tick=None, countdown=0,
                        recordings=tmp_path / "rooms",
                        startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 500), **fields)


async def welcomed(server: GameServer, opened: list[ClientConnection], source: str | None = None) -> Client:
    """A protocol client on `server` (from loopback address `source` if given) that has read its
    welcome; its socket is added to `opened` for the fixture to close."""
    ws = await connect(server.ws_url, max_size=None, **({"local_addr": (source, 0)} if source else {}))
    opened.append(ws)
    c = Client(ws)
    await c.next("welcome")
    return c


@pytest_asyncio.fixture
async def client(server: GameServer) -> AsyncIterator[ClientFactory]:
    """Open protocol clients on `server`; each has read its welcome message."""
    opened: list[ClientConnection] = []

    async def open_client() -> Client:
        return await welcomed(server, opened)

    try:
        yield open_client
    finally:
        for ws in opened:
            await ws.close()


