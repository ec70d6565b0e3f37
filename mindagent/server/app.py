"""The game server: one port, many rooms, in this process or sharded over room worker processes
(`workers`). Wiring, start and stop.

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
from urllib.parse import urlsplit

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from websockets.asyncio.server import Server, ServerConnection, serve

from mindagent.core import registry as domains
from mindagent.core.domain import Domain
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, make_brain
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm import telemetry
from mindagent.llm.redact import install_log_redaction, register_secret, register_url
from mindagent.server import prometheus
from mindagent.server.admission import CROWDED_SHARE, AddressBook, SocketGuard, peer_address
from mindagent.server.budgets import (
    ADMIN_RESERVE,
    MAX_PRACTICE,
    MAX_PRACTICE_PER_ADDRESS,
    PRACTICE_BURST,
    PRACTICE_RATE,
    PracticeBudget,
    PracticeLimits,
)
from mindagent.server.connection import Connection
from mindagent.server.desk import RoomDesk
from mindagent.server.disk_budget import RECORDINGS_BUDGET
from mindagent.server.fanout import SharedDeflateFactory
from mindagent.server.hosts import LocalRooms, RoomHost, StartupRoom
from mindagent.server.http import METRICS_PATH, StaticSite, served_names, text_response
from mindagent.server.lane import FrameLane
from mindagent.server.pacing import COUNTDOWN_S, HUMAN_TICK_S
from mindagent.server.protocol import HARD_FRAME_BYTES, VERSION
from mindagent.server.ratelimit import DEFAULT_CAPACITY, DEFAULT_RATE, HANDSHAKE_RATE, HandshakeGate
from mindagent.server.room import DECISION_TIMEOUT_S, MAX_MEMBERS, Room, RoomSettings
from mindagent.server.rooms import MAX_ROOMS, BrainFactory, RoomRegistry
from mindagent.server.settings import PlayerLimits
from mindagent.server.shards import ShardLost, ShardSet
from mindagent.server.study import StudyFile

log = logging.getLogger(__name__)

#: Seconds `/metrics` waits for the room workers' figures before answering without them.
METRICS_WAIT_S = 2.0

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
    #: New websocket connections per second from one address, after a burst of `max_per_address` + 2 s' worth.
    handshake_rate: float = HANDSHAKE_RATE
    #: permessage-deflate: "shared" compresses a broadcast once for all members (no context kept
    #: between messages: a state is ~9x bigger on the wire than with "member", which compresses
    #: per connection with context), "off" sends text uncompressed. See fanout.py.
    compression: Literal["shared", "member", "off"] = "shared"
    #: People's pace (pacing.py): real-time seconds per step while a person plays, and the countdown.
    human_tick: float | None = HUMAN_TICK_S
    countdown: float = COUNTDOWN_S
    #: Processes hosting rooms (1: this one; N > 1: N room workers behind this process's port).
    workers: int = 1
    #: Rooms at once (per process hosting rooms); practice rooms leave the last `admin_reserve` to the admin.
    max_rooms: int = MAX_ROOMS
    admin_reserve: int = ADMIN_RESERVE
    #: Anonymous practice rooms at once, in all and per address, and how fast one address opens them.
    max_practice: int = MAX_PRACTICE
    max_practice_per_address: int = MAX_PRACTICE_PER_ADDRESS
    practice_rate: float = PRACTICE_RATE
    practice_burst: float = PRACTICE_BURST
    #: Bytes every recording under `recordings` may take; past it the oldest practice recordings
    #: are deleted (None: no budget). The admin's rooms' recordings are never deleted.
    recordings_budget: int | None = RECORDINGS_BUDGET
    #: Once 3/4 of `max_connections` are in use, an address holding this many gets no more.
    crowded_share: int = CROWDED_SHARE

    def practice_limits(self) -> PracticeLimits:
        return PracticeLimits(self.max_practice, self.max_practice_per_address, self.practice_rate,
                              self.practice_burst, self.admin_reserve)
    #: What a person may choose in the lobby's "play" form (choices.py).
    player_limits: PlayerLimits = field(default_factory=PlayerLimits)
    #: `serve --study FILE`: the study each participant is walked through (study.py); None: no study.
    study: StudyFile | None = None

    def room_options(self) -> dict[str, Any]:
        """The settings every room of this server shares beyond the game (flags, not per room)."""
        return {"decision_timeout": self.decision_timeout, "dispatch": self.dispatch,
                "max_members": self.max_room_members}

    def startup_settings(self) -> RoomSettings | None:
        """The start-up room's settings (None: no start-up room)."""
        if self.startup is None:
            return None
        return RoomSettings(self.startup, self.model, self.model_why, self.mode, self.tick, self.turn_timeout,
                            self.startup_public, self.prompt, self.repair, autoplay=self.autoplay,
                            episodes=self.episodes, human_tick=self.human_tick, countdown=self.countdown,
                            **self.room_options())


def _compression(kind: str) -> dict[str, Any]:
    """websockets' `serve` arguments for a `ServerConfig.compression` choice."""
    if kind == "off":
        return {"compression": None}
    if kind == "member":
        return {"compression": "deflate"}
    return {"compression": "deflate", "extensions": [SharedDeflateFactory()]}


def _address(connection: ServerConnection) -> str:
    """The peer's IP address (the port differs per connection)."""
    return peer_address(connection.remote_address)


def protect_secrets(config: ServerConfig, admin_token: str) -> None:
    """Register what this process knows that must never be shown (the admin token, the model
    URL's credentials) with the model layer's redaction, and mask it in every log handler.

    Front and room workers each call it: the registry is per process."""
    register_secret(admin_token)
    base_url = config.brain_options.get("base_url")
    register_url(base_url if isinstance(base_url, str) else None)
    install_log_redaction()


class GameServer:
    """Serves the page on ``/`` and the protocol on ``/ws`` of one port."""

    def __init__(self, config: ServerConfig, brain_factory: BrainFactory | None = None) -> None:
        self.config = config
        self.admin_token = config.admin_token or secrets.token_urlsafe(18)
        protect_secrets(config, self.admin_token)
        self.scheduler = AsyncIOScheduler(timezone=UTC)

        def default_factory(model: str, domain: str) -> Brain:
            return make_brain(model, domains.get(domain), **config.brain_options)

        factory = brain_factory or default_factory
        names = served_names(config.host, tuple(config.hostnames))
        self._registry: RoomRegistry | None = None
        self.rooms: RoomHost
        if config.workers > 1:
            if brain_factory is not None:
                raise ValueError("room workers make their own dispatchers: a brain factory needs workers=1")
            self.rooms = ShardSet(config, self.admin_token)
        else:
            self._registry = RoomRegistry(self.scheduler, config.recordings, factory, self.admin_token,
                                          live_view=(config.host, names), max_rooms=config.max_rooms,
                                          max_practice=config.max_practice, admin_reserve=config.admin_reserve,
                                          recordings_budget=config.recordings_budget)
            self.rooms = LocalRooms(self._registry, RoomDesk(self._registry, config, self.domain),
                                    config.startup_settings())
        self.site = StaticSite(self._health, allowed_hosts=names)
        if self.site.allowed_hosts is None:
            log.warning("bound to %s with no host name given (--hostname): a request naming any host is served, so a "
                        "page on a name that resolves to this machine (DNS rebinding) can reach it", config.host or "*")
        if config.admin_token is not None and weak_token(config.admin_token):
            log.warning("the admin token is weak (under %d characters or one repeated character): anyone who "
                        "guesses it can create, close and re-model rooms; leave it unset for a random one",
                        MIN_TOKEN_CHARS)
        #: The start-up room as the banner tells of it (whichever process it lives in).
        self.startup: StartupRoom | None = None
        self.connections: set[Connection] = set()
        #: Client frames share the loop in slices, so no burst of them delays a room's clock.
        self.lane = FrameLane()
        self.addresses = AddressBook(config.max_connections, config.max_per_address, config.crowded_share)
        #: Sockets still in their handshake, per address (as many as the connections it may hold).
        self.sockets = SocketGuard(config.max_per_address)
        self.practice = PracticeBudget(config.practice_limits(), config.max_rooms * config.workers)
        # burst: a full set of tabs plus two seconds of reconnects
        self._handshakes = HandshakeGate(config.handshake_rate, config.max_per_address + 2 * config.handshake_rate)
        self._server: Server | None = None
        self._over: asyncio.Future[str | None] | None = None  # the start-up room's autoplay ended

    async def start(self) -> None:
        """Start the clock and the rooms' processes, open the start-up room (raises if its model
        fails), then listen."""
        self.scheduler.start()
        self._over = asyncio.get_running_loop().create_future()
        if isinstance(self.rooms, ShardSet):
            self.rooms.on_over = self._startup_over
        self.startup = await self.rooms.start()
        if isinstance(self.rooms, LocalRooms) and self.rooms.startup_room is not None:
            self.rooms.startup_room.on_over = self._startup_over
        self._server = await serve(
            self._handle, self.config.host, self.config.port, process_request=self._process_request,
            max_size=HARD_FRAME_BYTES, max_queue=32, ping_interval=20, ping_timeout=20, close_timeout=5,
            server_header="mindagent", create_connection=self.sockets.connection_class(),
            **_compression(self.config.compression))
        log.info("serving on %s", self.url)

    def _startup_over(self, error: str | None) -> None:
        if self._over is not None and not self._over.done():
            self._over.set_result(error)

    async def startup_played(self) -> str | None:
        """Wait until the autoplay start-up room will play no more episodes (`serve --episodes N`):
        None once its last episode ended, or the ``Kind: message`` of the error that ended it."""
        if self._over is None:
            raise RuntimeError("the server has not started")
        return await asyncio.shield(self._over)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        await self.rooms.stop()

    @property
    def registry(self) -> RoomRegistry:
        """The rooms of this process (only when it hosts them: `workers` is 1)."""
        if self._registry is None:
            raise RuntimeError("rooms live in worker processes (workers > 1); use server.rooms")
        return self._registry

    @property
    def startup_room(self) -> Room | None:
        """The start-up room object when it lives in this process (None with room workers)."""
        return self.rooms.startup_room if isinstance(self.rooms, LocalRooms) else None

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

    async def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        if urlsplit(request.path).path == METRICS_PATH:
            return self.site.gate(request) or text_response(await self.metrics_text(), prometheus.CONTENT_TYPE)
        if request.path.startswith("/ws"):
            address = _address(connection)
            refused = self.addresses.refusal(address)
            if refused is not None:
                return connection.respond(*refused)
            if not self._handshakes.admit(address):
                return connection.respond(429, "too many new connections from this address; wait a moment\n")
        return self.site.process_request(connection, request)

    async def _handle(self, ws: ServerConnection) -> None:
        conn = Connection(ws, self)
        address = _address(ws)
        self.connections.add(conn)
        self.addresses.add(address)
        try:
            await conn.serve()
        finally:
            self.connections.discard(conn)
            self.addresses.remove(address)
            self.practice.release(conn)

    def _health(self) -> dict[str, Any]:
        """``ok`` is false from the moment a room worker is found dead until its replacement has
        answered a ping (`ShardSet.healthy`); ``workers`` counts the ones answering."""
        health: dict[str, Any] = {"ok": True, "protocol": VERSION, "rooms": self.rooms.room_count(),
                                   "connections": len(self.connections)}
        if isinstance(self.rooms, ShardSet):
            health.update(ok=self.rooms.healthy(), workers=self.rooms.ready_count)
        return health

    async def metrics_text(self) -> str:
        """The ``/metrics`` page (`mindagent.server.prometheus`): gauges from this process, tick
        lateness and model calls from every process serving rooms."""
        sharded = self.rooms if isinstance(self.rooms, ShardSet) else None
        lags: list[float] | None = None
        models = telemetry.snapshot()
        try:
            async with asyncio.timeout(METRICS_WAIT_S):
                stats = await self.rooms.clock_stats()
            lags, models = stats.lags, stats.models or models
        except (TimeoutError, ShardLost) as exc:  # a worker dying or busy: the page still answers
            log.warning("/metrics without the room workers' figures (%s)", type(exc).__name__)
        gauges = prometheus.Gauges(
            rooms=self.rooms.room_count(), connections=len(self.connections), workers=self.config.workers,
            workers_ready=sharded.ready_count if sharded is not None else 1,
            healthy=sharded.healthy() if sharded is not None else True,
            restarts=sharded.restarts if sharded is not None else 0)
        return prometheus.render(gauges, lags, models)
