"""One room: a game, its dispatcher, the people in it, and the clock that steps it.

Real-time mode: the scheduler calls `tick` every ``tick`` seconds and every tick is a step. The
dispatcher thinks in a task started right after each step; a decision that is not ready by the
next tick leaves its agents idle for that step (model latency costs game time) and is used at the
first tick after it arrives. People's commands queue for the next tick.

Turn mode: a step happens as soon as every player has a command queued and the dispatcher has
decided, or when the per-step timer runs out (checked on each tick).

The room orchestrates small collaborators, one concept each: `seating` (who sits where),
`clock` (schedule, pace, countdown, a deserted room), `decisions` (the dispatcher's task, plans
and the joint commands of a step), `encoding` (the messages members get) and `questionnaire`.

Lifecycle: a room nobody plays in any more goes back to waiting (a practice room closes); the
questionnaire is for the people who played the episode; every seat is in the recording.

A room never dies of someone else's failure: a dispatcher or model exception becomes a
``room_error`` event and an idle step for the dispatcher's agents.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from mindagent.core.capabilities import dish_shares_of
from mindagent.core.directions import heard
from mindagent.core.domain import DomainSession, DomainStep
from mindagent.core.episode import Episode
from mindagent.dispatch.brains import Brain, PolicyBrain
from mindagent.dispatch.dispatcher import Decision, Dispatcher
from mindagent.evaluation.scoring import collaboration_score
from mindagent.llm.redact import redact_text
from mindagent.server.clock import LATENESS_KEPT, RoomClock
from mindagent.server.decisions import Decisions, dispatch_for, joint_commands
from mindagent.server.encoding import COALESCE_S, ERROR_REPEAT_S, SourceTally, StateEncoder, step_record
from mindagent.server.episode_log import EpisodeLog
from mindagent.server.protocol import ProtocolError, server_message
from mindagent.server.questionnaire import Questionnaire
from mindagent.server.room_parts import RoomParts
from mindagent.server.scorecard import Scorecard
from mindagent.server.seating import Member, Role, Seat, Seating
from mindagent.server.settings import DECISION_TIMEOUT_S, MAX_MEMBERS, RoomSettings

log = logging.getLogger(__name__)

Status = Literal["waiting", "running", "finished"]
#: Director lines and room errors kept for the page.
HISTORY = 8


class Room(RoomParts):
    """Create with `Room(...)`, then ``await room.open()``; the registry ticks it."""

    def __init__(self, room_id: str, secret: str | None, settings: RoomSettings, session: DomainSession,
                 brain: Brain, recordings: Path, clock: Callable[[], float] = time.time) -> None:
        self.id = room_id
        self.secret = secret
        self.settings = settings
        self.session = session
        self.log = EpisodeLog(recordings, room_id)
        self.status: Status = "waiting"
        self.episode = 1
        self.ticks = 0
        self.errors: deque[str] = deque(maxlen=HISTORY)
        self.chef_lines: deque[dict[str, Any]] = deque(maxlen=HISTORY)
        self.seats = Seating(session.n_agents)
        self.clock = RoomClock(self, clock)
        self.decisions = Decisions(self)
        self.encoder = StateEncoder(self)
        self.questionnaire = Questionnaire()
        #: The last step's actions, feedback and orders done, as the page shows them.
        self.last_step: dict[str, Any] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()
        self.closed = False
        self.dispatcher = self._make_dispatcher(brain)
        self.run = Episode(session, self.dispatcher)
        #: Called when the clock job must move: the step period changed, or an episode started (its
        #: first step falls a full period after the start); the registry reschedules from now.
        self.on_pace: Callable[[], None] | None = None
        #: Called when a practice room is left empty (the registry closes it).
        self.on_empty: Callable[[Room], Awaitable[None]] | None = None
        #: Called once when an autoplay room will play no more episodes (its last one ended, or a
        #: step raised): None, or the error's ``Kind: message`` (`serve --episodes N` exits on it).
        self.on_over: Callable[[str | None], None] | None = None
        #: The practice room's coach: a built-in policy whose next command is offered as a hint.
        self.coach: Brain | None = None
        self.card = Scorecard(session.n_agents, session.credit, lambda: dish_shares_of(self.session))
        #: The episode's recording header, kept from the start until its first step opens the file.
        self._header: dict[str, Any] | None = None
        self.sources = SourceTally()

    # ------------------------------------------------------------------ set-up
    async def open(self) -> None:
        """Start the game (a live-world domain connects here) and, with autoplay, the first episode."""
        await self.session.reset(seed=self.settings.spec.seed)
        self._reset_brain()
        if self.settings.autoplay:
            self.start()

    def set_brain(self, brain: Brain, model: str, why: str) -> None:
        """Swap the dispatcher (the old decision in flight is dropped; memory and feedback stay)."""
        old = self.dispatcher
        self.decisions.cancel()
        self.dispatcher = self._make_dispatcher(brain)
        self.run.dispatcher = self.dispatcher
        self.settings.model, self.settings.model_why = model, why
        self._reset_brain()
        if old.brain is not brain and old.brain is not None:
            self.spawn(old.brain.aclose())
        if self.status == "running":
            self.decisions.start()

    def _make_dispatcher(self, brain: Brain) -> Dispatcher:
        return Dispatcher.for_session(self.session, brain, self.settings.prompt, repair=self.settings.repair,
                                      dispatch=dispatch_for(self.settings, self.session, brain))

    def _reset_brain(self) -> None:
        if isinstance(self.dispatcher.brain, PolicyBrain):
            self.dispatcher.brain.reset(self.session)

    def schedule(self, origin: float) -> None:
        """The wall-clock time of the first tick; ticks fall every `settings.tick` after it."""
        self.clock.schedule(origin)

    async def close(self) -> None:
        """Stop thinking, close the recording (an unfinished episode gets a ``stopped`` line)."""
        self.closed = True
        self.encoder.cancel_pending()
        self.decisions.cancel()
        self.clock.stop_countdown()
        self.log.note("stopped", step=self.session.step_index)
        for task in list(self._background):
            task.cancel()
        self.log.close()
        brain = self.dispatcher.brain
        if brain is not None:
            await brain.aclose()
        try:
            await self.session.aclose()
        except Exception:
            log.exception("room %s: closing the game failed", self.id)

    # ------------------------------------------------------------- membership
    def join(self, member: Member, role: Role, agent: int | None = None, re: object = None) -> Seat:
        """Seat `member` and greet it with `joined`; raises `ProtocolError` ("seat_taken", "invalid")."""
        self.seats.check(member, role, agent, self.settings.max_members)
        self.leave(member, quiet=True)
        seat = self.seats.sit(member, role, agent)
        self.log.note("seat", step=self.session.step_index, event="join", role=role, agent=seat.agent)
        if role != "spectator" and self.status == "running":
            self.seats.played.add(member)
        self.clock.update_pace()
        if role != "spectator" and self.status == "waiting":
            self.clock.begin()
        member.push(self.encoder.welcome(seat, re))
        if role == "spectator":  # the newcomer has its state; the others see the count change soon
            self.encoder.state_later()
            return seat
        self.event(f"{member.name} joined as {self._role_text(seat)}")
        self.broadcast_state()
        return seat

    def leave(self, member: Member, quiet: bool = False) -> None:
        seat = self.seats.stand(member)
        if seat is None:
            return
        self.log.note("seat", step=self.session.step_index, event="leave", role=seat.role, agent=seat.agent)
        self.clock.update_pace()
        if not quiet and seat.role == "spectator":  # who plays did not change: nothing to desert
            self.encoder.state_later()
        elif not quiet:
            self.event(f"{member.name} left ({self._role_text(seat)})")
            self.clock.if_deserted()
            self.broadcast_state()

    def seat_of(self, member: Member) -> Seat:
        return self.seats.seat_of(member)

    def _role_text(self, seat: Seat) -> str:
        return self.seats.role_text(seat, self.session.agent_names, self.encoder.words()["director"])

    # ------------------------------------------------------------ people's input
    def queue_command(self, member: Member, text: str) -> int:
        """Queue a player's command for the next step; returns that step's index."""
        agent, command = self.seats.command_of(member, text, self.session, self.status)
        self.seats.queued[agent] = command
        if self.settings.mode == "turns":
            self.kick()
        return self.session.step_index

    def instruct(self, member: Member, text: str) -> None:
        """A director's instruction, shown to the dispatcher at its next decision."""
        if self.seat_of(member).role != "head_chef":
            raise ProtocolError("forbidden", "only the head chef gives instructions; join as head_chef")
        line = " ".join(text.split())  # one line: no fake prompt sections
        if not line:
            raise ProtocolError("invalid", "an instruction needs some text")
        self.session.add_instruction(line)
        self.chef_lines.append(entry := {"step": self.session.step_index, **heard(self.session, line)})
        self.log.note("head_chef", **entry)  # every line is answered at once: understood, or why not
        self.event(f"{self.encoder.words()['director']}: {line} (dispatcher: {entry['reply']})")

    def answer(self, member: Member, answers: dict[str, int], comment: str) -> None:
        """Store one questionnaire with the episode's recording (once per person per episode)."""
        self.questionnaire.answer(self.seats, member, self.status == "finished", self.log, self.episode, answers,
                                  comment, model=self.settings.model, agents=self.session.n_agents)

    # ---------------------------------------------------------------- episode
    def start(self, announce: bool = True) -> None:
        if self.status != "waiting":
            return
        self.clock.stop_countdown()
        self.status = "running"
        if not self.log.open and self._header is None:
            self._header = self.settings.recording_header(self.session, self.dispatcher.dispatch, self.episode, self.id,
                                                          bool(self.seats.players))
            for member, seat in self.seats.members.items():  # people seated before the start get their line too
                self.log.note("seat", step=self.session.step_index, event="join", role=seat.role, agent=seat.agent)
                if seat.role != "spectator":
                    self.seats.played.add(member)
        self.clock.restart_turn()
        self.clock.restart_schedule()
        self.decisions.start()
        if announce:
            self.broadcast_state()

    async def restart(self) -> None:
        """The next episode in the same room; people keep their seats."""
        async with self._lock:
            self.decisions.cancel()
            if self.log.open:
                self.run.finish()
            self._header = None
            await self.session.reset()
            self._reset_brain()
            self.episode += 1
            self.run = Episode(self.session, self.dispatcher)
            self.seats.new_episode()
            self.last_step = None
            self.questionnaire.new_episode()
            self.card = Scorecard(self.session.n_agents, self.session.credit, lambda: dish_shares_of(self.session))
            self.sources = SourceTally()
            self.status = "waiting"
        if self.settings.autoplay:
            self.start()
        elif self.seats.anyone_plays:
            self.clock.begin()
            self.broadcast_state()
        else:
            self.broadcast_state()

    def _finish(self) -> None:
        c = self.session.counts
        team = self.card.summary(self.session.agent_names)
        if self.settings.study is not None:  # what the participant saw in the results, for `mindagent study export`
            self.log.note("results", team=[{k: v for k, v in a.items() if k != "timeline"} for a in team],
                          score=collaboration_score(c.completed, c.failed, c.active))
        self.run.finish()
        self.decisions.cancel()
        self.status = "finished"
        Questionnaire.send_results(self.seats, {
            "room": self.id, "episode": self.episode,
            "counts": {"completed": c.completed, "failed": c.failed, "active": c.active},
            "score": collaboration_score(c.completed, c.failed, c.active),
            "recording": self.log.path.name if self.log.path else None, "chosen": self.settings.chosen,
            "study": self.settings.study, "team": team, "sources": self.sources.to_dict(self.dispatcher.brain)})
        if self.settings.autoplay and (self.settings.episodes is None or self.episode < self.settings.episodes):
            self.spawn(self.restart())
        elif self.settings.autoplay and self.on_over is not None:
            self.on_over(None)

    def _fail(self, exc: Exception) -> None:
        """A step raised (a live world lost for good, a bug): the game's state after a half-done
        step cannot be trusted, so the episode ends here, its recording's last line naming the
        error, and an autoplay room plays no further episode."""
        self.run.abort(exc)
        self.decisions.cancel()
        self.status = "finished"
        self.broadcast_state()
        if self.settings.autoplay and self.on_over is not None:
            self.on_over(redact_text(f"{type(exc).__name__}: {exc}")[:500])

    # ------------------------------------------------------------------ steps
    async def tick(self) -> None:
        """Called by the scheduler every `settings.tick` seconds; never raises."""
        now = self.clock.now()
        self.clock.count_due(now)
        if self.status != "running" or self.closed:  # a tick already due when the server stopped
            return
        self.ticks += 1
        try:
            await self.step(force=self.settings.mode == "realtime" or now >= self.clock.deadline)
        except asyncio.CancelledError:  # the server is stopping mid-step (a live world's step takes a while)
            log.info("room %s: step cancelled by shutdown", self.id)
        except Exception as exc:
            log.exception("room %s: step failed; the episode ends", self.id)
            self.encoder.room_error(f"the step failed on the server: {type(exc).__name__}; the episode ends")
            self._fail(exc)

    async def step(self, force: bool = True) -> bool:
        """One joint step from people's queued commands and the dispatcher's ready decision.

        Without `force` (turn mode) the step only happens if everyone is ready. Returns whether a
        step happened.
        """
        async with self._lock:
            if self.closed or self.status != "running" or self.session.done or not (force or self._turn_ready()):
                return False
            if self.settings.practice and not self.seats.players:  # left: it is closing, and plays for nobody
                return False
            t = self.session.step_index
            human = self.seats.take_queued()
            # a built-in team decides knowing the people's commands; whoever decided, the director's words hold
            ready = self.run.held(await self.decisions.for_step(human))
            self._open_recording()
            commands, actors = joint_commands(self.session, ready, human, self.seats.players)
            result = await self.run.advance(ready, commands, actors)
            self._remember(t, result, actors, ready)
            for reply in ready.replies if ready else []:
                self.log.note("dispatcher_reply", step=t, text=reply)
                self.event(f"dispatcher: {reply}")
            if self.session.done:
                self._finish()
            else:
                self.clock.restart_turn()
                self.decisions.start()
        self.broadcast_state()
        return True

    def _open_recording(self) -> None:
        """The episode's file opens with its first step: a room started and left before anything
        was played (a practice room opened by anyone, and closed) writes nothing."""
        if self._header is not None and not self.log.open:
            self.run.recorder = self.log.start(self.episode, self._header)
        self._header = None

    def _remember(self, t: int, result: DomainStep, actors: list[str], ready: Decision | None = None) -> None:
        self.last_step = step_record(self.session, t, result, actors, ready, self.dispatcher.brain)
        self.sources.add(self.last_step["actions"], ready)
        self.seats.remember(self.last_step["actions"])
        self.card.add(t, self.last_step["actions"])

    def _turn_ready(self) -> bool:
        players = self.seats.players
        if any(a not in self.seats.queued for a in players):
            return False
        if len(players) == self.session.n_agents or self.decisions.ready is not None:
            return True
        return not self.decisions.thinking  # the dispatcher failed or has nothing to do

    def kick(self) -> None:
        """Turn mode: step now if everyone is ready (only when a person is waiting on it)."""
        if self.settings.mode == "turns" and self.seats.players and self.status == "running" and self._turn_ready():
            self.spawn(self.step(force=False))

    # ------------------------------------------------------------- messages
    def broadcast(self, message: dict[str, Any]) -> None:
        self.encoder.broadcast(message)

    def broadcast_state(self) -> None:
        self.encoder.broadcast_state()

    def state(self) -> dict[str, Any]:
        return self.encoder.state()

    def dispatcher_info(self) -> dict[str, Any]:
        return self.encoder.dispatcher_info()

    def summary(self) -> dict[str, Any]:
        """One line of the room list."""
        return self.encoder.summary()

    def event(self, text: str) -> None:
        log.info("room %s: %s", self.id, text)
        self.broadcast(server_message("event", room=self.id, text=text))

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


__all__ = ["COALESCE_S", "DECISION_TIMEOUT_S", "ERROR_REPEAT_S", "LATENESS_KEPT", "MAX_MEMBERS", "Member", "Role", "Room",
           "RoomSettings", "Seat", "Status"]
