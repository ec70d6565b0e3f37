"""One sentence per reason code. Placeholders: {agent} {location} {item} {command} {cause}."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from cuisineworld.reasons import Code, Reason

TEMPLATES: dict[Code, str] = {
    Code.MALFORMED: "'{command}' is not a command I can read (expected verb_agentN[_item]_location).",
    Code.UNKNOWN_VERB: "'{command}' uses an unknown action; use goto, get, put, activate or noop.",
    Code.UNKNOWN_AGENT: "'{command}' names an agent that is not in this kitchen.",
    Code.UNKNOWN_LOCATION: "'{command}': there is no {location} in this kitchen.",
    Code.DUPLICATE_AGENT: "'{command}' is a second command for {agent}; each agent takes one command per step.",
    Code.JOINT_REJECTED: "'{command}' was not run because the whole step was rejected: {cause}",
    Code.AGENT_BUSY: "{agent} is busy operating a tool and can only wait (noop) this step.",
    Code.NOT_AT_LOCATION: "{agent} is not at {location}; send it there with goto first.",
    Code.CANNOT_REACH: "{agent} cannot reach {location} in this kitchen; hand the item over on a counter to an agent who can.",
    Code.NOT_GETTABLE: "{agent} cannot take anything out of {location} right now (activate it first, or nothing there can be taken).",
    Code.HANDS_FULL: "{agent} is already holding {item}; put it somewhere before taking or activating.",
    Code.HANDS_EMPTY: "{agent} is holding nothing, so there is nothing to put into {location}.",
    Code.LOCATION_BUSY: "{agent} cannot use {location}: it is still cooking.",
    Code.LOCATION_EMPTY: "{location} is empty, so {agent} can neither take from it nor activate it.",
    Code.LOCATION_FULL: "{location} is full; {agent} cannot put {item} into it.",
    Code.NOT_BASE_INGREDIENT: "{agent} can only take a named base ingredient from {location}; '{item}' is not one.",
    Code.NOT_A_LEVEL_DISH: "{item} is not a dish ordered in this level, so {agent} cannot put it on {location}.",
    Code.NO_OPEN_ORDER: "no open order is waiting for {item}, so {agent} cannot serve it on {location}.",
    Code.WOULD_BE_WASTE: "putting {item} into {location} would only make waste; no recipe of that tool goes on from its content.",
    Code.DUPLICATE_ITEM: "{location} already holds {item}; a second one is not needed.",
    Code.NO_RECIPE: "activating {location} would make waste: its content ({item}) matches no recipe of that tool.",
    Code.NOTHING_DONE: "No agent did anything this step; orders keep expiring while everyone waits.",
    Code.NO_COMMANDS: "No command was found in the reply; write one command per agent, e.g. goto_agent0_storage0.",
    Code.ORDER_COMPLETED: "Order completed: {item}.",
    Code.ORDER_FAILED: "Order failed (its lifetime ran out): {item}.",
}


def describe(reason: Reason) -> str:
    """One English sentence for a reason."""
    template = TEMPLATES.get(reason.code, "{code}")
    return template.format(
        agent=f"agent{reason.agent}" if reason.agent is not None else "the agent",
        location=reason.location or "that place",
        item=reason.item if reason.item is not None else "nothing",
        command=(reason.command or "")[:80],
        cause=describe(reason.cause) if reason.cause is not None else "",
        code=reason.code.value,
    )


# Read-only members, so the engine's frozen `Outcome` and `StepResult` fit.
class _OutcomeLike(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def reason(self) -> Reason | None: ...


class _StepLike(Protocol):
    @property
    def outcomes(self) -> Sequence[_OutcomeLike]: ...
    @property
    def notes(self) -> Sequence[Reason]: ...
    @property
    def completed(self) -> Sequence[str]: ...
    @property
    def failed(self) -> Sequence[str]: ...


def outcome_lines(outcomes: Iterable[_OutcomeLike]) -> list[str]:
    """Sentences for the refused commands, in the order they were given."""
    return [describe(o.reason) for o in outcomes if not o.ok and o.reason is not None]


def step_lines(result: _StepLike) -> list[str]:
    """Everything the dispatcher should hear about a step: notes, refusals, served and lost orders.

    When the whole joint action was rejected, the cause is said once rather than once per command.
    """
    lines = [describe(n) for n in result.notes]
    for o in result.outcomes:
        if o.ok or o.reason is None or o.reason.code is Code.JOINT_REJECTED:
            continue
        text = describe(o.reason)
        if text not in lines:
            lines.append(text)
    lines.extend(describe(Reason(Code.ORDER_COMPLETED, item=d)) for d in result.completed)
    lines.extend(describe(Reason(Code.ORDER_FAILED, item=d)) for d in result.failed)
    return lines
