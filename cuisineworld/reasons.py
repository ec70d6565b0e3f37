"""Structured reasons: why a command was refused, or what a step should be told.

The engine never writes English. It emits a `Reason` (a code plus the agent, location and item
involved) and the `feedback` package turns it into a sentence, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

_T = TypeVar("_T", int, str)


class Code(StrEnum):
    # command strings that cannot be read
    MALFORMED = "malformed"
    UNKNOWN_VERB = "unknown_verb"
    UNKNOWN_AGENT = "unknown_agent"
    UNKNOWN_LOCATION = "unknown_location"
    DUPLICATE_AGENT = "duplicate_agent"
    JOINT_REJECTED = "joint_rejected"
    # verbs refused by the rules
    AGENT_BUSY = "agent_busy"
    NOT_AT_LOCATION = "not_at_location"
    CANNOT_REACH = "cannot_reach"
    NOT_GETTABLE = "not_gettable"
    HANDS_FULL = "hands_full"
    HANDS_EMPTY = "hands_empty"
    LOCATION_BUSY = "location_busy"
    LOCATION_EMPTY = "location_empty"
    LOCATION_FULL = "location_full"
    NOT_BASE_INGREDIENT = "not_base_ingredient"
    NOT_A_LEVEL_DISH = "not_a_level_dish"
    NO_OPEN_ORDER = "no_open_order"
    WOULD_BE_WASTE = "would_be_waste"
    DUPLICATE_ITEM = "duplicate_item"
    NO_RECIPE = "no_recipe"
    # step notes (not tied to one command)
    NOTHING_DONE = "nothing_done"
    NO_COMMANDS = "no_commands"
    ORDER_COMPLETED = "order_completed"
    ORDER_FAILED = "order_failed"


@dataclass(frozen=True, slots=True)
class Reason:
    """A refusal or a step note. `command` keeps the raw text when it could not be parsed."""

    code: Code
    agent: int | None = None
    location: str | None = None
    item: str | None = None
    command: str | None = None
    # for JOINT_REJECTED: the reason that sank the joint action
    cause: Reason | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code.value}
        for key in ("agent", "location", "item", "command"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.cause is not None:
            out["cause"] = self.cause.to_dict()
        return out

    @staticmethod
    def from_dict(raw: Mapping[str, object]) -> Reason:
        cause = raw.get("cause")
        return Reason(
            Code(str(raw["code"])),
            agent=_optional(raw, "agent", int),
            location=_optional(raw, "location", str),
            item=_optional(raw, "item", str),
            command=_optional(raw, "command", str),
            cause=Reason.from_dict(cause) if isinstance(cause, dict) else None,
        )


def _optional(raw: Mapping[str, object], key: str, kind: type[_T]) -> _T | None:
    """A field read back from a recording: absent, or of the type `to_dict` wrote."""
    value = raw.get(key)
    if value is None or isinstance(value, kind):
        return value
    raise ValueError(f"reason field {key!r} should be {kind.__name__}, not {value!r}")
