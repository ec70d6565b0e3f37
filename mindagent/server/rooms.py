"""The room registry: creating rooms, the admin token and room secrets, and each room's clock job.

Admin-only: creating rooms, changing a room's model, seeing private rooms in the list. Joining a
private room needs its secret (given to its creator); public rooms (the one `mindagent serve`
opens at start-up, unless told otherwise) need none. Tokens are compared in constant time.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from mindagent.core import registry as domains
from mindagent.core.capabilities import LiveView
from mindagent.core.domain import DomainSession, SpecError
from mindagent.dispatch.brains import Brain
from mindagent.server.budgets import ADMIN_RESERVE, MAX_PRACTICE
from mindagent.server.disk_budget import PRACTICE_FOLDER, RECORDINGS_BUDGET, RecordingBudget
from mindagent.server.protocol import ProtocolError
from mindagent.server.room import Room, RoomSettings

log = logging.getLogger(__name__)

#: Rooms one server hosts at most (each holds a kitchen, a dispatcher and a clock job).
MAX_ROOMS = 500
#: One answer for a missing room and a private room without its secret.
NO_ROOM_TEXT = "no such room, or it is private and the secret is wrong or missing"
#: Spreads the rooms' ticks over the tick interval so they do not all fire at once.
_GOLDEN = 0.6180339887498949

#: (model spec, domain name) -> a brain for a room of that domain.
BrainFactory = Callable[[str, str], Brain]
SessionFactory = Callable[[RoomSettings], DomainSession]


def same_secret(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison; a missing token never matches."""
    if not given or not expected:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class RoomRegistry:
    """All rooms of one server. Example::

        registry = RoomRegistry(scheduler, Path("recordings/rooms"), make_brain_for)
        room = await registry.create(RoomSettings(GameSpec(level="level_3", agents=4), "planner", "default"))
    """

    def __init__(self, scheduler: AsyncIOScheduler, recordings: Path, brain_factory: BrainFactory,
                 admin_token: str | None = None, session_factory: SessionFactory | None = None,
                 max_rooms: int = MAX_ROOMS, live_view: tuple[str, frozenset[str] | None] | None = None,
                 max_practice: int = MAX_PRACTICE, admin_reserve: int = ADMIN_RESERVE,
                 recordings_budget: int | None = RECORDINGS_BUDGET) -> None:
        self.scheduler = scheduler
        self.recordings = recordings
        self.brain_factory = brain_factory
        self.session_factory = session_factory or (lambda settings: domains.make_session(settings.spec))
        self.admin_token = admin_token or secrets.token_urlsafe(18)
        self.max_rooms = max_rooms
        #: Practice rooms (anonymous) here at most, and rooms they leave for the admin.
        self.max_practice = max_practice
        self.admin_reserve = admin_reserve
        self.disk = RecordingBudget(recordings, recordings_budget)
        # (bind address, Host names it answers to): where a domain with a live 3D view serves it
        self.live_view = live_view
        self.rooms: dict[str, Room] = {}
        self._created = 0
        #: Told of every room opened (True) and removed (False): a room worker reports them to the front.
        self.on_change: Callable[[str, bool], None] | None = None

    # ------------------------------------------------------------------- auth
    def is_admin(self, token: str | None) -> bool:
        return same_secret(token, self.admin_token)

    def require_admin(self, token: str | None) -> None:
        if not self.is_admin(token):
            raise ProtocolError("unauthorized", "this needs the admin token printed when the server started")

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise ProtocolError("no_room", NO_ROOM_TEXT)
        return room

    def authorize(self, room: Room, secret: str | None, admin_token: str | None = None) -> None:
        """Joining: a public room, the room's secret, or the admin token.

        A private room without its secret is answered exactly like a missing room, so nobody can
        learn which ids exist."""
        if room.secret is None or same_secret(secret, room.secret) or self.is_admin(admin_token):
            return
        raise ProtocolError("no_room", NO_ROOM_TEXT)

    # ------------------------------------------------------------------ rooms
    def make_brain(self, model: str, domain: str) -> Brain:
        try:
            return self.brain_factory(model, domain)
        except Exception as exc:  # noqa: BLE001 - any failure to build one is the caller's bad spec
            log.warning("cannot build dispatcher %r: %r", model, exc)
            raise ProtocolError("bad_model", f"cannot use model {model[:80]!r}: {str(exc)[:200]}") from None

    async def create(self, settings: RoomSettings, brain: Brain | None = None) -> Room:
        """Build, open and schedule a room; its secret is None for a public room."""
        if len(self.rooms) >= self.max_rooms:
            raise ProtocolError("bad_state", f"this server hosts at most {self.max_rooms} rooms")
        if settings.practice:
            self._check_practice()
        try:
            settings.spec = domains.validate(settings.spec)
            session = self.session_factory(settings)
            if isinstance(session, LiveView) and self.live_view is not None:
                session.serve_live_view(*self.live_view)
        except (SpecError, ValueError, OSError) as exc:
            raise ProtocolError("invalid", f"cannot make that game: {str(exc)[:200]}") from None
        brain = brain if brain is not None else self.make_brain(settings.model, settings.spec.domain)
        room_id = secrets.token_hex(16)  # 128 bits: ids are not guessable, so not enumerable
        while room_id in self.rooms:
            room_id = secrets.token_hex(16)
        secret = None if settings.public else secrets.token_urlsafe(12)
        folder = self.recordings / PRACTICE_FOLDER if settings.practice else self.recordings
        room = Room(room_id, secret, settings, session, brain, folder)
        try:
            await room.open()
        except Exception as exc:  # noqa: BLE001 - a live world that cannot start: no half-made room stays behind
            log.warning("room %s could not open: %r", room_id, exc)
            await room.close()
            raise ProtocolError("server_error", f"the game could not start: {type(exc).__name__}: {str(exc)[:200]}") from None
        self.rooms[room_id] = room
        if self.on_change is not None:
            self.on_change(room_id, True)
        self._schedule(room)
        room.on_pace = lambda: self._reschedule(room)
        if settings.practice:
            room.on_empty = self.remove
        log.info("room %s: %s x%d, %s, model %s", room_id, settings.spec.level, settings.spec.agents,
                 settings.mode, settings.model)
        return room

    def _check_practice(self) -> None:
        """Practice rooms never take the admin's last rooms, nor more than their own cap (the
        front's `PracticeBudget` also caps them per address and across workers)."""
        if len(self.rooms) >= self.max_rooms - self.admin_reserve:
            raise ProtocolError("bad_state", "the server is nearly full; no practice rooms now")
        if sum(1 for room in self.rooms.values() if room.settings.practice) >= self.max_practice:
            raise ProtocolError("bad_state", "every practice room is taken; try again in a few minutes")

    def _reschedule(self, room: Room) -> None:
        """The room's step period changed (a person sat down or left): move its clock job."""
        job = self.scheduler.get_job(f"room-{room.id}")
        if job is None:
            return
        interval = room.period
        first = datetime.now(UTC) + timedelta(seconds=interval)
        room.schedule(first.timestamp())
        job.reschedule(IntervalTrigger(seconds=interval, start_date=first, timezone=UTC))

    def _schedule(self, room: Room) -> None:
        interval = room.period
        offset = ((self._created * _GOLDEN) % 1.0) * interval
        self._created += 1
        first = datetime.now(UTC) + timedelta(seconds=interval + offset)
        room.schedule(first.timestamp())
        self.scheduler.add_job(room.tick, IntervalTrigger(seconds=interval, start_date=first, timezone=UTC),
                               id=f"room-{room.id}", max_instances=1, coalesce=True,
                               misfire_grace_time=max(1, int(interval * 4)))

    async def set_model(self, room: Room, model: str) -> None:
        # built in a thread: a spec naming a file reads it, and no file read may stall every room
        brain = await asyncio.to_thread(self.make_brain, model, room.settings.spec.domain)
        room.set_brain(brain, model, "changed by the admin")
        room.broadcast_state()

    async def remove(self, room: Room) -> None:
        if self.rooms.pop(room.id, None) is not None and self.on_change is not None:
            self.on_change(room.id, False)
        job = self.scheduler.get_job(f"room-{room.id}")
        if job is not None:
            job.remove()
        await room.close()
        if room.settings.practice:  # anonymous recordings: keep the folder within its budget
            self.disk.request()

    async def close_all(self) -> None:
        for room in list(self.rooms.values()):
            await self.remove(room)

    def listing(self, admin: bool = False) -> list[dict[str, Any]]:
        """Rooms people can join, running ones first (then waiting, then finished); practice rooms are private."""
        order = {"running": 0, "waiting": 1, "finished": 2}
        rooms = [room for room in self.rooms.values() if admin or room.secret is None]
        return [room.summary() for room in sorted(rooms, key=lambda r: order[r.status])]
