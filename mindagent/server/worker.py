"""A room worker: a process that hosts some of a server's rooms (`serve --workers N`).

It owns no socket to the outside. The front process holds every websocket, answers the lobby and
forwards each room-bound frame here with the connection's id; rooms push their messages back as
``send`` records, a broadcast once for all its members (consecutive pushes of one encoded text
travel as one record with a list of connection ids, so a state is encoded and shipped once).

Records in (front -> worker): ``frame`` (conn id, name, request id; payload the frame's text),
``leave`` (the connection moved to a room elsewhere), ``drop`` (it closed), ``listing``,
``stats``, ``open`` (payload: pickled `RoomSettings`, made by the front itself), ``stop``.
Records out: ``ready``/``failed`` once, ``send``, ``done`` (a frame handled; the connection's
room here now), ``reply``, ``open`` (with the room's join secret) / ``gone`` (the room directory),
``over`` (the autoplay start-up room will play no more episodes; ``error`` says why, if it failed).

A worker ignores Ctrl-C (the front stops it) and stops when the front's end of the socket closes,
so a killed front leaves no orphan worker behind.
"""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import signal
import socket
import time
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from mindagent.core import registry as domains
from mindagent.dispatch.brains import Brain, make_brain
from mindagent.server import protocol as p
from mindagent.server.desk import RoomDesk
from mindagent.server.fanout import text_of
from mindagent.server.hosts import startup_of, stats_of
from mindagent.server.http import served_names
from mindagent.server.ipc import RecordError, read_record, write_record
from mindagent.server.lane import FrameLane
from mindagent.server.room import Room, RoomSettings
from mindagent.server.rooms import RoomRegistry

if TYPE_CHECKING:
    from mindagent.server.app import ServerConfig

log = logging.getLogger(__name__)


class Outbox:
    """Records to the front, with consecutive pushes of the same text merged into one ``send``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self._batch: list[tuple[str, list[int]]] = []
        self._soon = False

    def send(self, conn: int, text: str) -> None:
        if self._batch and self._batch[-1][0] is text:
            self._batch[-1][1].append(conn)
        else:
            self._batch.append((text, [conn]))
        if not self._soon:
            self._soon = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._soon = False
        batch, self._batch = self._batch, []
        for text, targets in batch:
            write_record(self.writer, {"k": "send", "to": targets}, text.encode())

    def record(self, header: dict[str, Any], payload: bytes = b"") -> None:
        """A control record, after every push made before it (order per connection holds)."""
        self.flush()
        write_record(self.writer, header, payload)


class RemoteGuest:
    """A connection of the front, as a member of rooms here."""

    __slots__ = ("conn", "name", "room", "_outbox")

    def __init__(self, conn: int, name: str, outbox: Outbox) -> None:
        self.conn = conn
        self.name = name
        self.room: Room | None = None
        self._outbox = outbox

    def push(self, message: dict[str, Any]) -> None:
        self._outbox.send(self.conn, text_of(message))


class RoomWorker:
    def __init__(self, index: int, config: ServerConfig, admin_token: str, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.index = index
        self.config = config
        self.reader = reader
        self.outbox = Outbox(writer)
        self.scheduler = AsyncIOScheduler(timezone=UTC)

        def brain_for(model: str, domain: str) -> Brain:
            return make_brain(model, domains.get(domain), **config.brain_options)

        names = served_names(config.host, tuple(config.hostnames))
        self.registry = RoomRegistry(self.scheduler, config.recordings, brain_for, admin_token,
                                     live_view=(config.host, names))
        self.registry.on_change = self._directory_changed
        home = domains.get(config.startup.domain if config.startup is not None else None)
        self.desk = RoomDesk(self.registry, config, home)
        self.lane = FrameLane()
        self.guests: dict[int, RemoteGuest] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _directory_changed(self, room_id: str, opened: bool) -> None:
        """Tell the front a room opened (with its join secret: the front admits joins itself, so a
        private room and a missing one are refused alike) or closed."""
        if not opened:
            self.outbox.record({"k": "gone", "room": room_id})
            return
        room = self.registry.rooms.get(room_id)
        self.outbox.record({"k": "open", "room": room_id, "secret": room.secret if room is not None else None})

    async def run(self) -> None:
        self.scheduler.start()
        try:
            if not await self._open_startup():
                return
            while True:
                try:
                    header, payload = await read_record(self.reader)
                except (asyncio.IncompleteReadError, ConnectionError, RecordError):
                    break  # the front is gone or stopping
                if not self._on_record(header, payload):
                    break
        finally:
            for task in list(self._tasks):
                task.cancel()
            await self.registry.close_all()
            if self.scheduler.running:
                self.scheduler.shutdown(wait=False)
            self.outbox.flush()
            self.outbox.writer.close()

    async def _open_startup(self) -> bool:
        settings = self.config.startup_settings()
        if settings is None:
            self.outbox.record({"k": "ready"})
            return True
        try:
            room = await self.registry.create(settings)
        except p.ProtocolError as exc:
            self.outbox.record({"k": "failed", "error": exc.message})
            return False
        room.on_over = lambda error: self.outbox.record({"k": "over", "room": room.id, "error": error})
        self.outbox.record({"k": "ready"}, pickle.dumps(startup_of(room)))
        return True

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_record(self, header: dict[str, Any], payload: bytes) -> bool:
        kind = header["k"]
        if kind == "frame":
            self._spawn(self._frame(header, payload))
        elif kind in ("leave", "drop"):
            guest = self.guests.pop(header["c"], None) if kind == "drop" else self.guests.get(header["c"])
            if guest is not None:
                self.desk.drop(guest)
        elif kind == "listing":
            rooms = self.registry.listing(bool(header.get("admin")))
            self.outbox.record({"k": "reply", "q": header["q"]}, json.dumps(rooms).encode())
        elif kind == "stats":
            stats = stats_of(self.registry, bool(header.get("clear")))
            self.outbox.record({"k": "reply", "q": header["q"]}, pickle.dumps(stats))
        elif kind == "open":
            self._spawn(self._open(header["q"], pickle.loads(payload)))  # made by our own front, never a client's bytes
        elif kind == "stop":
            return False
        else:
            log.warning("room worker %d: unknown record %r", self.index, kind)
        return True

    async def _frame(self, header: dict[str, Any], payload: bytes) -> None:
        conn = int(header["c"])
        guest = self.guests.get(conn)
        if guest is None:
            guest = self.guests[conn] = RemoteGuest(conn, str(header["name"]), self.outbox)
        await self.lane.enter()  # a burst of frames here waits its turn too; room clocks do not
        started = time.perf_counter()
        try:
            message, error, re = p.parse_client(payload.decode("utf-8", "replace"))
            if message is None:
                error = error or p.ProtocolError("bad_message", "not a message")
                guest.push(p.error_message(error.code, error.message, re))
            else:
                await self.desk.handle(guest, message, re)
        finally:
            self.lane.leave(time.perf_counter() - started)
            room = self.desk.room_of(guest)
            self.outbox.record({"k": "done", "q": header["q"], "c": conn, "room": room.id if room is not None else None})

    async def _open(self, q: int, settings: RoomSettings) -> None:
        try:
            room = await self.registry.create(settings)
        except p.ProtocolError as exc:
            self.outbox.record({"k": "reply", "q": q, "error": exc.message})
            return
        self.outbox.record({"k": "reply", "q": q},
                           json.dumps({"room": room.id, "secret": room.secret, "summary": room.summary()}).encode())


def _name_process(name: str) -> None:
    """Name this process in `ps`/`top` (Linux's 15-character comm): workers start at once, so
    their pids and start times do not say which is which; an operator (or a test) reads the name."""
    try:
        Path("/proc/self/comm").write_text(name[:15])
    except OSError:  # not Linux, or /proc read-only: the name is only a convenience
        pass


def worker_main(index: int, config: ServerConfig, admin_token: str, sock: socket.socket) -> None:
    """A worker process's entry point (spawned by the front with one end of a socket pair)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the front decides
    _name_process(f"mindagent-w{index}")
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format=f"rooms {index}: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    from mindagent.server.app import protect_secrets

    protect_secrets(config, admin_token)

    async def main() -> None:
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        await RoomWorker(index, config, admin_token, reader, writer).run()

    asyncio.run(main())
