"""Plans: answers that last more than one step, executed step by step and re-checked each step.

One mechanism serves two ways of dispatching that the per-step loop cannot:

- **plan-ahead** (`CommandPlan`): the model writes the commands of the next few steps at once,
  so a model slower than the game's clock still has something to do at every tick;
- **goal mode** (`GoalPlan`): a manager (the language model, as head chef) picks a goal (which
  dish the team works on next) from a small menu, and an executor (a domain's planner, the line
  cooks) turns the goal into commands every step. The seeds' task-graph dispatch is the same
  shape: a manager assigns subtasks, an executor turns them into commands.

A plan never runs blind: `next` re-checks each step with the session's look-ahead and returns
None when the plan is exhausted, refused or no longer fits the state (it diverged); the caller
then asks the model again. `wants_renewal` says when it is time to ask again although the plan
can still act (a goal plan keeps its line cooks working while the head chef thinks).
The domain supplies the menu and the executor (`DomainSession.goal_menu`, `goal_executor`);
nothing here knows any game.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from mindagent.core.capabilities import goal_menu_of
from mindagent.core.directions import Directions
from mindagent.core.domain import DomainSession
from mindagent.llm.base import Message

DispatchMode = Literal["step", "plan", "goals"]
DISPATCH_MODES: tuple[DispatchMode, ...] = ("step", "plan", "goals")
#: Separator between the steps of a plan-ahead answer.
PLAN_SEPARATOR = "---"
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class GoalMenu:
    """What the head chef may choose now, and a compact picture of the kitchen to choose from.

    `signature` changes when something the choice depends on changed (an order arrived, was
    served or failed): a goal plan asks again then, not only every few steps."""

    options: tuple[str, ...]
    situation: str
    signature: tuple[object, ...] = ()


class Executor(Protocol):
    """Turns goals into one command per agent for the current step (the line cooks)."""

    def act(self, session: DomainSession, goals: Sequence[str]) -> list[str]: ...


class Plan:
    """A dispatcher answer that spans steps. `id` names it in recordings; `position` is the
    number of steps taken from it so far."""

    kind: str = "plan"

    def __init__(self, start_step: int) -> None:
        self.id = next(_ids)
        self.start_step = start_step
        self.position = 0

    def next(self, session: DomainSession) -> list[str] | None:
        """This step's commands, checked; None when the plan cannot give any (ask again)."""
        raise NotImplementedError

    def wants_renewal(self, session: DomainSession) -> bool:
        """Time to ask the model again even though `next` may still answer."""
        return False

    def describe(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "position": self.position}


class CommandPlan(Plan):
    """The commands of the next few steps, as the model wrote them."""

    kind = "commands"

    def __init__(self, start_step: int, steps: Sequence[Sequence[str]]) -> None:
        super().__init__(start_step)
        self.steps = [list(s) for s in steps if s]
        self.stopped: str | None = None  # why it stopped: exhausted, diverged, refused

    def next(self, session: DomainSession) -> list[str] | None:
        """The next planned step, from the step the plan is first used at: a plan that arrives
        late (a model slower than the clock, its agents idle meanwhile) starts when it arrives."""
        if self.position == 0:
            self.start_step = session.step_index
        if self.position >= len(self.steps):
            self.stopped = "exhausted"
            return None
        if session.step_index != self.start_step + self.position:
            self.stopped = "diverged"  # steps were taken without this plan (idle ticks, people)
            return None
        commands = self.steps[self.position]
        if not all(v.ok for v in session.check(commands)):
            self.stopped = "refused"
            return None
        self.position += 1
        return list(commands)

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "length": len(self.steps), **({"stopped": self.stopped} if self.stopped else {})}


class GoalPlan(Plan):
    """Goals chosen by the manager, carried out by the executor until the menu changes or
    `every` steps have passed."""

    kind = "goals"

    def __init__(self, start_step: int, goals: Sequence[str], executor: Executor, menu: GoalMenu,
                 every: int, chosen_by: str = "model") -> None:
        super().__init__(start_step)
        self.goals = list(goals)
        self.executor = executor
        self.signature = menu.signature
        self.every = max(1, every)
        self.chosen_by = chosen_by  # model | rule:<name> | forced (one option) | none (no menu) | fallback (call failed)

    def next(self, session: DomainSession) -> list[str] | None:
        commands = self.executor.act(session, self.goals)
        self.position += 1
        return commands

    def wants_renewal(self, session: DomainSession) -> bool:
        if session.step_index - self.start_step >= self.every:
            return True
        menu = goal_menu_of(session)
        return menu is not None and menu.signature != self.signature

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "goals": list(self.goals), "chosen_by": self.chosen_by}


@dataclass
class GoalPrompt:
    """The head chef's prompt: short on purpose (a small local model answers it in about a second)."""

    system: str = ("You are the head chef of a kitchen team. The line cooks do all the cooking; you only "
                   "choose the dish the whole team works on next. Prefer an order that is about to run "
                   "out but can still be made in time. Answer with one line: goal: <dish>.")
    extra: list[str] = field(default_factory=list)

    def messages(self, menu: GoalMenu, head_chef: Sequence[str] = (), held: Sequence[str] = ()) -> list[Message]:
        lines = [menu.situation.rstrip("\n")]
        if head_chef:
            lines.append("The restaurant owner says: " + " / ".join(head_chef))
        if held:
            lines.append("Standing orders: " + "; ".join(held))
        lines.append("Choose from: " + ", ".join(menu.options))
        return [Message("system", self.system, cache_prefix=True), Message("user", "\n".join(lines))]


def directed_menu(menu: GoalMenu, directions: Directions) -> GoalMenu:
    """The menu without the goals the director rules out (``no X``, ``only X``), and a goal the
    director asks for (``make X``) first; the signature is kept, so a plan renews as before."""
    options = [o for o in menu.options if directions.permits(o)]
    if directions.make in options:
        options.remove(directions.make)
        options.insert(0, directions.make)
    return replace(menu, options=tuple(options))


def goal_grammar(options: Sequence[str]) -> str:
    """GBNF for one goal line (``goal: <option>``) and nothing after it."""
    alts = " | ".join('"' + o.replace("\\", "\\\\").replace('"', '\\"') + '"' for o in options)
    return f'root ::= "goal: " choice\nchoice ::= {alts}\n'


def parse_goal(text: str, options: Sequence[str]) -> str | None:
    """The option named after ``goal:`` (or, failing that, the first option named at all)."""
    by_lower = {o.lower(): o for o in options}
    match = re.search(r"goal\s*:\s*([A-Za-z0-9_]+)", text, re.IGNORECASE)
    if match and match[1].lower() in by_lower:
        return by_lower[match[1].lower()]
    for word in re.findall(r"[A-Za-z0-9_]+", text):
        if word.lower() in by_lower:
            return by_lower[word.lower()]
    return None


def plan_instruction(steps: int) -> str:
    """What the model is told when it may answer with a plan (appended to the step's user turn)."""
    return (f"You may plan up to {steps} steps ahead: write this step's commands, then for each further "
            f"step a line '{PLAN_SEPARATOR}' followed by that step's commands (one per agent).")


def plan_grammar(step_grammar: str, steps: int) -> str:
    """A plan of 1..`steps` steps, each derived by the domain's one-step grammar (its ``root``
    renamed), separated by `PLAN_SEPARATOR` lines; no rule repeats, so the answer ends."""
    body = re.sub(r"^root ::=", "stepanswer ::=", step_grammar, count=1, flags=re.MULTILINE)
    if body == step_grammar:
        raise ValueError("the step grammar has no root rule")
    rules = ["root ::= stepanswer" + (" tail1" if steps > 1 else "")]
    for k in range(1, steps):
        more = f" tail{k + 1}" if k + 1 < steps else ""
        rules.append(f'tail{k} ::= "" | "\\n{PLAN_SEPARATOR}\\n" stepanswer{more}')
    return "\n".join(rules) + "\n" + body


def split_plan(text: str) -> list[str]:
    """The answer's steps, in order (a plain one-step answer is a plan of one step)."""
    # [ \t], not \s: a \s* at every line start of a run of newlines re-reads the run (quadratic)
    blocks = re.split(rf"^[ \t]*{re.escape(PLAN_SEPARATOR)}[ \t]*$", text, flags=re.MULTILINE)
    return [b.strip() for b in blocks if b.strip()]
