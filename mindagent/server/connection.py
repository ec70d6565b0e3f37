"""One websocket connection: read frames, rate-limit, validate, answer the lobby, hand room
messages to where the rooms live (`hosts.py`); never crash a room.

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

from mindagent.core.capabilities import RealTimePace
from mindagent.server import protocol as p
from mindagent.server.admission import peer_address
from mindagent.server.choices import lobby_choices
from mindagent.server.desk import LOBBY_TYPES, answer
from mindagent.server.fanout import text_of
from mindagent.server.ratelimit import TokenBucket
from mindagent.server.room import Room
from mindagent.server.rooms import same_secret

if TYPE_CHECKING:
    from mindagent.server.app import GameServer

log = logging.getLogger(__name__)

#: Messages waiting for a slow client before it is disconnected.
SEND_QUEUE = 512
#: Frames dropped in a row (rate limit) before the connection is closed as abusive (1008).
MAX_DROPPED = 300
_ids = itertools.count(1)


#: Frames that open an anonymous room of the sender's own, counted by the practice budget. The
#: study's frames are not: a study is the admin's own (`serve --study`), its rooms follow its file.
BUDGETED_TYPES = frozenset({"practice", "play"})

class Connection:
    """A `Member` of at most one room at a time (`room` is used when rooms live in this process)."""

    def __init__(self, ws: ServerConnection, server: GameServer) -> None:
        self.ws = ws
        self.server = server
        self.id = next(_ids)
        self.name = f"guest{self.id}"
        self.address = peer_address(ws.remote_address)
        self.room: Room | None = None
        self.bucket = TokenBucket(server.config.rate, server.config.burst)
        self._out: asyncio.Queue[str | None] = asyncio.Queue(SEND_QUEUE)
        self._closing = False
        self._closer: asyncio.Task[None] | None = None
        self._waited = 0.0  # seconds of the frame in hand spent waiting on a room worker
        self._lobby: dict[str, Callable[[Any, object], Awaitable[None]]] = {
            "ping": self._ping, "list_rooms": self._list_rooms,
        }

    # ---------------------------------------------------------------- output
    def push(self, message: dict[str, Any]) -> None:
        self.send_text(text_of(message))  # a broadcast's text is encoded once for all

    def send_text(self, text: str) -> None:
        """Queue an encoded message (a room worker's broadcast arrives encoded)."""
        if self._closing:
            return
        try:
            self._out.put_nowait(text)
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
        try:
            rooms = await self._rooms_listing(False)
            self.push(p.server_message("welcome", server="mindagent", protocol=p.VERSION, you=self.name,
                                       domain=home.name, title=home.title, levels=home.level_names(),
                                       default_level=home.default_level, agents=home.serve_agents,
                                       pace=list(home.real_time_pace()) if isinstance(home, RealTimePace) else None,
                                       limits={"frame_bytes": p.MAX_FRAME_BYTES,
                                       "rate": self.server.config.rate, "burst": self.server.config.burst},
                                       choices=lobby_choices(home, self.server.config), rooms=rooms,
                                       study=study.welcome() if (study := self.server.config.study) else None))
        finally:
            lane.leave(self._loop_time(started))
        try:
            async for frame in self.ws:
                await lane.enter()  # a burst of frames waits its turn; room clocks do not
                started = time.perf_counter()
                try:
                    if not await self._on_frame(frame):
                        break
                finally:
                    lane.leave(self._loop_time(started))
        except ConnectionClosed as exc:
            log.info("%s: connection closed (%s)", self.name, exc)
        finally:
            self._closing = True
            self.server.rooms.gone(self)
            writer.cancel()

    def _loop_time(self, started: float) -> float:
        """Seconds of this loop's work since `started`: waiting on a room worker is not counted."""
        spent = time.perf_counter() - started - self._waited
        self._waited = 0.0
        return max(0.0, spent)

    async def _rooms_listing(self, admin: bool) -> list[dict[str, Any]]:
        if not self.server.rooms.remote:
            return await self.server.rooms.listing(admin)
        started = time.perf_counter()
        try:
            return await self.server.rooms.listing(admin)
        finally:
            self._waited += time.perf_counter() - started

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
        if message.type in LOBBY_TYPES:
            await answer(self, self._lobby[message.type], message, re)
        elif message.type in BUDGETED_TYPES:
            await self._own_room(message, frame, re)
        else:
            await self._to_room(message, frame, re)
        return True

    async def _to_room(self, message: Any, frame: str | bytes, re: object) -> None:
        text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
        started = time.perf_counter()
        await self.server.rooms.handle(self, message, text, re)
        if self.server.rooms.remote:
            self._waited += time.perf_counter() - started

    async def _own_room(self, message: Any, frame: str | bytes, re: object) -> None:
        """Anyone may open a practice room or a game of their own choosing (``play``), within the
        server's budget for such rooms (`budgets.py`): one budget for both, since either costs a
        game and a clock job and a flood could use whichever is not counted."""
        rooms, budget = self.server.rooms, self.server.practice
        before = rooms.room_of(self)
        try:
            budget.admit(self, self.address, rooms.room_count(), rooms.room_of)
        except p.ProtocolError as exc:
            self.push(p.error_message(exc.code, exc.message, re))
            return
        await self._to_room(message, frame, re)
        budget.granted(self, self.address, before, rooms.room_of(self))

    # --------------------------------------------------------------- handlers
    async def _ping(self, msg: p.Ping, re: object) -> None:
        self.push(p.server_message("pong", re=re))

    async def _list_rooms(self, msg: p.ListRooms, re: object) -> None:
        admin = same_secret(msg.admin_token, self.server.admin_token)
        self.push(p.server_message("rooms", rooms=await self._rooms_listing(admin), admin=admin, re=re))
