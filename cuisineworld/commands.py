"""Typed commands and the parser for the string form the dispatcher writes.

`goto_agent0_storage0`, `get_agent0_tuna_storage0`, `put_agent1_mixer0`,
`activate_agent1_mixer0`, `noop_agent2`. The parser follows the reference's reading of these
strings (split on `_`, 2 to 4 parts) and returns a `Reason` instead of raising, so garbage from
a model is an ordinary refusal.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from cuisineworld.reasons import Code, Reason

VERBS: tuple[str, ...] = ("noop", "goto", "get", "put", "activate")
_VERB_SET = frozenset(VERBS)
_ITEM_VERBS = frozenset(("get", "put"))


@dataclass(frozen=True, slots=True)
class Command:
    """One agent's order for this step; `item` matters only for a get from storage."""

    verb: str
    agent: int
    location: str | None = None
    item: str | None = None

    def __str__(self) -> str:
        if self.verb == "noop":
            return f"noop_agent{self.agent}"
        if self.item is not None:
            return f"{self.verb}_agent{self.agent}_{self.item}_{self.location}"
        return f"{self.verb}_agent{self.agent}_{self.location}"


def _agent_index(token: str) -> int | None:
    if not token.startswith("agent"):
        return None
    digits = token[5:]
    if not digits.isascii() or not digits.isdigit():
        return None
    return int(digits)


def parse_command(text: str, n_agents: int, locations: Collection[str]) -> Command | Reason:
    """Read one command string; a `Reason` says what is wrong with it.

    >>> parse_command("get_agent0_tuna_storage0", 2, {"storage0"})
    Command(verb='get', agent=0, location='storage0', item='tuna')
    """
    raw = text.strip()
    parts = raw.split("_")
    if len(parts) < 2 or len(parts) > 4:
        return Reason(Code.MALFORMED, command=raw)
    verb = parts[0]
    if verb not in _VERB_SET:
        return Reason(Code.UNKNOWN_VERB, command=raw, item=verb[:40])
    agent = _agent_index(parts[1])
    if agent is None or agent >= n_agents:
        return Reason(Code.UNKNOWN_AGENT, agent=agent, command=raw)
    if len(parts) == 2:
        if verb != "noop":
            return Reason(Code.MALFORMED, agent=agent, command=raw)
        return Command("noop", agent)
    location = parts[-1]
    if location not in locations:
        return Reason(Code.UNKNOWN_LOCATION, agent=agent, location=location[:40], command=raw)
    if len(parts) == 4:
        if verb not in _ITEM_VERBS:
            return Reason(Code.MALFORMED, agent=agent, command=raw)
        return Command(verb, agent, location, parts[2])
    return Command(verb, agent, location)
