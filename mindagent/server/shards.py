"""Rooms sharded over worker processes behind one port (`serve --workers N`).

One process serving rooms uses one core (about 1.7 ms of CPU per room tick with two spectators).
Here the front process keeps the port, the page, every websocket, the rate limits and the lobby;
each room lives in one worker process (`worker.py`), chosen as the one with the fewest rooms when
the room opens. Clients see one server: the same protocol, room ids and listing order.

- A room-bound frame goes to its room's worker; the connection reads its next frame only when
  that worker has handled this one, so a connection's messages keep their order.
- A connection joining a room in another worker leaves its old room there once the join worked.
- A broadcast comes back once with the list of its members; the front sends the same text (and,
  with shared compression, the same compressed bytes) to each.
- A worker that dies is noticed at once (its socket closes): the members of its rooms get
  ``room_closed`` and stay connected in the lobby, its rooms leave the list, a frame in flight is
  answered ``server_error``, and a fresh worker takes its place for new rooms.
- Health tells the truth: a worker counts as serving (`ShardSet.healthy`) only once it has
  answered a ping over its socket, and stops counting the moment its process is found dead, so
  ``/health`` says ``ok: false`` from a worker's death until its replacement has answered.
- A join is admitted or refused here, before any worker is asked: each worker reports a room's
  secret with its ``open`` record, so a private room without its secret and a missing room get
  the same frame after the same work (one constant-time comparison, no round trip to a worker).
  Asking the worker only for rooms that exist made an existing private room answer 0.5 ms later
  than a missing one, which told anyone which ids exist.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import multiprocessing as mp
import pickle
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from mindagent.llm import telemetry
from mindagent.server import protocol as p
from mindagent.server.desk import ADMIN_TYPES, OWN_ROOM_TYPES, ROOM_NAMING_TYPES
from mindagent.server.hosts import ClockStats, StartupRoom
from mindagent.server.ipc import RecordError, read_record, write_record
from mindagent.server.room import RoomSettings
from mindagent.server.rooms import NO_ROOM_TEXT, same_secret
from mindagent.server.worker import worker_main

if TYPE_CHECKING:
    from mindagent.server.app import ServerConfig
    from mindagent.server.connection import Connection

log = logging.getLogger(__name__)

#: Seconds a worker may take to start (a live world's start-up room connects to its game first).
START_TIMEOUT_S = 180.0
#: Seconds the lobby waits for a worker's room list before leaving its rooms out.
LISTING_TIMEOUT_S = 5.0
#: Seconds a room listing serves later arrivals (unless a room opened or closed meanwhile).
LISTING_FRESH_S = 0.5
#: Seconds a stopping worker gets to close its rooms (recordings get their last line) before a kill.
STOP_TIMEOUT_S = 10.0
#: A worker that died is replaced, but not more often than this (a crash loop must not spin).
RESPAWN_EVERY_S = 2.0
#: Seconds a new worker has to answer its first ping before it is treated as failed to start.
PING_TIMEOUT_S = 10.0
_STATUS_ORDER = {"running": 0, "waiting": 1, "finished": 2}


class ShardLost(Exception):
    """The worker holding a room stopped before it answered."""


@dataclass
class Shard:
    index: int
    process: BaseProcess
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    alive: bool = True
    #: True once the worker answered a ping over its socket: it serves, not merely exists.
    ready: bool = False
    pending: dict[int, asyncio.Future[tuple[dict[str, Any], bytes]]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


@dataclass
class Place:
    """Where a connection is: its room's worker and room id (None: the lobby), and every worker
    that has seen it (told when it closes)."""

    shard: int | None = None
    room: str | None = None
    seen: set[int] = field(default_factory=set)


class ShardSet:
    """The front's view of its workers: processes, the room directory, and where each connection is."""

    remote = True

    def __init__(self, config: ServerConfig, admin_token: str) -> None:
        if config.workers < 2:
            raise ValueError("sharding needs at least two workers")
        self.config = config
        self.admin_token = admin_token
        self.shards: dict[int, Shard] = {}
        self.directory: dict[str, int] = {}  # room id -> worker index, in opening order
        self.secrets: dict[str, str | None] = {}  # room id -> its join secret (None: a public room)
        # compared against for a room that does not exist, so both refusals do the same work
        self._decoy = secrets.token_urlsafe(12)
        self.places: dict[int, Place] = {}
        self.conns: dict[int, Connection] = {}
        self._requests = itertools.count(1)
        self._stopping = False
        self._last_spawn: dict[int, float] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._rooms_version = 0  # bumped when a room opens or closes: cached listings are stale
        self._listings: dict[bool, tuple[int, float, list[dict[str, Any]]]] = {}
        self._listing_flights: dict[bool, asyncio.Task[list[dict[str, Any]]]] = {}
        #: Workers replaced after dying since the server started (/metrics).
        self.restarts = 0
        #: Called when the autoplay start-up room plays no more episodes (None, or its error).
        self.on_over: Callable[[str | None], None] | None = None
        #: Called when a worker dies, with its index and exit code (tests and logs).
        self.on_lost: Callable[[int, int | None], None] | None = None

    # --------------------------------------------------------------- workers
    async def start(self) -> StartupRoom | None:
        """Start every worker at once (each spends a second or two importing); the first opens the
        start-up room."""
        replies = await asyncio.gather(*(self._spawn(index, with_startup=index == 0)
                                         for index in range(self.config.workers)))
        startup: StartupRoom | None = None
        for header, payload in replies:
            if header["k"] == "failed":
                raise p.ProtocolError("server_error", str(header.get("error", "the start-up room failed")))
            if payload:
                startup = pickle.loads(payload)  # our own worker's reply, never a client's bytes
        return startup

    async def _spawn(self, index: int, with_startup: bool = False) -> tuple[dict[str, Any], bytes]:
        """Start worker `index` and wait for its first record (``ready`` or ``failed``). Only the
        first worker opens the start-up room; a replacement starts empty."""
        config = dataclasses.replace(self.config, startup=self.config.startup if with_startup else None)
        self._last_spawn[index] = time.monotonic()
        front, back = socket.socketpair()
        process = mp.get_context("spawn").Process(target=worker_main, args=(index, config, self.admin_token, back),
                                                  name=f"mindagent-rooms-{index}", daemon=True)
        try:
            await asyncio.to_thread(process.start)
        finally:
            back.close()
        reader, writer = await asyncio.open_unix_connection(sock=front)
        shard = Shard(index, process, reader, writer)
        self.shards[index] = shard
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while True:  # the start-up room's ``open`` comes before ``ready``
                header, payload = await asyncio.wait_for(read_record(reader), max(0.1, deadline - time.monotonic()))
                if header["k"] in ("ready", "failed"):
                    break
                self._on_record(shard, header, payload)
        except (asyncio.IncompleteReadError, ConnectionError, RecordError, TimeoutError) as exc:
            shard.alive = False
            writer.close()
            process.kill()
            raise p.ProtocolError("server_error", f"room worker {index} did not start: {exc!r}") from None
        if header["k"] == "ready":
            shard.task = asyncio.get_running_loop().create_task(self._read(shard))
            await self._ping(shard)
        else:
            shard.alive = False
        return header, payload

    async def _ping(self, shard: Shard) -> None:
        """Mark `shard` ready once it answers a request over its socket (a stats request: every
        worker answers it from its loop, so an answer means the loop runs and reads)."""
        try:
            await asyncio.wait_for(self._request(shard, {"k": "stats", "clear": False}), PING_TIMEOUT_S)
        except (ShardLost, TimeoutError) as exc:
            log.error("room worker %d did not answer its first ping (%s)", shard.index, type(exc).__name__)
            return
        shard.ready = shard.alive

    def healthy(self) -> bool:
        """Every worker alive and serving: none found dead, none still starting or unanswered.

        The process is asked too (a cheap ``waitpid``), so a death counts from the moment it can
        be seen, not only once its socket's end has been read."""
        serving = [s for s in self.shards.values() if s.alive and s.ready and s.process.is_alive()]
        return len(serving) == self.config.workers

    @property
    def ready_count(self) -> int:
        return sum(1 for s in self.shards.values() if s.alive and s.ready)

    async def stop(self) -> None:
        self._stopping = True
        for task in list(self._background):
            task.cancel()
        for shard in self.shards.values():
            if shard.alive:
                write_record(shard.writer, {"k": "stop"})
        for shard in self.shards.values():
            await asyncio.to_thread(shard.process.join, STOP_TIMEOUT_S)
            if shard.process.is_alive():
                log.warning("room worker %d did not stop in %.0fs; killing it", shard.index, STOP_TIMEOUT_S)
                shard.process.kill()
                await asyncio.to_thread(shard.process.join, 2)
            if shard.task is not None:
                shard.task.cancel()
            shard.writer.close()
        self.directory.clear()

    @property
    def pids(self) -> dict[int, int | None]:
        """Worker index -> process id, for the living workers."""
        return {i: s.process.pid for i, s in self.shards.items() if s.alive}

    async def _read(self, shard: Shard) -> None:
        try:
            while True:
                header, payload = await read_record(shard.reader)
                self._on_record(shard, header, payload)
        except (asyncio.IncompleteReadError, ConnectionError, RecordError) as exc:
            if not self._stopping:
                log.error("room worker %d stopped (%s)", shard.index, type(exc).__name__)
        finally:
            if not self._stopping:
                self._lost(shard)

    def _on_record(self, shard: Shard, header: dict[str, Any], payload: bytes) -> None:
        kind = header["k"]
        if kind == "send":
            text = payload.decode("utf-8")
            for c in header["to"]:
                conn = self.conns.get(c)
                if conn is not None:
                    conn.send_text(text)
        elif kind in ("done", "reply"):
            future = shard.pending.pop(header["q"], None)
            if future is not None and not future.done():
                future.set_result((header, payload))
        elif kind == "open":
            self.directory[header["room"]] = shard.index
            secret = header.get("secret")
            self.secrets[header["room"]] = secret if isinstance(secret, str) else None
            self._rooms_version += 1
        elif kind == "gone":
            self._forget_room(header["room"])
        elif kind == "over" and self.on_over is not None:
            error = header.get("error")
            self.on_over(error if isinstance(error, str) else None)

    def _forget_room(self, room: str) -> None:
        self.directory.pop(room, None)
        self.secrets.pop(room, None)
        self._rooms_version += 1
        for place in self.places.values():
            if place.room == room:
                place.shard = place.room = None

    def _lost(self, shard: Shard) -> None:
        """A worker died: tell the members of its rooms, forget the rooms, answer frames in flight."""
        shard.alive = shard.ready = False
        shard.writer.close()
        code = shard.process.exitcode
        rooms = [room for room, index in self.directory.items() if index == shard.index]
        log.error("room worker %d (pid %s) is gone (exit code %s): its %d room(s) are closed", shard.index,
                  shard.process.pid, code, len(rooms))
        for room in rooms:
            for c, place in self.places.items():
                if place.room == room and (conn := self.conns.get(c)) is not None:
                    conn.push(p.server_message("room_closed", room=room, why="the room's process stopped"))
            self._forget_room(room)
        for place in self.places.values():
            place.seen.discard(shard.index)
        for future in shard.pending.values():
            if not future.done():
                future.set_exception(ShardLost(f"room worker {shard.index} stopped"))
        shard.pending.clear()
        if self.on_lost is not None:
            self.on_lost(shard.index, code)
        self._later(self._replace(shard.index))

    def _later(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _replace(self, index: int) -> None:
        """Start a fresh worker in a dead one's place; one that fails to start is tried again, less
        and less often (up to once a minute), so a crash loop neither spins nor gives up."""
        delay = RESPAWN_EVERY_S
        while not self._stopping:
            await asyncio.sleep(max(0.0, self._last_spawn.get(index, 0.0) + delay - time.monotonic()))
            if self._stopping:
                return
            try:
                header, _ = await self._spawn(index)
            except p.ProtocolError as exc:
                log.error("%s", exc.message)
            else:
                if header["k"] == "ready":
                    self.restarts += 1
                    log.warning("room worker %d replaced (pid %s)", index, self.shards[index].process.pid)
                    return
                log.error("room worker %d failed to start: %s", index, header.get("error"))
            delay = min(60.0, delay * 2)

    def _request(self, shard: Shard, header: dict[str, Any], payload: bytes = b"") -> asyncio.Future[tuple[dict[str, Any], bytes]]:
        q = next(self._requests)
        future: asyncio.Future[tuple[dict[str, Any], bytes]] = asyncio.get_running_loop().create_future()
        if not shard.alive:
            future.set_exception(ShardLost(f"room worker {shard.index} stopped"))
            return future
        shard.pending[q] = future
        write_record(shard.writer, {**header, "q": q}, payload)
        return future

    def _alive(self) -> list[Shard]:
        return [shard for shard in self.shards.values() if shard.alive]

    def _least_loaded(self) -> Shard:
        alive = self._alive()
        if not alive:
            raise p.ProtocolError("server_error", "no room worker is running; try again in a moment")
        counts = {shard.index: 0 for shard in alive}
        for index in self.directory.values():
            if index in counts:
                counts[index] += 1
        return min(alive, key=lambda shard: (counts[shard.index], shard.index))

    # ------------------------------------------------------------------ rooms
    def room_count(self) -> int:
        return len(self.directory)

    async def listing(self, admin: bool) -> list[dict[str, Any]]:
        """Every worker's rooms, ordered as one process orders them: running, waiting, finished,
        each in opening order.

        Connections arriving together share one listing: one in flight at a time, and a result
        serves for `LISTING_FRESH_S` unless a room opened or closed meanwhile (a lobby's people
        counts and statuses may be that much behind). Without this, 800 spectators connecting at
        once asked each worker for 800 listings of every room, and the rooms' clocks waited."""
        cached = self._listings.get(admin)
        if cached is not None and cached[0] == self._rooms_version and time.monotonic() - cached[1] < LISTING_FRESH_S:
            return cached[2]
        flight = self._listing_flights.get(admin)
        if flight is None:
            flight = asyncio.get_running_loop().create_task(self._gather_listing(admin))
            self._listing_flights[admin] = flight
            flight.add_done_callback(lambda _: self._listing_flights.pop(admin, None))
        return await asyncio.shield(flight)

    async def _gather_listing(self, admin: bool) -> list[dict[str, Any]]:
        version, started = self._rooms_version, time.monotonic()
        alive = self._alive()
        replies = await asyncio.gather(*(asyncio.wait_for(self._request(s, {"k": "listing", "admin": admin}),
                                                          LISTING_TIMEOUT_S) for s in alive), return_exceptions=True)
        rooms: list[dict[str, Any]] = []
        for shard, reply in zip(alive, replies, strict=True):
            if isinstance(reply, BaseException):
                log.warning("room worker %d did not list its rooms: %r", shard.index, reply)
                continue
            rooms.extend(json.loads(reply[1]))
        position = {room: i for i, room in enumerate(self.directory)}
        rooms.sort(key=lambda r: (_STATUS_ORDER.get(str(r.get("status")), 3), position.get(str(r.get("room")), len(position))))
        self._listings[admin] = (version, started, rooms)
        return rooms

    def _route(self, conn: Connection, message: Any) -> Shard:
        kind = message.type
        place = self.places.get(conn.id)
        if kind in ADMIN_TYPES and not same_secret(message.admin_token, self.admin_token):
            raise p.ProtocolError("unauthorized", "this needs the admin token printed when the server started")
        if kind == "create_room":
            return self._least_loaded()
        if kind == "join":
            return self._admit(message.room, message.secret)
        if kind in ROOM_NAMING_TYPES:
            index = self.directory.get(message.room)
            shard = self.shards.get(index) if index is not None else None
            if shard is None or not shard.alive:
                raise p.ProtocolError("no_room", NO_ROOM_TEXT)
            return shard
        if kind in OWN_ROOM_TYPES:  # a room of one's own: opened where the guest is, or on the least loaded
            shard = self.shards.get(place.shard) if place is not None and place.shard is not None else None
            return shard if shard is not None and shard.alive else self._least_loaded()
        if place is None or place.shard is None or place.room is None:
            raise p.ProtocolError("no_room", "join a room first")
        return self.shards[place.shard]

    def _admit(self, room: str, given: str | None) -> Shard:
        """The worker of a room this join may enter; otherwise the one `NO_ROOM_TEXT` refusal,
        decided here for a missing room and a private room alike (see the module docstring)."""
        index = self.directory.get(room)
        shard = self.shards.get(index) if index is not None else None
        expected = self.secrets.get(room, self._decoy) if shard is not None and shard.alive else self._decoy
        matched = same_secret(given, expected or self._decoy)  # always one comparison, even for a public room
        if shard is None or not shard.alive or (expected is not None and not matched):
            raise p.ProtocolError("no_room", NO_ROOM_TEXT)
        return shard

    async def handle(self, conn: Connection, message: Any, frame: str, re: object) -> None:
        try:
            shard = self._route(conn, message)
        except p.ProtocolError as exc:
            conn.push(p.error_message(exc.code, exc.message, re))
            return
        self.conns[conn.id] = conn
        place = self.places.setdefault(conn.id, Place())
        place.seen.add(shard.index)
        try:
            header, _ = await self._request(shard, {"k": "frame", "c": conn.id, "name": conn.name}, frame.encode())
        except ShardLost:
            conn.push(p.error_message("server_error", "the room's process stopped while handling that; the room is closed", re))
            return
        room = header.get("room")
        if room is not None:
            if place.shard is not None and place.shard != shard.index and (old := self.shards.get(place.shard)) and old.alive:
                write_record(old.writer, {"k": "leave", "c": conn.id})  # joined a room elsewhere: leave the old one
            place.shard, place.room = shard.index, room
        elif place.shard == shard.index:
            place.shard = place.room = None

    def gone(self, conn: Connection) -> None:
        place = self.places.pop(conn.id, None)
        self.conns.pop(conn.id, None)
        if place is None:
            return
        for index in sorted(place.seen):
            shard = self.shards.get(index)
            if shard is not None and shard.alive:
                write_record(shard.writer, {"k": "drop", "c": conn.id})

    def room_of(self, conn: Connection) -> str | None:
        place = self.places.get(conn.id)
        return place.room if place is not None else None

    async def open_room(self, settings: RoomSettings) -> dict[str, Any]:
        try:
            header, payload = await self._request(self._least_loaded(), {"k": "open"}, pickle.dumps(settings))
        except ShardLost as exc:
            raise p.ProtocolError("server_error", f"the room could not open: {exc}") from None
        if header.get("error"):
            raise p.ProtocolError("invalid", str(header["error"]))
        result: dict[str, Any] = json.loads(payload)
        return result

    async def clock_stats(self, clear: bool = False) -> ClockStats:
        alive = self._alive()
        replies = await asyncio.gather(*(self._request(s, {"k": "stats", "clear": clear}) for s in alive))
        total = ClockStats(cpu_s=time.process_time(), processes=1 + len(alive), models=telemetry.snapshot())
        weighted = 0.0
        for _, payload in replies:
            part: ClockStats = pickle.loads(payload)  # our own worker's reply, never a client's bytes
            total.rooms += part.rooms
            total.ticks += part.ticks
            total.steps += part.steps
            total.lags.extend(part.lags)
            total.cpu_s += part.cpu_s
            total.models = telemetry.merge((total.models, part.models))
            weighted += part.rooms * part.clock
        total.clock = weighted / total.rooms if total.rooms else time.time()
        return total
