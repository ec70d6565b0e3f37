"""What a room sends: the `state` and `joined` messages, encoded as few times as possible.

A state has a light part that may change between steps (seats, people, the clock) and a heavy part
that changes only with a step (the game's view and the last step: most of the bytes). The heavy
part is encoded once per step and spliced into each message already encoded; all spectators share
one frame. Spectators joining and leaving change only the people count, so their state
broadcasts are coalesced (`COALESCE_S`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mindagent.core.capabilities import Directable
from mindagent.core.directions import reads
from mindagent.core.domain import DomainSession, DomainStep
from mindagent.dispatch.brains import Brain, LLMBrain, PolicyBrain, RuleBrain, ScoredBrain
from mindagent.dispatch.dispatcher import Decision
from mindagent.evaluation.scoring import collaboration_score
from mindagent.llm.redact import redact_text
from mindagent.server.fanout import Frame, encode
from mindagent.server.protocol import QUESTIONNAIRE, server_message
from mindagent.server.seating import Seat
from mindagent.server.views import checked_static, page_actions, page_words

if TYPE_CHECKING:
    from mindagent.server.room import Room

#: Spectators joining and leaving change only the people count: one state broadcast per this many
#: seconds carries all of it (a join used to cost a full state to every member).
COALESCE_S = 0.25
#: The same room error is said again only after this many seconds (a dead model fails every step).
ERROR_REPEAT_S = 10.0


class StateEncoder:
    """Builds and sends one room's messages; caches what only a step or an episode changes."""

    def __init__(self, room: Room) -> None:
        self._room = room
        self._state_soon: asyncio.TimerHandle | None = None  # a coalesced state broadcast pending
        self._view_cache: tuple[tuple[int, int, int], dict[str, Any]] | None = None
        self._heavy_cache: tuple[tuple[int, int, int, int], dict[str, Any], str] | None = None
        self._static_cache: tuple[int, dict[str, Any], str] | None = None
        self._last_error_at = 0.0

    # ---------------------------------------------------------------- sending
    def broadcast(self, message: dict[str, Any]) -> None:
        frame = Frame(message)  # encoded once, whatever the room's size
        for member in list(self._room.seats.members):
            member.push(frame)

    def room_error(self, text: str) -> None:
        """Tell the room (the same error again within `ERROR_REPEAT_S` is only logged and recorded).

        Error text quotes SDK messages, which quote URLs: redacted before anyone sees or records it."""
        room = self._room
        text = redact_text(text)
        room.log.note("room_error", step=room.session.step_index, text=text)
        now = room.clock.now()
        if room.errors and room.errors[-1] == text and now - self._last_error_at < ERROR_REPEAT_S:
            return
        self._last_error_at = now
        room.errors.append(text)
        self.broadcast(server_message("room_error", room=room.id, step=room.session.step_index, message=text))

    def broadcast_state(self) -> None:
        """The state to every member, encoded once per distinct ``you`` (all spectators share one,
        and the step's bulky part is encoded once per step, not once per broadcast)."""
        self.cancel_pending()
        light, heavy, heavy_text = self.state_parts()
        frames: dict[Any, Frame] = {}
        for member, seat in list(self._room.seats.members.items()):
            you = self.you(seat)
            # a seat without an agent sees only its role: no need to encode `you` to tell them apart
            key: Any = seat.role if seat.agent is None else encode(you)
            frame = frames.get(key)
            if frame is None:
                message = server_message("state", **light, you=you)
                frame = frames[key] = Frame.encoded({**message, **heavy}, splice(encode(message), heavy_text))
            member.push(frame)

    def state_later(self) -> None:
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

    def cancel_pending(self) -> None:
        if self._state_soon is not None:
            self._state_soon.cancel()
            self._state_soon = None

    def _flush_state(self) -> None:
        self._state_soon = None
        if not self._room.closed:
            self.broadcast_state()

    # --------------------------------------------------------------- building
    def state(self) -> dict[str, Any]:
        light, heavy, _ = self.state_parts()
        return {**light, **heavy}

    def state_parts(self) -> tuple[dict[str, Any], dict[str, Any], str]:
        """The state in two parts: what may change between steps (encoded per message) and what
        changes only with a step (the view and the last step: most of the bytes), with the latter's
        encoded members, built once per step; a join used to re-encode all of it."""
        room = self._room
        key = (room.episode, room.session.step_index, room.ticks, id(room.last_step))
        if self._heavy_cache is None or self._heavy_cache[0] != key:
            heavy = {**self._view(), "last_step": room.last_step}
            self._heavy_cache = (key, heavy, encode(heavy)[1:-1])
        light, heavy = self._light_state(), self._heavy_cache[1]
        for name in heavy:  # the view's entries win (its "agents" is the agents' list, not their count)
            light.pop(name, None)
        return light, heavy, self._heavy_cache[2]

    def _light_state(self) -> dict[str, Any]:
        room = self._room
        c = room.session.counts
        now = room.clock.now()
        running = room.status == "running"
        players = room.seats.players
        return {
            "room": room.id, "status": room.status, "episode": room.episode, **room.settings.describe(),
            "step": room.session.step_index, "max_steps": room.session.max_steps, "ticks": room.ticks,
            "next_step_in": round(room.clock.next_step_in(now), 3) if running else None,
            "controllers": ["human" if a in players else "dispatcher" for a in range(room.session.n_agents)],
            "counts": {"completed": c.completed, "failed": c.failed, "active": c.active},
            "score": collaboration_score(c.completed, c.failed, c.active),
            "dispatcher": self.dispatcher_info(), "sources": room.sources.to_dict(room.dispatcher.brain),
            "head_chef": list(room.chef_lines), "errors": list(room.errors),
            "people": room.seats.people(),
            "step_every": room.clock.period if room.settings.mode == "realtime" else None,
            "starts_in": room.clock.starts_in(now),
        }

    def you(self, seat: Seat) -> dict[str, Any]:
        """The part of a state for one seat: a player's legal commands, the page's actions for
        them, its queued command and (practice) the coach's hint."""
        room = self._room
        out: dict[str, Any] = {"role": seat.role, "agent": seat.agent}
        if seat.agent is not None:
            playing = room.status == "running" and not room.session.done
            legal = room.session.legal_commands(seat.agent) if playing else []
            out["legal"] = legal
            out["actions"] = page_actions(room.session, seat.agent, legal)
            out["queued"] = room.seats.queued.get(seat.agent)
            if room.coach is not None and playing:
                out["hint"] = room.decisions.hint(seat.agent)
        return out

    def dispatcher_info(self) -> dict[str, Any]:
        room = self._room
        brain = room.dispatcher.brain
        return {"model": room.settings.model, "why": room.settings.model_why,
                "name": brain.name if brain is not None else None,
                "thinking": isinstance(brain, LLMBrain) and room.decisions.thinking,
                "reads": reads(isinstance(brain, LLMBrain), isinstance(room.session, Directable))}

    def summary(self) -> dict[str, Any]:
        """One line of the room list."""
        room = self._room
        c = room.session.counts
        return {"room": room.id, **room.settings.describe(), "status": room.status,
                "step": room.session.step_index, "agent_names": room.session.agent_names,
                "max_steps": room.session.max_steps, "players": room.seats.human_agents,
                "people": room.seats.people(), "model": room.settings.model,
                "score": collaboration_score(c.completed, c.failed, c.active), "director": self.words()["director"]}

    def words(self) -> dict[str, str]:
        """The game's words for people (`views.page_words`), from the cached static view."""
        return page_words(self._static_view()[0])

    def _view(self) -> dict[str, Any]:
        """The session's view, built once per step (joins between steps reuse it)."""
        room = self._room
        key = (room.episode, room.session.step_index, room.ticks)
        if self._view_cache is None or self._view_cache[0] != key:
            self._view_cache = (key, room.session.view())
        return self._view_cache[1]

    def _static_view(self) -> tuple[dict[str, Any], str]:
        """The level's static data (with the questionnaire) and its encoded members, built once
        per episode: a join used to rebuild and re-encode it."""
        room = self._room
        if self._static_cache is None or self._static_cache[0] != room.episode:
            static = {**checked_static(room.session.static_view()), "questionnaire": list(QUESTIONNAIRE)}
            self._static_cache = (room.episode, static, encode(static)[1:-1])
        return self._static_cache[1], self._static_cache[2]

    def welcome(self, seat: Seat, re: object = None) -> Frame:
        """The `joined` message: static level data plus the first state (``re`` when given); the
        static part is spliced in already encoded."""
        static, static_text = self._static_view()
        light, heavy, heavy_text = self.state_parts()
        state = {**light, "you": self.you(seat)}
        rest = server_message("joined", room=self._room.id, role=seat.role, agent=seat.agent,
                              **({"re": re} if re is not None else {}))
        text = splice(encode(rest), '"state":' + splice(encode(state), heavy_text))
        return Frame.encoded({**rest, "state": {**state, **heavy}, **static}, splice(text, static_text))


#: Where an agent-step's command came from, in the order the results line names them.
SOURCES: tuple[str, ...] = ("model", "executor", "policy", "partner", "human", "idle")


def command_source(actor: str, command: str, decision: Decision | None, brain: Brain | None) -> str:
    """Who wrote one command: the ``model`` (its own answer), the ``executor`` (the domain's rule
    code carrying out a goal or subtask a model or rule chooser picked), a built-in ``policy``, a
    ``partner`` policy (`--control`), a ``human``, or nobody (``idle``: no decision was ready)."""
    if actor.endswith("_idle"):
        return "idle"
    if actor == "human":
        return "human"
    if decision is not None and command in decision.partners:
        return "partner"
    if isinstance(brain, PolicyBrain):
        return "policy"
    plan = decision.plan if decision is not None else None
    if plan is not None and plan.get("kind") in ("goals", "taskgraph") and plan.get("executor") != "model":
        return "executor"
    return "model"


@dataclass
class SourceTally:
    """An episode's agent-steps by where their commands came from (`SOURCES`), and how many
    answers the model (or rule chooser) gave that decided something: in goal and task-graph
    mode most commands are the executor's, and this says so beside the score."""

    steps: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SOURCES, 0))
    answers: int = 0

    def add(self, actions: Sequence[dict[str, Any]], decision: Decision | None) -> None:
        for action in actions:
            source = str(action.get("source", "idle"))
            self.steps[source] = self.steps.get(source, 0) + 1
        self.answers += sum(1 for c in decision.calls if not c.error) if decision is not None else 0

    def to_dict(self, brain: Brain | None) -> dict[str, Any]:
        """The counts, who answered (``model``, a rule chooser's name, "" for a built-in policy,
        which is asked nothing) and one line for the results panel (empty before the first step)."""
        chooser = "model" if isinstance(brain, LLMBrain | ScoredBrain) else brain.name if isinstance(brain, RuleBrain) else ""
        total = sum(self.steps.values())
        named = ", ".join(f"{n} {'idle' if s == 'idle' else 'from the ' + s}" for s, n in self.steps.items() if n)
        answered = f"; the {chooser} answered {self.answers} times" if chooser else ""
        line = f"Commands of {total} agent-steps: {named}{answered}." if total else ""
        return {"agent_steps": dict(self.steps), "answers": self.answers, "chooser": chooser, "line": line}


def step_record(session: DomainSession, t: int, result: DomainStep, actors: list[str],
                decision: Decision | None = None, brain: Brain | None = None) -> dict[str, Any]:
    """The page's record of step `t`: each agent's command, verdict, who gave it (by agent: the
    dispatcher or a person) and where the command came from (`command_source`)."""
    actions: list[dict[str, Any]] = []
    for i, (verdict, actor) in enumerate(zip(result.verdicts, actors, strict=True)):
        a = session.agent_of(verdict.command)
        a = i if a is None else a
        code = verdict.reason.code if verdict.reason is not None else None  # the game's words for people key on it
        actions.append({"agent": a, "command": verdict.command, "ok": verdict.ok, "reason": verdict.text, "code": code,
                        "by": actor.split("_")[0], "idle": actor.endswith("_idle"),
                        "wait": verdict.command == session.idle_command(a),
                        "source": command_source(actor, verdict.command, decision, brain)})
    actions.sort(key=lambda action: action["agent"])
    return {"step": t, "actions": actions, "feedback": list(result.notes),
            "completed": list(result.completed), "failed": list(result.failed)}


def splice(text: str, members: str) -> str:
    """Add already-encoded members (``"k":v,...``, no braces) to an encoded object."""
    if not members:
        return text
    return text[:-1] + ("," if text != "{}" else "") + members + "}"


__all__ = ["COALESCE_S", "ERROR_REPEAT_S", "SOURCES", "SourceTally", "StateEncoder", "command_source", "splice",
           "step_record"]
