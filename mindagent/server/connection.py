"""One websocket connection: read frames, rate-limit, validate, act, answer; never crash a room.

Outgoing messages go through a bounded queue drained by a writer task, so a slow browser never
holds up a room's tick; a connection that falls too far behind is closed (1013).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from mindagent import domains
from mindagent.domain import SpecError
from mindagent.server import protocol as p
from mindagent.server.fanout import text_of
from mindagent.server.ratelimit import TokenBucket
from mindagent.server.room import Room, RoomSettings
from mindagent.spec import GameSpec

if TYPE_CHECKING:
    from mindagent.server.app import GameServer

log = logging.getLogger(__name__)

#: Messages waiting for a slow client before it is disconnected.
SEND_QUEUE = 512
#: Frames dropped in a row (rate limit) before the connection is closed as abusive (1008).
MAX_DROPPED = 300
_ids = itertools.count(1)


class Connection:
    """A `Member` of at most one room at a time."""

    def __init__(self, ws: ServerConnection, server: GameServer) -> None:
        self.ws = ws
        self.server = server
        self.name = f"guest{next(_ids)}"
        self.room: Room | None = None
        self.bucket = TokenBucket(server.config.rate, server.config.burst)
        self._out: asyncio.Queue[str | None] = asyncio.Queue(SEND_QUEUE)
        self._closing = False
        self._closer: asyncio.Task[None] | None = None
        self._handlers: dict[str, Callable[[Any, object], Awaitable[None]]] = {
            "ping": self._ping, "list_rooms": self._list_rooms, "create_room": self._create_room, "join": self._join,
            "leave": self._leave, "practice": self._practice, "command": self._command, "instruct": self._instruct, "start": self._start,
            "restart": self._restart, "set_model": self._set_model, "close_room": self._close_room,
            "questionnaire": self._questionnaire,
        }

    # ---------------------------------------------------------------- output
    def push(self, message: dict[str, Any]) -> None:
        if self._closing:
            return
        try:
            self._out.put_nowait(text_of(message))  # a broadcast's text is encoded once for all
        except asyncio.QueueFull:
            log.warning("%s is too slow; closing", self.name)
            self._closing = True
            self._closer = asyncio.get_running_loop().create_task(self.ws.close(1013, "too slow: messages piled up"))

    async def _writer(self) -> None:
        try:
            while (text := await self._out.get()) is not None:
                await self.ws.send(text)
        except ConnectionClosed:
            pass

    # ----------------------------------------------------------------- input
    async def serve(self) -> None:
        lane = self.server.lane
        await lane.enter()  # the welcome lists every room: a burst of new connections waits its turn too
        writer = asyncio.get_running_loop().create_task(self._writer())
        home = self.server.domain
        started = time.perf_counter()
        self.push(p.server_message("welcome", server="mindagent", protocol=p.VERSION, you=self.name,
                                   domain=home.name, title=home.title, levels=home.level_names(),
                                   limits={"frame_bytes": p.MAX_FRAME_BYTES,
                                   "rate": self.server.config.rate, "burst": self.server.config.burst},
                                   rooms=self.server.registry.listing()))
        lane.leave(time.perf_counter() - started)
        try:
            async for frame in self.ws:
                await lane.enter()  # a burst of frames waits its turn; room clocks do not
                started = time.perf_counter()
                try:
                    if not await self._on_frame(frame):
                        break
                finally:
                    lane.leave(time.perf_counter() - started)
        except ConnectionClosed as exc:
            log.info("%s: connection closed (%s)", self.name, exc)
        finally:
            self._closing = True
            if self.room is not None:
                self.room.leave(self)
                self.room = None
            writer.cancel()

    async def _on_frame(self, frame: str | bytes) -> bool:
        """Handle one frame; False closes the connection (sustained flooding)."""
        if not self.bucket.take():
            if self.bucket.dropped == 1:
                self.push(p.error_message("rate_limited", "too many messages; slow down"))
            if self.bucket.dropped >= MAX_DROPPED or self.bucket.flooding():
                await self.ws.close(1008, "rate limit exceeded")
                return False
            return True
        message, error, re = p.parse_client(frame)
        if message is None:
            error = error or p.ProtocolError("bad_message", "not a message")
            self.push(p.error_message(error.code, error.message, re))
            return True
        try:
            await self._handlers[message.type](message, re)
        except p.ProtocolError as exc:
            self.push(p.error_message(exc.code, exc.message, re))
        except Exception:
            log.exception("%s: handling %s failed", self.name, message.type)
            self.push(p.error_message("server_error", "the server failed on that message (logged)", re))
        return True

    def _in_room(self) -> Room:
        if self.room is None or self.room.id not in self.server.registry.rooms:
            raise p.ProtocolError("no_room", "join a room first")
        return self.room

    # --------------------------------------------------------------- handlers
    async def _ping(self, msg: p.Ping, re: object) -> None:
        self.push(p.server_message("pong", re=re))

    async def _list_rooms(self, msg: p.ListRooms, re: object) -> None:
        admin = self.server.registry.is_admin(msg.admin_token)
        self.push(p.server_message("rooms", rooms=self.server.registry.listing(admin), admin=admin, re=re))

    async def _create_room(self, msg: p.CreateRoom, re: object) -> None:
        registry = self.server.registry
        registry.require_admin(msg.admin_token)
        try:
            domain = domains.get(msg.domain) if msg.domain else self.server.domain
        except SpecError as exc:
            raise p.ProtocolError("invalid", str(exc)) from None
        level = msg.level or domain.default_level
        if level not in domain.level_names():  # shipped levels only: never a path from the network
            raise p.ProtocolError("invalid", f"unknown level {level!r}; levels: {', '.join(domain.level_names())}")
        spec = GameSpec(domain.name, level, msg.agents, msg.tau, msg.seed, "reference", msg.steps)
        if msg.steps is not None:
            try:
                longest = await domains.level_steps(spec)
            except (SpecError, ValueError, OSError) as exc:
                raise p.ProtocolError("invalid", f"cannot make that game: {str(exc)[:200]}") from None
            if longest is not None and msg.steps > longest:
                raise p.ProtocolError("invalid", f"steps {msg.steps} is longer than {level}'s {longest}; steps only shortens")
        config = self.server.config
        model, why = (msg.model, "chosen when the room was created") if msg.model else (config.model, config.model_why)
        settings = RoomSettings(
            spec, model, why, msg.mode,
            msg.tick or config.tick, msg.turn_timeout or config.turn_timeout, msg.public, config.prompt, config.repair,
            human_tick=msg.human_tick if msg.human_tick is not None else config.human_tick,
            countdown=msg.countdown if msg.countdown is not None else config.countdown,
            **config.room_options())
        room = await registry.create(settings)
        self.push(p.server_message("room_created", room=room.id, secret=room.secret, re=re, summary=room.summary()))

    async def _join(self, msg: p.Join, re: object) -> None:
        room = self.server.registry.get(msg.room)
        self.server.registry.authorize(room, msg.secret)
        room.join(self, msg.role, msg.agent, re)  # raises before changing anything
        if self.room is not None and self.room is not room:
            self.room.leave(self)
        self.room = room

    async def _practice(self, msg: p.Practice, re: object) -> None:
        """A private one-agent kitchen in turns (a step when you act), with a coach's hints; it closes
        when you leave. One per connection: a new one replaces the old."""
        domain = self.server.domain
        if domain.practice_level is None:
            raise p.ProtocolError("bad_state", f"{domain.title} has no practice kitchen")
        if self.room is not None and self.room.settings.practice:
            old, self.room = self.room, None
            old.leave(self, quiet=True)
            await self.server.registry.remove(old)
        config = self.server.config
        settings = RoomSettings(GameSpec(domain.name, domain.practice_level, 1, 3.0, 0, "reference", 60), "planner",
                                "the practice kitchen's coach", "turns", config.tick, 600.0, False, config.prompt,
                                practice=True)
        registry = self.server.registry
        room = await registry.create(settings, brain=registry.make_brain("planner", domain.name))
        room.coach = registry.make_brain("planner", domain.name)
        self.server.registry.authorize(room, room.secret)
        if self.room is not None:
            self.room.leave(self)
        self.room = room
        room.join(self, "player", 0, re)

    async def _leave(self, msg: p.Leave, re: object) -> None:
        room = self._in_room()
        room.leave(self)
        self.room = None
        self.push(p.server_message("left", room=room.id, re=re))

    async def _command(self, msg: p.Command, re: object) -> None:
        step = self._in_room().queue_command(self, msg.command)
        self.push(p.server_message("queued", command=msg.command.strip(), step=step, re=re))

    async def _instruct(self, msg: p.Instruct, re: object) -> None:
        self._in_room().instruct(self, msg.text)
        self.push(p.server_message("ack", of="instruct", re=re))

    async def _start(self, msg: p.Start, re: object) -> None:
        room = self._in_room()
        if not self.server.registry.is_admin(msg.admin_token) and room.seat_of(self).role == "spectator":
            raise p.ProtocolError("forbidden", "spectators cannot start a room")
        room.start()
        self.push(p.server_message("ack", of="start", re=re))

    async def _restart(self, msg: p.Restart, re: object) -> None:
        room = self._in_room()
        admin = self.server.registry.is_admin(msg.admin_token)
        if not admin and room.seat_of(self).role == "spectator":
            raise p.ProtocolError("forbidden", "spectators cannot restart a room")
        if not admin and room.status != "finished":
            raise p.ProtocolError("bad_state", "a room restarts when its episode is over (or with the admin token)")
        await room.restart()
        self.push(p.server_message("ack", of="restart", re=re))

    async def _set_model(self, msg: p.SetModel, re: object) -> None:
        registry = self.server.registry
        registry.require_admin(msg.admin_token)
        room = registry.get(msg.room)
        await registry.set_model(room, msg.model)
        room.broadcast(p.server_message("model_changed", room=room.id, model=msg.model))
        self.push(p.server_message("ack", of="set_model", re=re))

    async def _close_room(self, msg: p.CloseRoom, re: object) -> None:
        registry = self.server.registry
        registry.require_admin(msg.admin_token)
        room = registry.get(msg.room)
        room.broadcast(p.server_message("room_closed", room=room.id))
        await registry.remove(room)
        self.push(p.server_message("ack", of="close_room", re=re))

    async def _questionnaire(self, msg: p.Questionnaire, re: object) -> None:
        self._in_room().answer(self, msg.answers.model_dump(), msg.comment)
        self.push(p.server_message("ack", of="questionnaire", re=re))
