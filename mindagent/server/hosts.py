"""Where a server's rooms live: in its own process (`LocalRooms`), or sharded over room worker
processes behind the same port (`mindagent.server.shards.ShardSet`, `serve --workers N`).

A websocket connection answers the lobby itself and hands every room-bound message to its
server's host; either host gives clients the same protocol, room ids and listing order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mindagent.core.spec import GameSpec
from mindagent.llm import telemetry
from mindagent.llm.telemetry import CallSnapshot
from mindagent.server.desk import RoomDesk
from mindagent.server.room import Room, RoomSettings
from mindagent.server.rooms import RoomRegistry

if TYPE_CHECKING:
    from mindagent.server.connection import Connection


@dataclass(frozen=True)
class StartupRoom:
    """What the banner says of the room opened at start: its id, secret (None: public), game,
    and where people join its world from a game client (None: only the page)."""

    id: str
    secret: str | None
    spec: GameSpec
    join: dict[str, Any] | None = None


@dataclass
class ClockStats:
    """Every room's clock at one moment (benchmarks take the difference of two): ticks run, steps
    played, the lateness of scheduled ticks kept since the last clear (seconds), and the CPU
    seconds used so far by every process serving rooms. `clock` is the wall-clock time the counts
    were taken (rooms-weighted over the workers, which answer a moment apart)."""

    rooms: int = 0
    ticks: int = 0
    steps: int = 0
    lags: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    processes: int = 1
    clock: float = 0.0
    #: The model calls made by the processes counted (`mindagent.llm.telemetry`), for /metrics.
    models: CallSnapshot | None = None


class RoomHost(Protocol):
    #: True when rooms live in other processes: time awaiting them is not this event loop's work.
    remote: bool

    async def start(self) -> StartupRoom | None: ...

    async def stop(self) -> None: ...

    def room_count(self) -> int: ...

    async def listing(self, admin: bool) -> list[dict[str, Any]]: ...

    async def handle(self, conn: Connection, message: Any, frame: str, re: object) -> None:
        """A room-bound message from `conn`; any answer or error goes to `conn`."""

    def gone(self, conn: Connection) -> None:
        """`conn` closed: it leaves whatever room it was in."""

    def room_of(self, conn: Connection) -> str | None:
        """The id of the room `conn` sits in now (None: the lobby)."""

    async def open_room(self, settings: RoomSettings) -> dict[str, Any]:
        """Open a room (no connection involved): its ``room`` id, ``secret`` and ``summary``."""

    async def clock_stats(self, clear: bool = False) -> ClockStats: ...


def startup_of(room: Room) -> StartupRoom:
    static = room.session.static_view()
    join, label = static.get("join"), static.get("join_label")
    if isinstance(join, dict) and isinstance(label, str):  # how the game names its world, for the banner
        join = {**join, "label": label}
    return StartupRoom(room.id, room.secret, room.settings.spec, join if isinstance(join, dict) else None)


def stats_of(registry: RoomRegistry, clear: bool) -> ClockStats:
    rooms = list(registry.rooms.values())
    lags = [lag for room in rooms for lag in room.lags]
    if clear:
        for room in rooms:
            room.lags.clear()
    return ClockStats(len(rooms), sum(r.ticks for r in rooms), sum(r.session.step_index for r in rooms), lags,
                      time.process_time(), clock=time.time(), models=telemetry.snapshot())


class LocalRooms:
    """Rooms in this process: the desk acts on the connection itself as the room member."""

    remote = False

    def __init__(self, registry: RoomRegistry, desk: RoomDesk, startup: RoomSettings | None) -> None:
        self.registry = registry
        self.desk = desk
        self._startup = startup
        self.startup_room: Room | None = None

    async def start(self) -> StartupRoom | None:
        if self._startup is None:
            return None
        self.startup_room = await self.registry.create(self._startup)
        return startup_of(self.startup_room)

    async def stop(self) -> None:
        await self.registry.close_all()

    def room_count(self) -> int:
        return len(self.registry.rooms)

    async def listing(self, admin: bool) -> list[dict[str, Any]]:
        return self.registry.listing(admin)

    async def handle(self, conn: Connection, message: Any, frame: str, re: object) -> None:
        await self.desk.handle(conn, message, re)

    def gone(self, conn: Connection) -> None:
        self.desk.drop(conn)

    def room_of(self, conn: Connection) -> str | None:
        room = self.desk.room_of(conn)
        return room.id if room is not None else None

    async def open_room(self, settings: RoomSettings) -> dict[str, Any]:
        room = await self.registry.create(settings)
        return {"room": room.id, "secret": room.secret, "summary": room.summary()}

    async def clock_stats(self, clear: bool = False) -> ClockStats:
        return stats_of(self.registry, clear)
