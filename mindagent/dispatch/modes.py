"""The ways a team's commands are decided, one object each, chosen once per episode.

Central (one call commands the team each step), decentral (one call per agent, with messages),
planned (a standing plan gives each step: multi-step plans, goals, task graphs with the rule
executor) and the task graph with the model as executor (the manager's assignment stands; the
model writes each assigned agent's command every step). `Episode` asks its mode for the step's
decision and tells it what happened; adding a mode adds a class here, not a branch there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from mindagent.dispatch.brains import Call
from mindagent.dispatch.dispatcher import Decision, DispatchSettings
from mindagent.dispatch.taskgraph import TaskGraphPlan, unread_note

if TYPE_CHECKING:
    from mindagent.core.episode import Episode


class DispatchMode(Protocol):
    """Example: ``decision = await mode.decide(episode, controlled=None, people=[])``."""

    async def decide(self, episode: Episode, controlled: Sequence[int] | None, people: Sequence[str]) -> Decision:
        """This step's commands for the agents in `controlled` (None: the whole team)."""
        ...

    def after_step(self, episode: Episode, decision: Decision) -> None:
        """Keep what the next step's decision needs (what agents said, ...)."""
        ...


class CentralDispatch:
    """The MindAgent dispatcher: one call per step commands every agent."""

    async def decide(self, episode: Episode, controlled: Sequence[int] | None, people: Sequence[str]) -> Decision:
        return await episode.decide(controlled, people)

    def after_step(self, episode: Episode, decision: Decision) -> None:
        return None


class DecentralDispatch:
    """One call per agent: each sees its own turns and what the others said last step."""

    async def decide(self, episode: Episode, controlled: Sequence[int] | None, people: Sequence[str]) -> Decision:
        head_chef = episode.session.pending_instructions()
        return await episode.dispatcher.decide_decentral(
            episode.session, episode.agent_memory, list(episode.feedback), episode.heard, head_chef, controlled, people)

    def after_step(self, episode: Episode, decision: Decision) -> None:
        episode.heard = dict(decision.said)


class PlannedDispatch:
    """Plan, goal and task-graph (rule executor) modes: the standing plan gives the step; the model
    is asked for a new one when the plan wants renewal, and once more within the step when a fresh
    or old plan cannot give this step (exhausted, diverged or refused): then the agents idle."""

    async def decide(self, episode: Episode, controlled: Sequence[int] | None, people: Sequence[str]) -> Decision:
        session, dispatcher = episode.session, episode.dispatcher
        head_chef = session.pending_instructions()
        calls: list[Call] = []
        shown = ""
        plan = episode.plan
        if plan is None or plan.wants_renewal(session):
            plan, calls, shown = await dispatcher.make_plan(
                session, episode.memory, list(episode.feedback), head_chef, controlled, people)
        commands = plan.next(session)
        if commands is None and not calls:  # the standing plan ran out, diverged or was refused
            plan, calls, shown = await dispatcher.make_plan(
                session, episode.memory, list(episode.feedback), head_chef, controlled, people)
            commands = plan.next(session)
        if plan is not episode.plan:  # plans are numbered per episode, so a replayed episode reads the same
            episode.plans_made += 1
            plan.id = episode.plans_made
        described = plan.describe()
        episode.plan = plan if commands is not None else None
        commands = dispatcher.mine(session, commands or [], controlled)
        return Decision(commands, session.check(commands), calls, shown, list(head_chef), described)

    def after_step(self, episode: Episode, decision: Decision) -> None:
        return None


class TaskGraphDispatch:
    """Task graph with the model executor: the manager's assignment stands until it wants renewal
    or one of its subtasks failed (a command the look-ahead refuses: that step is played as
    written, refusal and all, and the manager assigns again at the next step); every step the
    model writes each assigned agent's command."""

    async def decide(self, episode: Episode, controlled: Sequence[int] | None, people: Sequence[str]) -> Decision:
        session, dispatcher = episode.session, episode.dispatcher
        head_chef = session.pending_instructions()
        calls: list[Call] = []
        shown = ""
        plan = episode.plan
        agents = list(range(session.n_agents)) if controlled is None else sorted(controlled)
        if not isinstance(plan, TaskGraphPlan) or plan.failed or plan.agents != agents \
                or plan.wants_renewal(session):  # (a person took or left an agent: assign again)
            made, calls, shown = await dispatcher.make_plan(
                session, episode.memory, list(episode.feedback), head_chef, controlled, people)
            if not isinstance(made, TaskGraphPlan):
                raise TypeError("task-graph mode made a plan of another kind")
            plan = made
            plan.executed_by = "model"
            episode.plans_made += 1
            plan.id = episode.plans_made
        notes, episode.executor_notes = episode.executor_notes, {}
        commands, executed, unread = await dispatcher.execute_subtasks(
            session, plan, list(episode.feedback), notes, head_chef, people)
        calls += executed
        verdicts = session.check(commands)
        plan.failed = [v.command for v in verdicts if not v.ok]
        plan.unread = unread
        names = session.agent_names
        episode.executor_notes = {a: [unread_note(names[a])] for a in unread}
        plan.position += 1
        episode.plan = plan
        return Decision(commands, verdicts, calls, shown, list(head_chef), plan.describe())

    def after_step(self, episode: Episode, decision: Decision) -> None:
        return None


def mode_for(settings: DispatchSettings, plans: bool) -> DispatchMode:
    """The mode object for a dispatcher's settings (`plans`: whether it dispatches by standing plans)."""
    if settings.team == "decentral":
        return DecentralDispatch()
    if settings.team == "taskgraph" and settings.executor == "model":
        return TaskGraphDispatch()
    if plans:
        return PlannedDispatch()
    return CentralDispatch()


__all__ = ["CentralDispatch", "DecentralDispatch", "DispatchMode", "PlannedDispatch", "TaskGraphDispatch", "mode_for"]
