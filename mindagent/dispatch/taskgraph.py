"""Task-graph dispatch (after VillagerAgent): a manager assigns subtasks of a DAG, an executor acts.

The domain turns its open orders into a `TaskGraph` (for a kitchen: one subtask per product in
each order's recipe tree, depending on the subtasks of its ingredients). The manager gives every
agent one *ready* subtask (all its dependencies done): a language model chooses from the ready
list (one line per agent, constrained by `assignment_grammar` for a local model), or, without a
model or when its answer cannot be read, `assign_by_rule` deals them out earliest deadline first.
Then an executor turns each agent's subtask into its command every step: the domain's rule
`SubtaskExecutor` (``--subtask-executor rule``), or the language model (``model``): each agent
with a subtask is one call per step that sees the kitchen, the step's feedback, its own subtask,
its teammates' subtasks and any note about its last answer (`subtask_turn`), and writes that
agent's one command (held to the domain's one-agent grammar locally). An answer without a
command for the agent idles it and tells it so at the next step; a command the look-ahead
refuses fails the subtask, and the manager assigns again at the next step.

It is a `Plan` like goal mode's (`mindagent.dispatch.plans`): the assignment stands while it fits, and
the manager is asked again when a subtask is done, when one fails (its order expired, or its
agent's command was refused) or when the orders change; every re-plan is one recorded call.
Nothing here knows any game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from mindagent.core.capabilities import task_graph_of
from mindagent.core.gbnf import literal
from mindagent.dispatch.plans import Plan
from mindagent.llm.base import Message

if TYPE_CHECKING:
    from mindagent.core.domain import DomainSession


SubtaskExecutorKind = Literal["rule", "model"]
SUBTASK_EXECUTORS: tuple[SubtaskExecutorKind, ...] = ("rule", "model")


@dataclass(frozen=True, slots=True)
class Subtask:
    """One node of the graph. `goal` is what the executor works towards (a kitchen: the dish of the
    order); `deadline` the steps its order has left."""

    id: str
    label: str
    goal: str
    deps: tuple[str, ...] = ()
    deadline: int = 0


@dataclass(frozen=True, slots=True)
class TaskGraph:
    """The subtasks of the open orders, which of them are done, and a signature of the orders
    (a changed signature means an order arrived, was served or failed)."""

    subtasks: tuple[Subtask, ...]
    done: frozenset[str] = frozenset()
    signature: tuple[object, ...] = ()

    @property
    def by_id(self) -> dict[str, Subtask]:
        return {s.id: s for s in self.subtasks}

    def ready(self) -> list[Subtask]:
        """Subtasks not done whose dependencies are all done, earliest deadline first."""
        out = [s for s in self.subtasks if s.id not in self.done and all(d in self.done for d in s.deps)]
        return sorted(out, key=lambda s: (s.deadline, s.id))

    def text(self) -> str:
        """The graph as the manager model reads it: ready subtasks first, then the waiting ones."""
        ready = self.ready()
        ready_ids = {s.id for s in ready}
        lines = ["Ready subtasks (id: what, steps left):"]
        lines += [f"- {s.id}: {s.label}, {s.deadline}" for s in ready] or ["- none"]
        waiting = [s for s in self.subtasks if s.id not in self.done and s.id not in ready_ids]
        if waiting:
            lines.append("Waiting for other subtasks: " + ", ".join(f"{s.id} (after {', '.join(s.deps)})" for s in waiting))
        return "\n".join(lines)


class SubtaskExecutor(Protocol):
    """Turns each agent's subtask into this step's commands, one per agent of `agents`; an agent
    without a subtask (nothing ready for it) does what the executor finds useful."""

    def act(self, session: DomainSession, assignment: Mapping[int, Subtask], agents: Sequence[int]) -> list[str]: ...


def subtask_turn(shown: str, agent: str, subtask: Subtask, team: Mapping[str, Subtask], notes: Sequence[str]) -> str:
    """The model executor's user turn for one agent: the kitchen turn (feedback, head chef,
    state), then what this agent was told about its last answer, its subtask and its teammates'."""
    parts = [shown.rstrip("\n")]
    if notes:
        parts.append("About your last answer:\n" + "\n".join(f"- {n}" for n in notes))
    if team:
        parts.append("Your teammates' subtasks:\n" + "\n".join(f"- {a}: {s.label}" for a, s in team.items()))
    parts.append(f"Your subtask ({subtask.id}): {subtask.label}.")
    parts.append(f"You are {agent} and control only {agent}: write exactly one command for {agent}, "
                 "the next thing it should do for its subtask.")
    return "\n".join(parts)


def unread_note(agent: str) -> str:
    """What an agent is told when its last answer held no command of its own."""
    return f"No command for {agent} could be read from your last answer, so {agent} waited."


def assign_by_rule(graph: TaskGraph, agents: Sequence[int]) -> dict[int, Subtask]:
    """Ready subtasks dealt out earliest deadline first; more agents than ready subtasks share them
    round robin (two cooks on one order), none ready: nobody is assigned."""
    ready = graph.ready()
    if not ready:
        return {}
    return {agent: ready[i % len(ready)] for i, agent in enumerate(agents)}


@dataclass
class ManagerPrompt:
    """The manager model's prompt: the graph and the team, one line per agent back."""

    system: str = ("You are the manager of a team. Orders are split into subtasks; a subtask can start "
                   "when the subtasks it waits for are done. Give every agent one ready subtask. Prefer "
                   "subtasks of orders with few steps left, and spread the agents over different subtasks. "
                   "Answer with one line per agent: agentK: <subtask id>.")
    extra: list[str] = field(default_factory=list)

    def messages(self, graph: TaskGraph, agents: Sequence[str], situation: str = "") -> list[Message]:
        lines = [situation.rstrip("\n")] if situation else []
        lines += [graph.text(), "Agents: " + ", ".join(agents)]
        return [Message("system", self.system, cache_prefix=True), Message("user", "\n".join(lines))]


def assignment_grammar(agents: Sequence[str], ids: Sequence[str]) -> str:
    """GBNF: one ``<agent>: <id>`` line per agent, in order, ids from the ready list."""
    choice = " | ".join(literal(i) for i in ids)
    lines = [f"line{k} ::= {literal(a + ': ')} choice" for k, a in enumerate(agents)]
    root = 'root ::= ' + ' "\\n" '.join(f"line{k}" for k in range(len(agents)))
    return "\n".join([root, *lines, f"choice ::= {choice}"]) + "\n"


def parse_assignment(text: str, agents: Sequence[str], ids: Sequence[str]) -> dict[int, str]:
    """``agentK: <id>`` lines read into {agent index: subtask id}; unknown agents and ids are dropped."""
    known = {i.lower(): i for i in ids}
    index = {a.lower(): k for k, a in enumerate(agents)}
    out: dict[int, str] = {}
    for name, sid in re.findall(r"([A-Za-z_][\w]*)\s*[:=-]+\s*([\w.]+)", text):
        k = index.get(name.lower())
        chosen = known.get(sid.lower().rstrip("."))
        if k is not None and chosen is not None and k not in out:
            out[k] = chosen
    return out


class TaskGraphPlan(Plan):
    """An assignment of subtasks, carried out by the executor until it no longer fits."""

    kind = "taskgraph"

    def __init__(self, start_step: int, graph: TaskGraph, assignment: Mapping[int, Subtask],
                 executor: SubtaskExecutor, agents: Sequence[int], chosen_by: str = "model", every: int = 10) -> None:
        super().__init__(start_step)
        self.agents = list(agents)
        self.graph = graph
        self.assignment = dict(assignment)
        self.executor = executor
        self.chosen_by = chosen_by  # model | rule:<name> (a rule chooser) | rule (no model, or one ready subtask) | fallback (unreadable)
        self.every = max(1, every)
        self.failed: list[str] = []
        #: the model executor's agents whose answer held no command at the step just described
        self.unread: list[int] = []
        self.executed_by: SubtaskExecutorKind = "rule"

    def next(self, session: DomainSession) -> list[str] | None:
        commands = self.executor.act(session, self.assignment, self.agents)
        refused = [v.command for v in session.check(commands) if not v.ok]
        if refused:
            self.failed = refused
            return None  # a subtask failed: the manager plans again
        self.position += 1
        return commands

    def wants_renewal(self, session: DomainSession) -> bool:
        if session.step_index - self.start_step >= self.every:
            return True
        now = task_graph_of(session)
        if now is None or now.signature != self.graph.signature:
            return True  # an order arrived, was served or failed
        current = now.by_id
        return any(s.id in now.done or s.id not in current for s in self.assignment.values())

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "assignment": {str(a): s.id for a, s in sorted(self.assignment.items())},
                "chosen_by": self.chosen_by, "subtasks": len(self.graph.subtasks), "done": len(self.graph.done),
                **({"executor": "model"} if self.executed_by == "model" else {}),
                **({"unread": list(self.unread)} if self.unread else {}),
                **({"failed": self.failed} if self.failed else {})}
