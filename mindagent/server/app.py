"""The game server: one process, one port, many rooms. Wiring, start and stop.

Example::

    server = GameServer(ServerConfig(port=0, model="planner", model_why="tests"))
    await server.start()              # binds 127.0.0.1, opens the start-up room
    print(server.url, server.admin_token)
    ...
    await server.stop()
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any, Literal

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from websockets.asyncio.server import Server, ServerConnection, serve

from mindagent import domains
from mindagent.brains import Brain, make_brain
from mindagent.dispatcher import DispatchSettings
from mindagent.domain import Domain
from mindagent.prompt.builder import PromptConfig
from mindagent.server.connection import Connection
from mindagent.server.fanout import SharedDeflateFactory
from mindagent.server.http import StaticSite, served_names
from mindagent.server.lane import FrameLane
from mindagent.server.pacing import COUNTDOWN_S, HUMAN_TICK_S
from mindagent.server.protocol import HARD_FRAME_BYTES, VERSION
from mindagent.server.ratelimit import DEFAULT_CAPACITY, DEFAULT_RATE
from mindagent.server.room import DECISION_TIMEOUT_S, MAX_MEMBERS, Room, RoomSettings
from mindagent.server.rooms import BrainFactory, RoomRegistry
from mindagent.spec import GameSpec

log = logging.getLogger(__name__)

#: Simultaneous websocket connections; more are turned away with 503 before the handshake.
MAX_CONNECTIONS = 2000
#: Simultaneous websocket connections from one address (a browser needs one per tab).
MAX_PER_ADDRESS = 64
#: An admin token shorter than this is warned about at start.
MIN_TOKEN_CHARS = 16


def weak_token(token: str) -> bool:
    """Short, or one character repeated: guessable by anyone who can reach the port."""
    return len(token) < MIN_TOKEN_CHARS or len(set(token)) <= 2


@dataclass
class ServerConfig:
    """Everything `mindagent serve` decides. `startup` is the room opened at start (None: none)."""

    host: str = "127.0.0.1"
    port: int = 8765
    model: str = "planner"
    model_why: str = "given on the command line"
    mode: Literal["realtime", "turns"] = "realtime"
    tick: float = 1.0
    turn_timeout: float = 30.0
    recordings: Path = Path("recordings/rooms")
    admin_token: str | None = None
    startup: GameSpec | None = field(default_factory=lambda: GameSpec(level="level_3", agents=4, tau=1.0))
    startup_public: bool = True
    prompt: PromptConfig = field(default_factory=PromptConfig)
    repair: int = 0
    rate: float = DEFAULT_RATE
    burst: float = DEFAULT_CAPACITY
    max_connections: int = MAX_CONNECTIONS
    brain_options: dict[str, Any] = field(default_factory=dict)  # base_url, model_path, temperature...
    #: The start-up room plays episodes back to back without waiting for a person (a live world).
    autoplay: bool = False
    episodes: int | None = None
    #: Seconds a dispatcher decision may take (`--timeout`); its agents idle meanwhile.
    decision_timeout: float = DECISION_TIMEOUT_S
    dispatch: DispatchSettings | None = None  # None: per room, goal mode for an in-process model
    #: Extra Host names the server answers to besides its bound address (a reverse proxy's name).
    hostnames: list[str] = field(default_factory=list)

    #: Members of one room at once, and websocket connections from one address at once.
    max_room_members: int = MAX_MEMBERS
    max_per_address: int = MAX_PER_ADDRESS
    #: permessage-deflate: "shared" compresses a broadcast once for all members (no context kept
    #: between messages: a state is ~9x bigger on the wire than with "member", which compresses
    #: per connection with context), "off" sends text uncompressed. See fanout.py.
    compression: Literal["shared", "member", "off"] = "shared"

    def room_options(self) -> dict[str, Any]:
        """The settings every room of this server shares beyond the game (flags, not per room)."""
        return {"decision_timeout": self.decision_timeout, "dispatch": self.dispatch,
                "max_members": self.max_room_members}
    #: People's pace (pacing.py): real-time seconds per step while a person plays, and the countdown.
    human_tick: float | None = HUMAN_TICK_S
    countdown: float = COUNTDOWN_S


def _compression(kind: str) -> dict[str, Any]:
    """websockets' `serve` arguments for a `ServerConfig.compression` choice."""
    if kind == "off":
        return {"compression": None}
    if kind == "member":
        return {"compression": "deflate"}
    return {"compression": "deflate", "extensions": [SharedDeflateFactory()]}


def _address(connection: ServerConnection) -> str:
    """The peer's IP address (the port differs per connection)."""
    peer = connection.remote_address
    return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)


class GameServer:
    """Serves the page on ``/`` and the protocol on ``/ws`` of one port."""

    def __init__(self, config: ServerConfig, brain_factory: BrainFactory | None = None) -> None:
        self.config = config
        self.admin_token = config.admin_token or secrets.token_urlsafe(18)
        self.scheduler = AsyncIOScheduler(timezone=UTC)

        def default_factory(model: str, domain: str) -> Brain:
            return make_brain(model, domains.get(domain), **config.brain_options)

        factory = brain_factory or default_factory
        names = served_names(config.host, tuple(config.hostnames))
        self.registry = RoomRegistry(self.scheduler, config.recordings, factory, self.admin_token,
                                     live_view=(config.host, names))
        self.site = StaticSite(self._health, allowed_hosts=names)
        if self.site.allowed_hosts is None:
            log.warning("bound to %s with no host name given (--hostname): a request naming any host is served, so a "
                        "page on a name that resolves to this machine (DNS rebinding) can reach it", config.host or "*")
        if config.admin_token is not None and weak_token(config.admin_token):
            log.warning("the admin token is weak (under %d characters or one repeated character): anyone who "
                        "guesses it can create, close and re-model rooms; leave it unset for a random one",
                        MIN_TOKEN_CHARS)
        self.startup_room: Room | None = None
        self.connections: set[Connection] = set()
        #: Client frames share the loop in slices, so no burst of them delays a room's clock.
        self.lane = FrameLane()
        self._per_address: dict[str, int] = {}
        self._server: Server | None = None

    async def start(self) -> None:
        """Start the clock and the listener, then open the start-up room (raises if its model fails)."""
        self.scheduler.start()
        self._server = await serve(
            self._handle, self.config.host, self.config.port, process_request=self._process_request,
            max_size=HARD_FRAME_BYTES, max_queue=32, ping_interval=20, ping_timeout=20, close_timeout=5,
            server_header="mindagent", **_compression(self.config.compression))
        if self.config.startup is not None:
            settings = RoomSettings(self.config.startup, self.config.model, self.config.model_why, self.config.mode,
                                    self.config.tick, self.config.turn_timeout, self.config.startup_public,
                                    self.config.prompt, self.config.repair, autoplay=self.config.autoplay,
                                    episodes=self.config.episodes, human_tick=self.config.human_tick,
                                    countdown=self.config.countdown, **self.config.room_options())
            self.startup_room = await self.registry.create(settings)
        log.info("serving on %s", self.url)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        await self.registry.close_all()

    async def serve_forever(self) -> None:
        await self.start()
        try:
            await asyncio.Future()
        finally:
            await self.stop()

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def domain(self) -> Domain:
        """The server's own domain: its start-up room's, and the default for new rooms."""
        return domains.get(self.config.startup.domain if self.config.startup is not None else None)

    @property
    def port(self) -> int:
        if self._server is None:
            return self.config.port
        return int(next(iter(self._server.sockets)).getsockname()[1])

    @property
    def url(self) -> str:
        host = self.config.host if ":" not in self.config.host else f"[{self.config.host}]"
        return f"http://{host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1) + "ws"

    def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        if request.path.startswith("/ws"):
            if len(self.connections) >= self.config.max_connections:
                return connection.respond(503, "too many connections\n")
            if self._per_address.get(_address(connection), 0) >= self.config.max_per_address:
                return connection.respond(429, "too many connections from this address\n")
        return self.site.process_request(connection, request)

    async def _handle(self, ws: ServerConnection) -> None:
        conn = Connection(ws, self)
        address = _address(ws)
        self.connections.add(conn)
        self._per_address[address] = self._per_address.get(address, 0) + 1
        try:
            await conn.serve()
        finally:
            self.connections.discard(conn)
            left = self._per_address.get(address, 1) - 1
            if left > 0:
                self._per_address[address] = left
            else:
                self._per_address.pop(address, None)

    def _health(self) -> dict[str, Any]:
        return {"ok": True, "protocol": VERSION, "rooms": len(self.registry.rooms),
                "connections": len(self.connections)}
