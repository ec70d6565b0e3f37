"""One episode's step, shared by `mindagent run`, `eval` and the game server's rooms.

A step is: the dispatcher decides (`Episode.decide`), the game steps with the joint commands
(`Episode.advance`), the step's notes become the next prompt's feedback, the exchange goes into
the memory window, and the step is recorded. `run_episode` is that loop until the episode ends;
a room calls the same two methods on its own clock, with people's commands merged in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import overload

from mindagent.core.directions import directions_of, hold
from mindagent.core.domain import DomainSession, DomainStep
from mindagent.dispatch.dispatcher import Decision, Dispatcher
from mindagent.dispatch.modes import DispatchMode, mode_for
from mindagent.dispatch.plans import Plan
from mindagent.recordings.recording import Recorder

#: A held command's reply is said again only after this many steps (a model may insist every step).
REPLY_AGAIN_AFTER = 10


class ModelCallsFailed(Exception):
    """A model call failed beyond its retries while the caller asked to stop there (`eval`): a
    step the dispatcher could not decide is not a step it played, so its unit must not count."""


@dataclass
class EpisodeResult:
    completed: int
    failed: int
    active: int
    steps: int
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    model_errors: int = 0
    #: The last failed call's ``Kind: message`` line, so a command can say why in one line.
    last_error: str | None = None


class Episode:
    """The running context of one episode: memory window, last feedback, recording and totals.

    Example::

        episode = Episode(session, dispatcher, recorder)
        while not session.done:
            decision = await episode.decide()
            await episode.advance(decision)
        result = episode.finish()
    """

    def __init__(self, session: DomainSession, dispatcher: Dispatcher, recorder: Recorder | None = None) -> None:
        self.session = session
        self.dispatcher = dispatcher
        self.recorder = recorder
        self.memory = dispatcher.prompt.new_memory()
        self.feedback: list[str] = []
        self.totals = EpisodeResult(0, 0, 0, 0)
        self.finished = False
        self.plan: Plan | None = None
        self.plans_made = 0
        #: decentral mode: each agent's own turns, and what the agents said at the last step
        self.agent_memory = {a: dispatcher.prompt.new_memory() for a in range(session.n_agents)}
        self.heard: dict[str, str] = {}
        #: task graph with the model executor: what each agent is told about its last answer
        self.executor_notes: dict[int, list[str]] = {}
        control = dispatcher.dispatch.control
        self.partner = dispatcher.partner if control is not None else None
        self.control = list(control) if control is not None else None
        if self.partner is not None:
            self.partner.reset(session)
        #: how this episode's commands are decided, chosen once
        self.mode: DispatchMode = mode_for(dispatcher.dispatch, dispatcher.plans)
        self._said: dict[str, int] = {}  # a reply about a held command -> the step it was last said

    async def decide(self, controlled: Sequence[int] | None = None, people: Sequence[str] = ()) -> Decision:
        """The dispatcher's commands for the current step (a director's standing words are read now)."""
        head_chef = self.session.pending_instructions()
        return await self.dispatcher.decide(self.session, self.memory, list(self.feedback), head_chef, controlled, people)

    async def act(self, controlled: Sequence[int] | None = None, people: Sequence[str] = ()) -> Decision:
        """This step's commands in the episode's dispatch mode (`mindagent.dispatch.modes`),
        waiting for the model when it must be asked; with `--control` the partner policy's
        commands are added for the other agents. Offline the model's latency costs no game time;
        a room uses plans on its own clock instead (`mindagent.server.room`)."""
        ours, theirs = self.split(controlled)
        decision = self.held(await self.mode.decide(self, ours, people))
        return self.with_partners(decision, theirs)

    @overload
    def held(self, decision: Decision) -> Decision: ...
    @overload
    def held(self, decision: None) -> None: ...

    def held(self, decision: Decision | None) -> Decision | None:
        """The decision held to the director's standing words, whoever made it: a command that
        breaks one (`mindagent.core.directions.hold`) becomes its agent's idle command, and the
        decision's replies say so (each reply once per `REPLY_AGAIN_AFTER` steps). A built-in
        policy's own "cannot follow" replies are left out: every line was answered when it came."""
        standing = self.session.pending_instructions()
        if decision is None or not standing:
            return decision
        directions = directions_of(self.session, standing)
        answered = set(directions.replies)
        kept = [r for r in decision.replies if r not in answered]
        commands, replies = hold(self.session, directions, decision.commands)
        if commands == decision.commands and kept == decision.replies:
            return decision
        t = self.session.step_index
        fresh = [r for r in replies if t - self._said.get(r, -REPLY_AGAIN_AFTER) >= REPLY_AGAIN_AFTER]
        self._said.update({r: t for r in fresh})
        verdicts = decision.verdicts if commands == decision.commands else self.session.check(commands)
        return replace(decision, commands=commands, verdicts=verdicts, replies=[*kept, *fresh])

    def split(self, controlled: Sequence[int] | None) -> tuple[list[int] | None, list[int]]:
        """The agents the dispatcher commands, and those its partner plays (`--control`); a room's
        people take theirs out of both (`controlled` is what is left to the machine)."""
        if self.control is None:
            return (None if controlled is None else list(controlled)), []
        left = list(range(self.session.n_agents)) if controlled is None else list(controlled)
        return [a for a in left if a in self.control], [a for a in left if a not in self.control]

    def with_partners(self, decision: Decision, theirs: Sequence[int]) -> Decision:
        """The partner's commands first, then the dispatcher's, re-checked together."""
        if self.partner is None or not theirs:
            return decision
        partner = self.partner.act(self.session, theirs)
        commands = partner + list(decision.commands)
        return Decision(commands, self.session.check(commands), decision.calls, decision.shown, decision.head_chef,
                        decision.plan, decision.replies, decision.said, decision.agent_turns, partner)

    async def advance(self, decision: Decision | None, commands: Sequence[str] | None = None,
                      actors: Sequence[str] | None = None) -> DomainStep:
        """Step the game with `commands` (default: the decision's) and keep what the next step needs.

        `actors` (who gave each command: ``human``, ``dispatcher``, ``human_idle``...) is recorded
        when a room merged people's commands with the dispatcher's."""
        t = self.session.step_index
        state = self.session.state_text()
        orders = self.session.orders_snapshot()
        joint = list(commands) if commands is not None else list(decision.commands if decision else [])
        result = await self.session.step(joint)
        self.feedback = list(result.notes)
        if decision is not None and decision.agent_turns:
            for agent, (shown, answered) in decision.agent_turns.items():
                self.agent_memory[agent].push(shown, answered)
        elif decision is not None and decision.shown:
            self.memory.push(decision.shown, "\n".join(decision.commands))
        if decision is not None:
            self.mode.after_step(self, decision)
        if decision is not None:
            usage = decision.usage
            self.totals.prompt_tokens += usage.prompt_tokens
            self.totals.cached_tokens += usage.cached_tokens
            self.totals.output_tokens += usage.output_tokens
            self.totals.latency_s += usage.latency_s
            self.totals.model_errors += len(decision.errors)
            if decision.errors:
                self.totals.last_error = decision.errors[-1]
        if self.recorder is not None:
            taken = decision or Decision([], [])
            record = Decision(joint, taken.verdicts, taken.calls, taken.shown, taken.head_chef, taken.plan,
                              said=taken.said, partners=taken.partners)
            self.recorder.step(t, state, orders, record, result)
            if actors is not None:
                self.recorder.extra("actors", step=t, actors=list(actors))
        return result

    def abort(self, exc: BaseException) -> None:
        """The episode ends by `exc` (a world lost for good, a model refusing the key, a bug, a
        cancel): the recording's last line names it instead of the file stopping without one."""
        if self.recorder is not None and not self.finished and not self.recorder.closed:
            self.recorder.error(exc, step=self.session.step_index)
        self.finished = True

    def finish(self) -> EpisodeResult:
        """Close the episode: final counts, and the recording's ``end`` line (once)."""
        counts = self.session.counts
        self.totals.completed, self.totals.failed, self.totals.active = counts.completed, counts.failed, counts.active
        self.totals.steps = self.session.step_index
        if self.recorder is not None and not self.finished:
            self.recorder.end(self.totals)
        self.finished = True
        return self.totals


async def run_episode(
    session: DomainSession,
    dispatcher: Dispatcher,
    recorder: Recorder | None = None,
    on_step: Callable[[int, DomainStep], None] | None = None,
    steps: int | None = None,
    stop_on_model_error: bool = False,
) -> EpisodeResult:
    """Play one episode from the session's current reset state to its last step (or `steps`).

    With `stop_on_model_error` the first step whose model call failed (after the backend's
    retries) is recorded and then `ModelCallsFailed` is raised, leaving the recording with an
    ``error`` line and no ``end`` line: a sweep must not score an outage as a game of idle agents.
    Any other exception (or a cancel) ends the recording with its ``error`` line too, then
    propagates."""
    episode = Episode(session, dispatcher, recorder)
    limit = session.max_steps if steps is None else min(steps, session.max_steps)
    try:
        while not session.done and session.step_index < limit:
            t = session.step_index
            decision = await episode.act()
            result = await episode.advance(decision)
            if stop_on_model_error and decision.errors:
                raise ModelCallsFailed(f"step {t}: {decision.errors[-1]}")
            if on_step is not None:
                on_step(t, result)
    except BaseException as exc:
        episode.abort(exc)
        raise
    return episode.finish()
