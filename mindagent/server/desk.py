"""The room side of the protocol: every message that creates, joins or acts in a room.

It runs wherever rooms live: in the server's own process, or in a room worker process when rooms
are sharded (`serve --workers N`), where the guest is the connection's stand-in on that side. The
lobby (``ping``, ``list_rooms``), rate limits and parsing stay with the websocket connection.

Example::

    desk = RoomDesk(registry, config, domains.get(None))   # the default domain for rooms made without one
    await desk.handle(guest, message, re)   # errors go to the guest as ``error`` messages
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from mindagent.core import registry as domains
from mindagent.core.domain import Domain, SpecError
from mindagent.core.spec import GameSpec
from mindagent.server import protocol as p
from mindagent.server.choices import room_settings
from mindagent.server.room import Member, Room, RoomSettings
from mindagent.server.rooms import RoomRegistry
from mindagent.server.study import StudyFile, entry_settings, new_participant

if TYPE_CHECKING:
    from mindagent.server.app import ServerConfig

log = logging.getLogger(__name__)

#: Message types a connection answers itself, without a room's process.
LOBBY_TYPES = frozenset({"ping", "list_rooms"})
#: Message types that name the room they act on (routed by that id when rooms are sharded).
ROOM_NAMING_TYPES = frozenset({"join", "set_model", "close_room"})
#: Message types only the admin token may send.
#: Messages that open a room of the guest's own (practice, the lobby's choice, a study's episode).
OWN_ROOM_TYPES = frozenset({"practice", "play", "study_consent", "study_next"})
ADMIN_TYPES = frozenset({"create_room", "set_model", "close_room"})


class Guest(Member, Protocol):
    """A room member that remembers its current room (on this side)."""

    room: Room | None


async def answer(guest: Member, handler: Callable[[Any, object], Awaitable[None]], message: Any, re: object) -> None:
    """Run one handler; a refusal or a bug becomes an ``error`` to the sender, never an exception."""
    try:
        await handler(message, re)
    except p.ProtocolError as exc:
        guest.push(p.error_message(exc.code, exc.message, re))
    except Exception:
        log.exception("%s: handling %s failed", guest.name, getattr(message, "type", "?"))
        guest.push(p.error_message("server_error", "the server failed on that message (logged)", re))


class RoomDesk:
    """Room-bound handlers over one registry. `home` is the domain of rooms made without one."""

    def __init__(self, registry: RoomRegistry, config: ServerConfig, home: Domain) -> None:
        self.registry = registry
        self.config = config
        self.home = home
        self._handlers: dict[str, Callable[[Guest, Any, object], Awaitable[None]]] = {
            "create_room": self._create_room, "join": self._join, "practice": self._practice, "play": self._play,
            "leave": self._leave,
            "command": self._command, "instruct": self._instruct, "start": self._start, "restart": self._restart,
            "set_model": self._set_model, "close_room": self._close_room, "questionnaire": self._questionnaire,
            "study_consent": self._study_consent, "study_next": self._study_next,
        }
        self._participants = 0  # participants who agreed here: their numbers set their study order

    async def handle(self, guest: Guest, message: Any, re: object) -> None:
        handler = self._handlers.get(message.type)
        if handler is None:
            guest.push(p.error_message("unknown_type", f"{message.type!r} is not a room message", re))
            return
        await answer(guest, lambda msg, r: handler(guest, msg, r), message, re)

    def drop(self, guest: Guest) -> None:
        """The guest's connection is gone (or moved to a room elsewhere): leave its room here."""
        if guest.room is not None:
            guest.room.leave(guest)
            guest.room = None

    def room_of(self, guest: Guest) -> Room | None:
        """The guest's room if it is still open here."""
        room = guest.room
        return room if room is not None and room.id in self.registry.rooms else None

    def _in_room(self, guest: Guest) -> Room:
        room = self.room_of(guest)
        if room is None:
            raise p.ProtocolError("no_room", "join a room first")
        return room

    # --------------------------------------------------------------- handlers
    async def _create_room(self, guest: Guest, msg: p.CreateRoom, re: object) -> None:
        registry = self.registry
        registry.require_admin(msg.admin_token)
        try:
            domain = domains.get(msg.domain) if msg.domain else self.home
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
        config = self.config
        model, why = (msg.model, "chosen when the room was created") if msg.model else (config.model, config.model_why)
        settings = RoomSettings(
            spec, model, why, msg.mode,
            msg.tick or config.tick, msg.turn_timeout or config.turn_timeout, msg.public, config.prompt, config.repair,
            human_tick=msg.human_tick if msg.human_tick is not None else config.human_tick,
            countdown=msg.countdown if msg.countdown is not None else config.countdown,
            **config.room_options())
        room = await registry.create(settings)
        guest.push(p.server_message("room_created", room=room.id, secret=room.secret, re=re, summary=room.summary()))

    async def _join(self, guest: Guest, msg: p.Join, re: object) -> None:
        room = self.registry.get(msg.room)
        self.registry.authorize(room, msg.secret)
        room.join(guest, msg.role, msg.agent, re)  # raises before changing anything
        if guest.room is not None and guest.room is not room:
            guest.room.leave(guest)
        guest.room = room

    async def _practice(self, guest: Guest, msg: p.Practice, re: object) -> None:
        """A private one-agent practice room in turns (a step when you act), with a coach's hints; it closes
        when you leave. One per connection: a new one replaces the old."""
        domain = self.home
        spec = domain.practice_spec()
        if spec is None:
            raise p.ProtocolError("bad_state", f"{domain.title} has no practice room")
        registry = self.registry
        if guest.room is not None and guest.room.settings.practice:
            old, guest.room = guest.room, None
            old.leave(guest, quiet=True)
            await registry.remove(old)
        config = self.config
        coach = domain.practice_coach  # the game's own: its level, length and coach come from practice_spec
        settings = RoomSettings(spec, coach, "the practice room's coach", "turns", config.tick, 600.0, False,
                                config.prompt, practice=True)
        room = await registry.create(settings, brain=registry.make_brain(coach, domain.name))
        room.coach = registry.make_brain(coach, domain.name)
        registry.authorize(room, room.secret)
        if guest.room is not None:
            guest.room.leave(guest)
        guest.room = room
        room.join(guest, "player", 0, re)

    async def _play(self, guest: Guest, msg: p.Play, re: object) -> None:
        """A private room with the person's own choices (`choices.room_settings`), closed when they
        leave. One per connection, like practice: a new one replaces the old."""
        await self._open_own(guest, room_settings(msg, self.home, self.config), 0, re)

    async def _study_consent(self, guest: Guest, msg: p.StudyConsent, re: object) -> None:
        """A participant agreed: a new participant id, then their first episode's room."""
        study = self._study()
        self._participants += 1
        participant = new_participant(self._participants)
        guest.push(p.server_message("study", participant=participant, index=0, **study.welcome(), re=re))
        await self._study_room(guest, study, participant, 0, re)

    async def _study_next(self, guest: Guest, msg: p.StudyNext, re: object) -> None:
        study = self._study()
        study.entry_for(msg.participant, msg.index)  # refuse an id or index outside the study first
        guest.push(p.server_message("study", participant=msg.participant, index=msg.index, **study.welcome(), re=re))
        await self._study_room(guest, study, msg.participant, msg.index, re)

    def _study(self) -> StudyFile:
        if self.config.study is None:
            raise p.ProtocolError("bad_state", "this server runs no study")
        return self.config.study

    async def _study_room(self, guest: Guest, study: StudyFile, participant: str, index: int, re: object) -> None:
        entry = study.entry_for(participant, index)
        settings = entry_settings(study, entry, self.home, self.config, participant, index)
        await self._open_own(guest, settings, entry.seat, re)

    async def _open_own(self, guest: Guest, settings: RoomSettings, seat: int, re: object) -> None:
        """Open a private room of the guest's own (replacing their practice or chosen room) and
        seat them in it."""
        registry = self.registry
        chosen_rooms = sum(1 for r in registry.rooms.values() if r.settings.chosen is not None)
        if chosen_rooms >= self.config.player_limits.max_rooms:
            raise p.ProtocolError("bad_state", "too many games are being played here right now; try again soon")
        if guest.room is not None and (guest.room.settings.practice or guest.room.settings.chosen is not None):
            old, guest.room = guest.room, None
            old.leave(guest, quiet=True)
            await registry.remove(old)
        room = await registry.create(settings)
        room.on_empty = registry.remove
        if guest.room is not None:
            guest.room.leave(guest)
        guest.room = room
        room.join(guest, "player", seat, re)

    async def _leave(self, guest: Guest, msg: p.Leave, re: object) -> None:
        room = self._in_room(guest)
        room.leave(guest)
        guest.room = None
        guest.push(p.server_message("left", room=room.id, re=re))

    async def _command(self, guest: Guest, msg: p.Command, re: object) -> None:
        step = self._in_room(guest).queue_command(guest, msg.command)
        guest.push(p.server_message("queued", command=msg.command.strip(), step=step, re=re))

    async def _instruct(self, guest: Guest, msg: p.Instruct, re: object) -> None:
        self._in_room(guest).instruct(guest, msg.text)
        guest.push(p.server_message("ack", of="instruct", re=re))

    async def _start(self, guest: Guest, msg: p.Start, re: object) -> None:
        room = self._in_room(guest)
        if not self.registry.is_admin(msg.admin_token) and room.seat_of(guest).role == "spectator":
            raise p.ProtocolError("forbidden", "spectators cannot start a room")
        room.start()
        guest.push(p.server_message("ack", of="start", re=re))

    async def _restart(self, guest: Guest, msg: p.Restart, re: object) -> None:
        room = self._in_room(guest)
        admin = self.registry.is_admin(msg.admin_token)
        if not admin and room.seat_of(guest).role == "spectator":
            raise p.ProtocolError("forbidden", "spectators cannot restart a room")
        if not admin and room.status != "finished":
            raise p.ProtocolError("bad_state", "a room restarts when its episode is over (or with the admin token)")
        await room.restart()
        guest.push(p.server_message("ack", of="restart", re=re))

    async def _set_model(self, guest: Guest, msg: p.SetModel, re: object) -> None:
        registry = self.registry
        registry.require_admin(msg.admin_token)
        room = registry.get(msg.room)
        await registry.set_model(room, msg.model)
        room.broadcast(p.server_message("model_changed", room=room.id, model=msg.model))
        guest.push(p.server_message("ack", of="set_model", re=re))

    async def _close_room(self, guest: Guest, msg: p.CloseRoom, re: object) -> None:
        registry = self.registry
        registry.require_admin(msg.admin_token)
        room = registry.get(msg.room)
        room.broadcast(p.server_message("room_closed", room=room.id))
        await registry.remove(room)
        guest.push(p.server_message("ack", of="close_room", re=re))

    async def _questionnaire(self, guest: Guest, msg: p.Questionnaire, re: object) -> None:
        self._in_room(guest).answer(guest, msg.answers.model_dump(), msg.comment)
        guest.push(p.server_message("ack", of="questionnaire", re=re))
