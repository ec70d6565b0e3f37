"""Rule choosers: answer the menus a model is asked (`--model rule:first|urgent|random`).

A language model is asked to choose in two places: goal mode's menu (which dish the team works
on next) and the task-graph manager's assignment (one ready subtask per agent). Everything else
in those modes, the executor that turns a choice into commands, is the domain's rule code. To
see what the model itself adds, the same mode is run with a rule in the model's seat:

- ``first``: the first option the menu lists (each agent of an assignment: the first ready subtask);
- ``urgent``: the option that expires soonest, read from the deadlines the domain exposes
  (`Option.steps_left`: a goal's earliest open subtask deadline in the domain's task graph, a
  subtask's own deadline); options without a deadline rank last, ties keep the menu's order.
  An assignment deals the most urgent options out one per agent, in agent order, wrapping
  around when the agents outnumber them (two cooks on one order);
- ``random``: a seeded uniform choice, the same for the same seed, step and menu.

A rule answers through the same interface as a model: it gets the messages a model would get and
returns a `Call` whose text is written in the model's answer format (``goal: <dish>``,
``agentK: <subtask id>``), read by the same parser. It costs no tokens and no time, and is
recorded like a model call, so ``--model replay:<recording>`` replays it call for call.
Modes where the model writes commands (central, decentral, plan-ahead, the model executor) have
no menu; there `Dispatcher.for_session` refuses a rule with one line.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from mindagent.core.capabilities import task_graph_of
from mindagent.core.domain import DomainSession, SpecError
from mindagent.dispatch.calls import Call
from mindagent.llm.base import Message, Usage

if TYPE_CHECKING:
    from mindagent.dispatch.plans import GoalMenu
    from mindagent.dispatch.taskgraph import Subtask

RuleName = Literal["first", "urgent", "random"]
RULE_NAMES: tuple[RuleName, ...] = ("first", "urgent", "random")
RULE_PREFIX = "rule:"


@dataclass(frozen=True, slots=True)
class Option:
    """One choice on a menu; `steps_left` is its deadline (inf: the domain gives none)."""

    name: str
    steps_left: float = math.inf


@dataclass(frozen=True, slots=True)
class Slot:
    """One line of the answer: `prefix` (``goal: `` or ``agent0: ``) followed by one option."""

    prefix: str
    options: tuple[Option, ...]


@dataclass(frozen=True, slots=True)
class Menu:
    """What a model is asked to choose at step `step`: one option per slot."""

    step: int
    slots: tuple[Slot, ...]


def goal_menu_for(session: DomainSession, menu: GoalMenu) -> Menu:
    """Goal mode's menu as one ``goal: `` slot. A goal's deadline is the earliest deadline among the
    open subtasks working towards it in the domain's task graph (`TaskGraphMode`); a domain without
    a task graph gives none, and ``urgent`` keeps its menu order."""
    graph = task_graph_of(session)
    soonest: dict[str, float] = {}
    if graph is not None:
        for task in graph.subtasks:
            if task.id not in graph.done:
                soonest[task.goal] = min(soonest.get(task.goal, math.inf), task.deadline)
    options = tuple(Option(name, soonest.get(name, math.inf)) for name in menu.options)
    return Menu(session.step_index, (Slot("goal: ", options),))


def manager_menu(step: int, ready: Sequence[Subtask], agents: Sequence[str]) -> Menu:
    """The task-graph manager's menu: one ``<agent>: `` slot per agent, each offering every ready
    subtask with its own deadline, in the graph's order (earliest deadline first)."""
    options = tuple(Option(task.id, task.deadline) for task in ready)
    return Menu(step, tuple(Slot(f"{name}: ", options) for name in agents))


def parse_rule(model: str) -> RuleName:
    """The rule of a ``rule:<name>`` spec; `SpecError` naming the rules for any other name."""
    name = model.removeprefix(RULE_PREFIX)
    for rule in RULE_NAMES:
        if name == rule:
            return rule
    raise SpecError(f"unknown rule chooser {model!r}; the rules are: "
                    + ", ".join(RULE_PREFIX + r for r in RULE_NAMES))


def _by_urgency(options: Sequence[Option]) -> list[Option]:
    """Soonest deadline first; `sorted` is stable, so ties keep the menu's order."""
    return sorted(options, key=lambda o: o.steps_left)


@dataclass
class RuleBrain:
    """A rule in the model's seat (see the module docstring). `seed` makes ``random`` repeatable."""

    rule: RuleName
    seed: int = 0
    #: The prompt is built and recorded as for a model, so a recording reads (and replays) alike.
    needs_prompt: bool = True
    _step: int = field(default=-1, repr=False)
    _asked: int = field(default=0, repr=False)

    @property
    def name(self) -> str:
        return RULE_PREFIX + self.rule

    def _rng(self, step: int, slot: int, options: Sequence[Option]) -> random.Random:
        """A generator for one slot: seed, step, which call of the step and the options decide
        it, nothing carried over from earlier choices (so a resumed episode draws the same)."""
        key = "|".join([str(self.seed), str(step), str(self._asked), str(slot), *(o.name for o in options)])
        return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))

    def pick(self, menu: Menu) -> list[str]:
        """One option name per slot of `menu` (slots without options are skipped)."""
        if menu.step != self._step:
            self._step, self._asked = menu.step, 0
        chosen: list[str] = []
        if self.rule == "urgent":
            ranked = _by_urgency([o for s in menu.slots for o in s.options])
            order = list(dict.fromkeys(o.name for o in ranked))  # each option once, most urgent first
            dealt = 0
            for slot in menu.slots:
                names = {o.name for o in slot.options}
                mine = [n for n in order if n in names]
                if not mine:
                    continue
                untaken = [n for n in mine if n not in chosen]
                chosen.append(untaken[0] if untaken else mine[dealt % len(mine)])
                dealt += 1
        else:
            for k, slot in enumerate(menu.slots):
                if not slot.options:
                    continue
                if self.rule == "first":
                    chosen.append(slot.options[0].name)
                else:
                    chosen.append(self._rng(menu.step, k, slot.options).choice(slot.options).name)
        self._asked += 1
        return chosen

    async def choose(self, messages: Sequence[Message], menu: Menu) -> Call:
        """The rule's answer as a model call: `messages` kept for the recording, the text in the
        model's answer format, no tokens and no time spent."""
        picks = iter(self.pick(menu))
        lines = [slot.prefix + next(picks) for slot in menu.slots if slot.options]
        return Call(list(messages), "\n".join(lines), Usage())

    async def aclose(self) -> None:
        return None


__all__ = ["RULE_NAMES", "RULE_PREFIX", "Menu", "Option", "RuleBrain", "RuleName", "Slot", "goal_menu_for",
           "manager_menu", "parse_rule"]
