"""One room: a kitchen, its dispatcher, the people in it, and the clock that steps it.

Real-time mode: the scheduler calls `tick` every ``tick`` seconds and every tick is a step. The
dispatcher thinks in a task started right after each step; a decision that is not ready by the
next tick leaves its agents idle for that step (model latency costs game time) and is used at the
first tick after it arrives. People's commands queue for the next tick.

Turn mode: a step happens as soon as every player has a command queued and the dispatcher has
decided, or when the per-step timer runs out (checked on each tick).

People's pace (`pacing.py`): while a person plays an agent, a real-time room steps every
`human_tick` seconds, and the first step waits a `countdown` after the first person sits down
(a player's "ready" skips it). Commands of one step run in order: the dispatcher's first, in the
order it chose them (a planner's later command may rely on an earlier one), then the people's,
so nothing a person does can make the dispatcher's checked commands fail.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from mindagent.core.capabilities import goal_menu_of
from mindagent.core.domain import CommandError, DomainSession, DomainStep
from mindagent.core.episode import Episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, LLMBrain, PolicyBrain
from mindagent.dispatch.dispatcher import Decision, Dispatcher, DispatchSettings
from mindagent.dispatch.plans import Plan
from mindagent.dispatch.prompt import PromptConfig
from mindagent.evaluation.scoring import collaboration_score
from mindagent.llm.redact import redact_text
from mindagent.server.episode_log import EpisodeLog
from mindagent.server.fanout import Frame, encode
from mindagent.server.pacing import Pace
from mindagent.server.protocol import QUESTIONNAIRE, ProtocolError, server_message
from mindagent.server.scorecard import Scorecard

log = logging.getLogger(__name__)

Role = Literal["player", "head_chef", "spectator"]
Status = Literal["waiting", "running", "finished"]
#: A dispatcher call that takes longer than this is abandoned (its agents stay idle meanwhile).
DECISION_TIMEOUT_S = 120.0
#: Head-chef lines and room errors kept for the page.
HISTORY = 8
#: The same room error is said again only after this many seconds (a dead model fails every step).
ERROR_REPEAT_S = 10.0
#: Members of one room at once, by default (`--max-room-members`).
MAX_MEMBERS = 600
#: Scheduled ticks whose lateness a room keeps (for benchmarks; the oldest are dropped).
LATENESS_KEPT = 20_000
#: Spectators joining and leaving change only the people count: one state broadcast per this many
#: seconds carries all of it (a join used to cost a full state to every member).
COALESCE_S = 0.25


class Member(Protocol):
    """Someone in a room: a websocket connection, or a test double. `push` must not block."""

    name: str

    def push(self, message: dict[str, Any]) -> None: ...


@dataclass
class Seat:
    role: Role
    agent: int | None = None


@dataclass
class RoomSettings:
    """How a room plays. Example: ``RoomSettings(GameSpec(level="level_3", agents=4), "planner", "chosen at creation")``.

    `autoplay` starts the first episode without waiting for a person and starts the next one when
    an episode ends (a world people watch or join from a game client), up to `episodes` episodes."""

    spec: GameSpec
    model: str
    model_why: str
    mode: Literal["realtime", "turns"] = "realtime"
    tick: float = 1.0
    turn_timeout: float = 30.0
    public: bool = False
    prompt: PromptConfig = field(default_factory=PromptConfig)
    repair: int = 0
    decision_timeout: float = DECISION_TIMEOUT_S
    autoplay: bool = False
    episodes: int | None = None
    #: How the dispatcher answers; None: goal mode for an in-process model where the domain has
    #: one (a small local model is too slow to command every tick), one step per call otherwise.
    dispatch: DispatchSettings | None = None
    #: Real time: seconds per step while a person plays an agent (None: `tick` always); see pacing.py.
    human_tick: float | None = None
    #: Seconds from the first person sitting down to step 0 (0: start at once).
    countdown: float = 0.0
    #: A one-person practice kitchen: the page gets a hint (the built-in planner's next command).
    practice: bool = False
    #: Members at once (players, head chefs, spectators); more are refused with ``bad_state``.
    max_members: int = MAX_MEMBERS

    @property
    def pace(self) -> Pace:
        return Pace(self.mode, self.tick, self.human_tick, self.countdown)

    def describe(self) -> dict[str, Any]:
        s = self.spec
        return {"domain": s.domain, "level": s.level, "agents": s.agents, "tau": s.tau, "seed": s.seed, "mode": self.mode,
                "tick": self.tick, "turn_timeout": self.turn_timeout, "public": self.public,
                "human_tick": self.human_tick, "countdown": self.countdown, "practice": self.practice}


class Room:
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
        #: Clock honesty (benchmarks): each scheduled tick's lateness, measured from its own
        #: scheduled time to the run that served it; a tick skipped or merged into a late run
        #: counts with that run's lateness, and `ticks_due` against `tick_runs` shows the merging.
        self.lags: deque[float] = deque(maxlen=LATENESS_KEPT)
        self.ticks_due = 0
        self.tick_runs = 0
        self.errors: deque[str] = deque(maxlen=HISTORY)
        self.chef_lines: deque[dict[str, Any]] = deque(maxlen=HISTORY)
        self._clock = clock
        self._origin = clock()
        self._due = self._origin  # the next scheduled tick not yet run
        self._members: dict[Member, Seat] = {}
        self._roles: dict[str, int] = dict.fromkeys(("player", "head_chef", "spectator"), 0)  # people per role
        self._players: dict[int, Member] = {}
        self._queued: dict[int, str] = {}
        self._last_human: dict[int, tuple[str, bool, str | None]] = {}  # command, ok, why not
        self._last_step: dict[str, Any] | None = None
        self._ready: Decision | None = None
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()
        self._deadline = 0.0
        self._answered: set[Member] = set()
        self._answered_seats: set[tuple[str, int | None]] = set()
        self._state_soon: asyncio.TimerHandle | None = None  # a coalesced state broadcast pending
        self._view_cache: tuple[tuple[int, int, int], dict[str, Any]] | None = None
        self._heavy_cache: tuple[tuple[int, int, int, int], dict[str, Any], str] | None = None
        self._static_cache: tuple[int, dict[str, Any], str] | None = None
        self._closed = False
        self._last_error_at = 0.0
        self._plan: Plan | None = None
        self._plan_calls: list[Any] = []  # calls that made the standing plan, recorded with its first step
        self.dispatcher = self._make_dispatcher(brain)
        self.run = Episode(session, self.dispatcher)
        #: Called when the step period changes (the registry moves the clock job).
        self.on_pace: Callable[[], None] | None = None
        #: Called when a practice room is left empty (the registry closes it).
        self.on_empty: Callable[[Room], Awaitable[None]] | None = None
        #: The practice room's coach: a built-in policy whose next command is offered as a hint.
        self.coach: Brain | None = None
        self.starts_at: float | None = None
        self.card = Scorecard(session.n_agents, session.credit)
        self._countdown: asyncio.Task[None] | None = None
        self._played: set[Member] = set()
        self._period = settings.tick

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
        self._cancel_decision()
        self.dispatcher = self._make_dispatcher(brain)
        self.run.dispatcher = self.dispatcher
        self.settings.model, self.settings.model_why = model, why
        self._reset_brain()
        if old.brain is not brain and old.brain is not None:
            self._spawn(old.brain.aclose())
        if self.status == "running":
            self._start_decision()

    def _make_dispatcher(self, brain: Brain) -> Dispatcher:
        return Dispatcher.for_session(self.session, brain, self.settings.prompt, repair=self.settings.repair,
                                      dispatch=self._dispatch_for(brain))

    def _dispatch_for(self, brain: Brain) -> DispatchSettings:
        """The room's dispatch mode for this brain (see `RoomSettings.dispatch`)."""
        chosen = self.settings.dispatch
        if chosen is None:
            local = isinstance(brain, LLMBrain) and brain.name.startswith("local:")
            chosen = DispatchSettings("goals") if local and goal_menu_of(self.session) is not None else DispatchSettings()
        if chosen.mode == "goals" and goal_menu_of(self.session) is None:
            return DispatchSettings()  # a domain without goal mode: per-step commands
        if chosen.executor == "model" and not isinstance(brain, LLMBrain):
            return replace(chosen, executor="rule")  # a built-in policy carries out subtasks by rule
        return chosen

    def _reset_brain(self) -> None:
        if isinstance(self.dispatcher.brain, PolicyBrain):
            self.dispatcher.brain.reset(self.session)

    def schedule(self, origin: float) -> None:
        """The wall-clock time of the first tick; ticks fall every `settings.tick` after it."""
        self._origin = origin
        self._due = origin

    async def close(self) -> None:
        """Stop thinking, close the recording (an unfinished episode gets a ``stopped`` line)."""
        self._closed = True
        if self._state_soon is not None:
            self._state_soon.cancel()
            self._state_soon = None
        self._cancel_decision()
        self._stop_countdown()
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
        if role == "player":
            if agent is None or not 0 <= agent < self.session.n_agents:
                raise ProtocolError("invalid", f"pick an agent from 0 to {self.session.n_agents - 1}")
            holder = self._players.get(agent)
            if holder is not None and holder is not member:
                raise ProtocolError("seat_taken", f"agent{agent} already has a player")
        if member not in self._members and len(self._members) >= self.settings.max_members:
            raise ProtocolError("bad_state", f"this room is full ({self.settings.max_members} people)")
        self.leave(member, quiet=True)
        seat = Seat(role, agent if role == "player" else None)
        self._members[member] = seat
        self._roles[role] += 1
        if seat.agent is not None:
            self._players[seat.agent] = member
        self.log.note("seat", step=self.session.step_index, event="join", role=role, agent=seat.agent)
        if role != "spectator" and self.status == "running":
            self._played.add(member)
        self._update_pace()
        if role != "spectator" and self.status == "waiting":
            self._begin()
        member.push(self.welcome(seat, re))
        if role == "spectator":  # the newcomer has its state; the others see the count change soon
            self._state_later()
            return seat
        self._event(f"{member.name} joined as {self._role_text(seat)}")
        self.broadcast_state()
        return seat

    def leave(self, member: Member, quiet: bool = False) -> None:
        seat = self._members.pop(member, None)
        if seat is None:
            return
        self._roles[seat.role] -= 1
        if seat.agent is not None and self._players.get(seat.agent) is member:
            del self._players[seat.agent]
            self._queued.pop(seat.agent, None)
        self.log.note("seat", step=self.session.step_index, event="leave", role=seat.role, agent=seat.agent)
        self._update_pace()
        if not quiet and seat.role == "spectator":  # who plays did not change: nothing to desert
            self._state_later()
        elif not quiet:
            self._event(f"{member.name} left ({self._role_text(seat)})")
            self._if_deserted()
            self.broadcast_state()

    def seat_of(self, member: Member) -> Seat:
        seat = self._members.get(member)
        if seat is None:
            raise ProtocolError("no_room", "join a room first")
        return seat

    @property
    def members(self) -> int:
        return len(self._members)

    @property
    def human_agents(self) -> list[int]:
        return sorted(self._players)

    # ------------------------------------------------------------ people's input
    def queue_command(self, member: Member, text: str) -> int:
        """Queue a player's command for the next step; returns that step's index."""
        seat = self.seat_of(member)
        if seat.role != "player" or seat.agent is None:
            raise ProtocolError("forbidden", "only players command agents; join as a player")
        if self.status != "running":
            raise ProtocolError("bad_state", f"the room is {self.status}")
        try:
            command = self.session.parse_command(text)
        except CommandError as exc:
            raise ProtocolError("bad_command", str(exc)) from None
        agent = self.session.agent_of(command)
        if agent != seat.agent:
            names = self.session.agent_names
            raise ProtocolError("forbidden", f"you control {names[seat.agent]}; "
                                             f"{'that command names no agent' if agent is None else names[agent] + ' is not yours'}")
        self._queued[seat.agent] = command
        if self.settings.mode == "turns":
            self._kick()
        return self.session.step_index

    def instruct(self, member: Member, text: str) -> None:
        """A head chef's instruction, shown to the dispatcher at its next decision."""
        if self.seat_of(member).role != "head_chef":
            raise ProtocolError("forbidden", "only the head chef gives instructions; join as head_chef")
        line = " ".join(text.split())  # one line: no fake prompt sections
        if not line:
            raise ProtocolError("invalid", "an instruction needs some text")
        self.session.add_instruction(line)
        self.chef_lines.append({"step": self.session.step_index, "text": line})
        self.log.note("head_chef", step=self.session.step_index, text=line)
        self.broadcast(server_message("event", room=self.id, text=f"head chef: {line}"))

    def answer(self, member: Member, answers: dict[str, int], comment: str) -> None:
        """Store one questionnaire with the episode's recording (once per person per episode)."""
        seat = self.seat_of(member)
        if self.status != "finished":
            raise ProtocolError("bad_state", "the questionnaire opens when the episode is over")
        if member not in self._played:
            raise ProtocolError("forbidden", "the questionnaire is for the people who played this episode")
        # one answer per seat (an agent's player, the head chef), not per connection: twenty
        # connections that sat in once do not make twenty people
        key = (seat.role, seat.agent)
        if member in self._answered or key in self._answered_seats:
            raise ProtocolError("bad_state", "this seat already answered for this episode")
        self._answered.add(member)
        self._answered_seats.add(key)
        self.log.questionnaire(episode=self.episode, role=seat.role, agent=seat.agent, answers=answers,
                               comment=comment.strip(), model=self.settings.model, agents=self.session.n_agents)

    # ---------------------------------------------------------------- episode
    def start(self, announce: bool = True) -> None:
        if self.status != "waiting":
            return
        self._stop_countdown()
        self.status = "running"
        if not self.log.open:
            spec = self.settings.spec
            self.run.recorder = self.log.start(self.episode, {
                **spec.header(), "max_steps": self.session.max_steps, "model": self.settings.model,
                "prompt": self.settings.prompt.to_dict(), "repair": self.settings.repair,
                "dispatch": self.dispatcher.dispatch.to_dict(), **self.session.episode_header(),
                "episode": self.episode, "room": self.id, **{k: v for k, v in self.settings.describe().items()
                                                             if k in ("mode", "tick", "turn_timeout")},
                "pacing": self.settings.pace.record(bool(self._players)),
            })
            for member, seat in self._members.items():  # people seated before the start get their line too
                self.log.note("seat", step=self.session.step_index, event="join", role=seat.role, agent=seat.agent)
                if seat.role != "spectator":
                    self._played.add(member)
        self._deadline = self._clock() + self.settings.turn_timeout
        self._start_decision()
        if announce:
            self.broadcast_state()

    async def restart(self) -> None:
        """The next episode in the same room; people keep their seats."""
        async with self._lock:
            self._cancel_decision()
            if self.log.open:
                self.run.finish()
            await self.session.reset()
            self._reset_brain()
            self.episode += 1
            self.run = Episode(self.session, self.dispatcher)
            self._queued, self._last_human = {}, {}
            self._last_step, self._ready = None, None
            self._answered.clear()
            self._answered_seats.clear()
            self._played.clear()
            self.card = Scorecard(self.session.n_agents, self.session.credit)
            self.status = "waiting"
        if self.settings.autoplay:
            self.start()
        elif any(seat.role != "spectator" for seat in self._members.values()):
            self._begin()
            self.broadcast_state()
        else:
            self.broadcast_state()

    def _finish(self) -> None:
        c = self.session.counts
        self.run.finish()
        self._cancel_decision()
        self.status = "finished"
        shared = {"room": self.id, "episode": self.episode,
                  "counts": {"completed": c.completed, "failed": c.failed, "active": c.active},
                  "score": collaboration_score(c.completed, c.failed, c.active),
                  "recording": self.log.path.name if self.log.path else None,
                  "team": self.card.summary(self.session.agent_names)}
        for member, seat in list(self._members.items()):
            played = member in self._played
            member.push(server_message("episode_over", **shared, questionnaire=list(QUESTIONNAIRE) if played else [],
                                       played=played, agent=seat.agent))
        if self.settings.autoplay and (self.settings.episodes is None or self.episode < self.settings.episodes):
            self._spawn(self.restart())

    # ------------------------------------------------------- pace and lifecycle
    @property
    def period(self) -> float:
        """Seconds between clock ticks now (slower while a person plays in real time)."""
        return self._period

    def _begin(self) -> None:
        """A person sat down in a waiting room: count down to step 0 (or start at once)."""
        if self.status != "waiting" or self._countdown is not None:
            return
        wait = self.settings.countdown
        if wait <= 0:
            self.start(announce=False)
            return
        self.starts_at = self._clock() + wait
        self._countdown = asyncio.get_running_loop().create_task(self._count_down(wait))
        self._event(f"the game starts in {wait:g} seconds (a player can press Ready to start now)")

    async def _count_down(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._countdown = None
        self.starts_at = None
        if self.status == "waiting" and any(s.role != "spectator" for s in self._members.values()):
            self.start()

    def _stop_countdown(self) -> None:
        task, self._countdown, self.starts_at = self._countdown, None, None
        if task is not None and task is not asyncio.current_task() and not task.done():
            task.cancel()

    def _update_pace(self) -> None:
        """People joined or left: move to their pace or back to the machines' (recorded if it changed)."""
        period = self.settings.pace.period(bool(self._players))
        if period == self._period:
            return
        self._period = period
        self.log.note("pace", step=self.session.step_index, step_every_s=period, people=len(self._players))
        if self.on_pace is not None:
            self.on_pace()

    def _if_deserted(self) -> None:
        """Nobody plays any more: a practice room closes, any other (not autoplay) goes back to waiting."""
        if self.settings.autoplay or any(s.role != "spectator" for s in self._members.values()):
            return
        self._stop_countdown()
        if self.settings.practice and self.on_empty is not None:
            self._spawn(self.on_empty(self))
        elif self.status != "waiting":
            self._spawn(self.restart())

    def _hint(self, agent: int) -> str | None:
        """The coach's next command for `agent` (practice rooms), or None."""
        coach = self.coach
        if coach is None or isinstance(coach, LLMBrain):
            return None
        try:
            return next((c for c in coach.act(self.session) if self.session.agent_of(c) == agent), None)
        except Exception:  # a hint is a nicety; never break the state message
            log.exception("room %s: the coach failed", self.id)
            return None

    # ------------------------------------------------------------------ clock
    async def tick(self) -> None:
        """Called by the scheduler every `settings.tick` seconds; never raises."""
        now = self._clock()
        self._count_due(now)
        if self.status != "running" or self._closed:  # a tick already due when the server stopped
            return
        self.ticks += 1
        try:
            await self.step(force=self.settings.mode == "realtime" or now >= self._deadline)
        except asyncio.CancelledError:  # the server is stopping mid-step (a live world's step takes a while)
            log.info("room %s: step cancelled by shutdown", self.id)
        except Exception as exc:
            log.exception("room %s: step failed", self.id)
            self._room_error(f"the step failed on the server: {type(exc).__name__}")

    def _count_due(self, now: float) -> None:
        """Every scheduled tick up to now is served by this run (a run up to half a period early
        serves the next one: the scheduler's timer may fire a hair before its time)."""
        self.tick_runs += 1
        period = self._period
        if self._due > now + period / 2:
            return
        due = int((now + period / 2 - self._due) // period) + 1
        for k in range(min(due, LATENESS_KEPT)):  # a clock stalled for hours is not worth a list
            self.lags.append(max(0.0, now - (self._due + k * period)))
        self.ticks_due += due
        self._due += due * period

    async def step(self, force: bool = True) -> bool:
        """One joint step from people's queued commands and the dispatcher's ready decision.

        Without `force` (turn mode) the step only happens if everyone is ready. Returns whether a
        step happened.
        """
        async with self._lock:
            if self._closed or self.status != "running" or self.session.done or not (force or self._turn_ready()):
                return False
            t = self.session.step_index
            if self.dispatcher.plans:
                ready = self._plan_step()
            else:
                ready, self._ready = self._ready, None
            commands, actors = self._joint_commands(ready)
            result = await self.run.advance(ready, commands, actors)
            self._remember(t, result, actors)
            for reply in ready.replies if ready else []:
                self.log.note("dispatcher_reply", step=t, text=reply)
                self._event(f"dispatcher: {reply}")
            if self.session.done:
                self._finish()
            else:
                self._deadline = self._clock() + self.settings.turn_timeout
                self._start_decision()
        self.broadcast_state()
        return True

    def _joint_commands(self, ready: Decision | None) -> tuple[list[str], list[str]]:
        human = {a: c for a, c in self._queued.items() if a in self._players}
        self._queued.clear()
        machine: dict[int, str] = {}
        for command in ready.commands if ready else []:
            a = self.session.agent_of(command)
            if a is not None and a not in self._players and a not in machine:
                machine[a] = command
        # The dispatcher's commands run first, in its own order; then the people's (see the module doc).
        commands = list(machine.values())
        actors = ["dispatcher"] * len(commands)
        for a in range(self.session.n_agents):
            if a in machine:
                continue
            if a in human:
                commands.append(human[a])
                actors.append("human")
            else:
                commands.append(self.session.idle_command(a))
                actors.append("human_idle" if a in self._players else "dispatcher_idle")
        return commands, actors

    def _remember(self, t: int, result: DomainStep, actors: list[str]) -> None:
        actions: list[dict[str, Any]] = []
        for i, (verdict, actor) in enumerate(zip(result.verdicts, actors, strict=True)):
            a = self.session.agent_of(verdict.command)
            a = i if a is None else a
            actions.append({"agent": a, "command": verdict.command, "ok": verdict.ok, "reason": verdict.text,
                            "by": actor.split("_")[0], "idle": actor.endswith("_idle"),
                            "wait": verdict.command == self.session.idle_command(a)})
            if actor == "human":
                self._last_human[a] = (verdict.command, verdict.ok, verdict.text)
            elif actor == "human_idle":
                self._last_human[a] = ("nothing (no command in time)", True, None)
        actions.sort(key=lambda action: action["agent"])
        self.card.add(t, actions)
        self._last_step = {"step": t, "actions": actions, "feedback": list(result.notes),
                           "completed": list(result.completed), "failed": list(result.failed)}

    def _turn_ready(self) -> bool:
        if any(a not in self._queued for a in self._players):
            return False
        if len(self._players) == self.session.n_agents or self._ready is not None:
            return True
        return self._task is None or self._task.done()  # the dispatcher failed or has nothing to do

    def _kick(self) -> None:
        """Turn mode: step now if everyone is ready (only when a person is waiting on it)."""
        if self.settings.mode == "turns" and self._players and self.status == "running" and self._turn_ready():
            self._spawn(self.step(force=False))

    # ------------------------------------------------------------- dispatcher
    def _plan_step(self) -> Decision | None:
        """Plan or goal mode: this tick's commands from the standing plan, re-checked now.

        None when there is no plan yet or it has run out, diverged or been refused; then a new
        one is asked for (`_start_decision` after the step) and the agents idle this tick. The
        decision names the plan and the position in it, so the recording shows which plan
        acted at every step."""
        plan = self._plan
        calls, self._plan_calls = self._plan_calls, []
        commands = plan.next(self.session) if plan is not None else None
        if plan is None or commands is None:
            self._plan = None
            return Decision([], [], calls, plan=plan.describe()) if plan is not None else None
        ours, theirs = self.run.split([a for a in range(self.session.n_agents) if a not in self._players])
        commands = self.dispatcher.mine(self.session, commands, ours)
        return self.run.with_partners(Decision(commands, self.session.check(commands), calls, plan=plan.describe()),
                                      theirs)

    def _start_decision(self) -> None:
        if self.status != "running" or self.session.done or self.dispatcher.brain is None:
            return
        if self.dispatcher.plans and self._plan is not None and not self._plan.wants_renewal(self.session):
            return  # the standing plan still acts
        if self._task is not None and not self._task.done():
            return  # still thinking about an earlier step: one call in flight per room
        if len(self._players) < self.session.n_agents:
            self._task = asyncio.get_running_loop().create_task(self._decide())

    async def _decide(self) -> None:
        """Read the kitchen as it is when the task runs (people may have joined since it was started)."""
        controlled = [a for a in range(self.session.n_agents) if a not in self._players]
        if not controlled or self.status != "running":
            return
        if self.dispatcher.plans:
            await self._decide_plan(self.run.split(controlled)[0] or [])
            return
        try:  # `act`: the per-step or decentral dispatcher, plus the partners of `--control`
            thinking = self.run.act(controlled, self._people_lines())
            if isinstance(self.dispatcher.brain, LLMBrain):
                decision = await asyncio.wait_for(thinking, timeout=self.settings.decision_timeout)
            else:  # a built-in policy answers at once; no timer task needed
                decision = await thinking
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - model and dispatcher failures become a room error
            log.warning("room %s: dispatcher failed: %r", self.id, exc)
            self._room_error(f"the dispatcher failed ({type(exc).__name__}: {str(exc)[:200]}); "
                             "its agents idle this step")
            self._kick()
            return
        if decision.errors:
            self._room_error(f"model call failed ({decision.errors[-1][:200]})")
        self._show_new_instructions(decision.head_chef)
        self._ready = decision
        self._kick()

    async def _decide_plan(self, controlled: list[int]) -> None:
        """Ask for a new plan within the decision timeout; the old one (if any) acts meanwhile."""
        head_chef = self.session.pending_instructions()
        try:
            plan, calls, _shown = await asyncio.wait_for(
                self.dispatcher.make_plan(self.session, self.run.memory, list(self.run.feedback), head_chef,
                                          controlled, self._people_lines()),
                timeout=self.settings.decision_timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - model and dispatcher failures become a room error
            log.warning("room %s: planning failed: %r", self.id, exc)
            self._room_error(f"the dispatcher failed ({type(exc).__name__}: {str(exc)[:200]})")
            return
        errors = [f"{c.error_kind or 'LLMError'}: {c.error}" for c in calls if c.error]
        if errors:
            self._room_error(f"model call failed ({errors[-1][:200]})")
        self._show_new_instructions(head_chef)
        self._plan = plan
        self._plan_calls += calls
        self._kick()

    def _show_new_instructions(self, lines: list[str]) -> None:
        """Instructions that reached the dispatcher from elsewhere (a game client's chat) join the
        page's head-chef list; standing ones already shown are not repeated."""
        shown = {entry["text"] for entry in self.chef_lines}
        for line in lines:
            if line not in shown:
                self.chef_lines.append({"step": self.session.step_index, "text": line})
                self.log.note("head_chef", step=self.session.step_index, text=line)
                shown.add(line)

    def _cancel_decision(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None
        self._ready = None
        self._plan, self._plan_calls = None, []

    def _people_lines(self) -> list[str]:
        if not self._players:
            return []
        lines = ["People in the team (do not command their agents; work with them):"]
        names = self.session.agent_names
        for a in sorted(self._players):
            last = self._last_human.get(a)
            if last is None:
                did = "nothing yet"
            else:
                did = last[0] if last[0].startswith("nothing") else \
                    f"{last[0]} ({'done' if last[1] else 'refused: ' + (last[2] or 'no reason given')})"
            lines.append(f"- {names[a]} is played by a person. Last step it did: {did}")
        return lines

    # ------------------------------------------------------------- messages
    def broadcast(self, message: dict[str, Any]) -> None:
        frame = Frame(message)  # encoded once, whatever the room's size
        for member in list(self._members):
            member.push(frame)

    def broadcast_state(self) -> None:
        """The state to every member, encoded once per distinct ``you`` (all spectators share one,
        and the step's bulky part is encoded once per step, not once per broadcast)."""
        if self._state_soon is not None:
            self._state_soon.cancel()
            self._state_soon = None
        light, heavy, heavy_text = self._state_parts()
        frames: dict[Any, Frame] = {}
        for member, seat in list(self._members.items()):
            you = self.you(seat)
            # a seat without an agent sees only its role: no need to encode `you` to tell them apart
            key: Any = seat.role if seat.agent is None else encode(you)
            frame = frames.get(key)
            if frame is None:
                message = server_message("state", **light, you=you)
                frame = frames[key] = Frame.encoded({**message, **heavy}, _splice(encode(message), heavy_text))
            member.push(frame)

    def _state_later(self) -> None:
        """A state broadcast within `COALESCE_S` (one for any number of spectator joins and leaves
        meanwhile); a tick's own state broadcast takes its place."""
        if self._state_soon is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous test driving the room): at once
            self.broadcast_state()
            return
        self._state_soon = loop.call_later(COALESCE_S, self._flush_state)

    def _flush_state(self) -> None:
        self._state_soon = None
        if not self._closed:
            self.broadcast_state()

    def state(self) -> dict[str, Any]:
        light, heavy, _ = self._state_parts()
        return {**light, **heavy}

    def _state_parts(self) -> tuple[dict[str, Any], dict[str, Any], str]:
        """The state in two parts: what may change between steps (encoded per message) and what
        changes only with a step (the view and the last step: most of the bytes), with the latter's
        encoded members, built once per step; a join used to re-encode all of it."""
        key = (self.episode, self.session.step_index, self.ticks, id(self._last_step))
        if self._heavy_cache is None or self._heavy_cache[0] != key:
            heavy = {**self._view(), "last_step": self._last_step}
            self._heavy_cache = (key, heavy, encode(heavy)[1:-1])
        light, heavy = self._light_state(), self._heavy_cache[1]
        for name in heavy:  # the view's entries win (its "agents" is the agents' list, not their count)
            light.pop(name, None)
        return light, heavy, self._heavy_cache[2]

    def _light_state(self) -> dict[str, Any]:
        c = self.session.counts
        now = self._clock()
        if self.settings.mode == "realtime":
            next_in = self._period - ((now - self._origin) % self._period)
        else:
            next_in = max(0.0, self._deadline - now)
        return {
            "room": self.id, "status": self.status, "episode": self.episode, **self.settings.describe(),
            "step": self.session.step_index, "max_steps": self.session.max_steps, "ticks": self.ticks,
            "next_step_in": round(next_in, 3) if self.status == "running" else None,
            "controllers": ["human" if a in self._players else "dispatcher" for a in range(self.session.n_agents)],
            "counts": {"completed": c.completed, "failed": c.failed, "active": c.active},
            "score": collaboration_score(c.completed, c.failed, c.active),
            "dispatcher": self.dispatcher_info(),
            "head_chef": list(self.chef_lines), "errors": list(self.errors),
            "people": self._people_count(),
            "step_every": self._period if self.settings.mode == "realtime" else None,
            "starts_in": round(max(0.0, self.starts_at - now), 3) if self.starts_at is not None else None,
        }

    def you(self, seat: Seat) -> dict[str, Any]:
        out: dict[str, Any] = {"role": seat.role, "agent": seat.agent}
        if seat.agent is not None:
            playing = self.status == "running" and not self.session.done
            out["legal"] = self.session.legal_commands(seat.agent) if playing else []
            out["queued"] = self._queued.get(seat.agent)
            if self.coach is not None and playing:
                out["hint"] = self._hint(seat.agent)
        return out

    def dispatcher_info(self) -> dict[str, Any]:
        brain = self.dispatcher.brain
        return {"model": self.settings.model, "why": self.settings.model_why,
                "name": brain.name if brain is not None else None,
                "thinking": isinstance(brain, LLMBrain) and self._task is not None and not self._task.done()}

    def summary(self) -> dict[str, Any]:
        """One line of the room list."""
        c = self.session.counts
        return {"room": self.id, **self.settings.describe(), "status": self.status, "step": self.session.step_index,
                "agent_names": self.session.agent_names,
                "max_steps": self.session.max_steps, "players": self.human_agents, "people": self._people_count(),
                "model": self.settings.model, "score": collaboration_score(c.completed, c.failed, c.active)}

    def _view(self) -> dict[str, Any]:
        """The session's view, built once per step (joins between steps reuse it)."""
        key = (self.episode, self.session.step_index, self.ticks)
        if self._view_cache is None or self._view_cache[0] != key:
            self._view_cache = (key, self.session.view())
        return self._view_cache[1]

    def _static_view(self) -> tuple[dict[str, Any], str]:
        """The level's static data (with the questionnaire) and its encoded members, built once
        per episode: a join used to rebuild and re-encode it."""
        if self._static_cache is None or self._static_cache[0] != self.episode:
            static = {**self.session.static_view(), "questionnaire": list(QUESTIONNAIRE)}
            self._static_cache = (self.episode, static, encode(static)[1:-1])
        return self._static_cache[1], self._static_cache[2]

    def welcome(self, seat: Seat, re: object = None) -> Frame:
        """The `joined` message: static level data plus the first state (``re`` when given); the
        static part is spliced in already encoded."""
        static, static_text = self._static_view()
        light, heavy, heavy_text = self._state_parts()
        state = {**light, "you": self.you(seat)}
        rest = server_message("joined", room=self.id, role=seat.role, agent=seat.agent,
                              **({"re": re} if re is not None else {}))
        text = _splice(encode(rest), '"state":' + _splice(encode(state), heavy_text))
        return Frame.encoded({**rest, "state": {**state, **heavy}, **static}, _splice(text, static_text))

    def _people_count(self) -> dict[str, int]:
        return dict(self._roles)

    def _role_text(self, seat: Seat) -> str:
        if seat.role == "player" and seat.agent is not None:
            return f"player of {self.session.agent_names[seat.agent]}"
        return seat.role.replace("_", " ")

    def _event(self, text: str) -> None:
        log.info("room %s: %s", self.id, text)
        self.broadcast(server_message("event", room=self.id, text=text))

    def _room_error(self, text: str) -> None:
        """Tell the room (the same error again within `ERROR_REPEAT_S` is only logged and recorded).

        Error text quotes SDK messages, which quote URLs: redacted before anyone sees or records it."""
        text = redact_text(text)
        self.log.note("room_error", step=self.session.step_index, text=text)
        now = self._clock()
        if self.errors and self.errors[-1] == text and now - self._last_error_at < ERROR_REPEAT_S:
            return
        self._last_error_at = now
        self.errors.append(text)
        self.broadcast(server_message("room_error", room=self.id, step=self.session.step_index, message=text))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _splice(text: str, members: str) -> str:
    """Add already-encoded members (``"k":v,...``, no braces) to an encoded object."""
    if not members:
        return text
    return text[:-1] + ("," if text != "{}" else "") + members + "}"
