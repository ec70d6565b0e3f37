"""Structured outcomes of commands: what happened, never how to say it (that is `feedback`).

`ActionError` is the `Verdict.reason` of a refused or failed Minecraft command. Its `code` is
either the bridge's (``not_found``, ``missing_item``, ``empty_output``, ``timeout``, ``died``,
``disconnected`` ...) or one of the checker's own (``syntax``, ``unknown_agent``,
``duplicate_agent``, ``not_fuel``, ``not_cookable``, ``rejoining``, ``bridge``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ActionError:
    code: str
    agent: str | None = None
    command: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """What a recording keeps of the refusal (every field, so replays need no defaults)."""
        return {"code": self.code, "agent": self.agent, "command": self.command, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class ActionDone:
    """A command that the world confirmed; `result` is the bridge's result object."""

    command: str
    agent: str
    verb: str
    result: dict[str, Any] = field(default_factory=dict)


Outcome = ActionDone | ActionError
