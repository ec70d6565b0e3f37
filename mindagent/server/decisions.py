"""The dispatcher's side of a room: one decision task in flight, the standing plan, and the joint
commands of a step.

A model dispatcher thinks in a task started right after each step; a decision not ready by the
next tick leaves its agents idle for that step (model latency costs game time) and is used at the
first tick after it arrives. Because people can sit down while the model thinks, a decision is
re-read against the seats at the step that uses it (`joint_commands`): it never commands an agent
a person took meanwhile. A dispatcher or model exception becomes a room error and an idle step.

People go first. The person's command for a step is known before the team's are chosen wherever
the team can wait for it: a built-in policy (which answers at once) and a plan's or goal's rule
executor decide at the step itself, told the people's commands (`DomainSession.people_commands`),
and plan around them. In the joint action the people's commands run before the team's, so a
person wins every race for an item or a place; a model's command decided earlier that a person's
command made impossible is the team's refusal, never the person's.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mindagent.core.capabilities import goal_menu_of
from mindagent.core.domain import DomainSession
from mindagent.dispatch.brains import Brain, LLMBrain, MenuBrain, PolicyBrain
from mindagent.dispatch.dispatcher import Decision, DispatchSettings
from mindagent.dispatch.plans import Plan
from mindagent.server.settings import RoomSettings

if TYPE_CHECKING:
    from mindagent.server.room import Room

log = logging.getLogger(__name__)


def dispatch_for(settings: RoomSettings, session: DomainSession, brain: Brain) -> DispatchSettings:
    """The room's dispatch mode for this brain (see `RoomSettings.dispatch`)."""
    chosen = settings.dispatch
    if chosen is None:
        local = isinstance(brain, LLMBrain) and brain.name.startswith("local:")
        menu = local or isinstance(brain, MenuBrain)  # a rule or scored chooser has only menus to answer
        chosen = DispatchSettings("goals") if menu and goal_menu_of(session) is not None else DispatchSettings()
    if chosen.mode == "goals" and goal_menu_of(session) is None:
        return DispatchSettings()  # a domain without goal mode: per-step commands
    if chosen.executor == "model" and not isinstance(brain, LLMBrain):
        return replace(chosen, executor="rule")  # a built-in policy carries out subtasks by rule
    return chosen


def joint_commands(session: DomainSession, ready: Decision | None, human: dict[int, str],
                   players: dict[int, Any] | set[int]) -> tuple[list[str], list[str]]:
    """One step's commands and who gave each (``human``, ``dispatcher``, ``*_idle``).

    The people's commands run first (agent order), so a person wins any race with the team; then
    the dispatcher's, in its own order (a planner's later command may rely on an earlier one); then
    idles for agents nobody commanded. A dispatcher command for an agent in `players` is dropped:
    the decision may have been made before that person sat down."""
    commands: list[str] = []
    actors: list[str] = []
    for person in sorted(human):
        if person in players:
            commands.append(human[person])
            actors.append("human")
    machine: dict[int, str] = {}
    for command in ready.commands if ready else []:
        a = session.agent_of(command)
        if a is not None and a not in players and a not in machine:
            machine[a] = command
    commands += machine.values()
    actors += ["dispatcher"] * len(machine)
    for a in range(session.n_agents):
        if a not in machine and not (a in human and a in players):
            commands.append(session.idle_command(a))
            actors.append("human_idle" if a in players else "dispatcher_idle")
    return commands, actors


def people_order(human: dict[int, str], players: dict[int, Any] | set[int]) -> list[str]:
    """The people's commands as they will run (agent order), for `DomainSession.set_people_commands`."""
    return [human[a] for a in sorted(human) if a in players]


class Decisions:
    """The decision task of one room (one model call in flight at most) and its standing plan."""

    def __init__(self, room: Room) -> None:
        self._room = room
        self.task: asyncio.Task[None] | None = None
        #: A per-step decision that arrived and waits for the next step.
        self.ready: Decision | None = None
        self.plan: Plan | None = None
        self._plan_calls: list[Any] = []  # calls that made the standing plan, recorded with its first step

    @property
    def thinking(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def decides_at_step(self) -> bool:
        """A built-in policy answers at once: it decides at the step, knowing the people's commands."""
        dispatcher = self._room.dispatcher
        return isinstance(dispatcher.brain, PolicyBrain) and not dispatcher.plans

    async def for_step(self, human: dict[int, str] | None = None) -> Decision | None:
        """What the dispatcher commands this step, with the people's queued commands (`human`)
        known: a built-in policy's decision made now, the standing plan's next commands, or the
        model's decision that arrived since the last step (taken once)."""
        room = self._room
        room.session.set_people_commands(people_order(human or {}, room.seats.players))
        try:
            if room.dispatcher.plans:
                return self._plan_step()
            if self.decides_at_step:
                self.ready = None
                await self._decide()
            ready, self.ready = self.ready, None
            return ready
        finally:
            room.session.set_people_commands(())

    def _controlled(self) -> list[int]:
        players = self._room.seats.players
        return [a for a in range(self._room.session.n_agents) if a not in players]

    def _plan_step(self) -> Decision | None:
        """Plan or goal mode: this tick's commands from the standing plan, re-checked now.

        None when there is no plan yet or it has run out, diverged or been refused; then a new
        one is asked for (`start` after the step) and the agents idle this tick. The
        decision names the plan and the position in it, so the recording shows which plan
        acted at every step."""
        room = self._room
        plan = self.plan
        calls, self._plan_calls = self._plan_calls, []
        commands = plan.next(room.session) if plan is not None else None
        if plan is None or commands is None:
            self.plan = None
            return Decision([], [], calls, plan=plan.describe()) if plan is not None else None
        ours, theirs = room.run.split(self._controlled())
        commands = room.dispatcher.mine(room.session, commands, ours)
        return room.run.with_partners(Decision(commands, room.session.check(commands), calls, plan=plan.describe()),
                                      theirs)

    def start(self) -> None:
        room = self._room
        if room.status != "running" or room.session.done or room.dispatcher.brain is None:
            return
        if room.dispatcher.plans and self.plan is not None and not self.plan.wants_renewal(room.session):
            return  # the standing plan still acts
        if self.thinking:
            return  # still thinking about an earlier step: one call in flight per room
        if self.decides_at_step:
            return  # decided at the step itself (`for_step`), once the people's commands are known
        if len(room.seats.players) < room.session.n_agents:
            self.task = asyncio.get_running_loop().create_task(self._decide())

    async def _decide(self) -> None:
        """Read the game as it is when the task runs (people may have joined since it was started)."""
        room = self._room
        controlled = self._controlled()
        if not controlled or room.status != "running":
            return
        if room.dispatcher.plans:
            await self._decide_plan(room.run.split(controlled)[0] or [])
            return
        try:  # `act`: the per-step or decentral dispatcher, plus the partners of `--control`
            thinking = room.run.act(controlled, room.seats.people_lines(room.session.agent_names))
            if isinstance(room.dispatcher.brain, LLMBrain):
                decision = await asyncio.wait_for(thinking, timeout=room.settings.decision_timeout)
            else:  # a built-in policy answers at once; no timer task needed
                decision = await thinking
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - model and dispatcher failures become a room error
            log.warning("room %s: dispatcher failed: %r", room.id, exc)
            room.encoder.room_error(f"the dispatcher failed ({type(exc).__name__}: {str(exc)[:200]}); "
                            "its agents idle this step")
            if not self.decides_at_step:
                room.kick()
            return
        if decision.errors:
            room.encoder.room_error(f"model call failed ({decision.errors[-1][:200]})")
        self._show_new_instructions(decision.head_chef)
        self.ready = decision
        if not self.decides_at_step:  # deciding inside the step: nothing to wake
            room.kick()

    async def _decide_plan(self, controlled: list[int]) -> None:
        """Ask for a new plan within the decision timeout; the old one (if any) acts meanwhile."""
        room = self._room
        head_chef = room.session.pending_instructions()
        try:
            plan, calls, _shown = await asyncio.wait_for(
                room.dispatcher.make_plan(room.session, room.run.memory, list(room.run.feedback), head_chef,
                                          controlled, room.seats.people_lines(room.session.agent_names)),
                timeout=room.settings.decision_timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - model and dispatcher failures become a room error
            log.warning("room %s: planning failed: %r", room.id, exc)
            room.encoder.room_error(f"the dispatcher failed ({type(exc).__name__}: {str(exc)[:200]})")
            return
        errors = [f"{c.error_kind or 'LLMError'}: {c.error}" for c in calls if c.error]
        if errors:
            room.encoder.room_error(f"model call failed ({errors[-1][:200]})")
        self._show_new_instructions(head_chef)
        self.plan = plan
        self._plan_calls += calls
        room.kick()

    def _show_new_instructions(self, lines: list[str]) -> None:
        """Instructions that reached the dispatcher from elsewhere (a game client's chat) join the
        page's director list; standing ones already shown are not repeated."""
        room = self._room
        shown = {entry["text"] for entry in room.chef_lines}
        for line in lines:
            if line not in shown:
                room.chef_lines.append({"step": room.session.step_index, "text": line})
                room.log.note("head_chef", step=room.session.step_index, text=line)
                shown.add(line)

    def hint(self, agent: int) -> str | None:
        """The practice coach's next command for `agent`, or None (a hint never breaks a state)."""
        room = self._room
        coach = room.coach
        if not isinstance(coach, PolicyBrain):
            return None
        try:
            return next((c for c in coach.act(room.session) if room.session.agent_of(c) == agent), None)
        except Exception:  # a hint is a nicety; never break the state message
            log.exception("room %s: the coach failed", room.id)
            return None

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = None
        self.ready = None
        self.plan, self._plan_calls = None, []


__all__ = ["Decisions", "dispatch_for", "joint_commands", "people_order"]
