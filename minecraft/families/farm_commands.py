"""The farm family's commands, read from model text with one regex (never evaluated).

Syntax::

    take(Alex, bucket, 3)     take up to 3 of an item from the pantry chest (1 to 64)
    gather(Alex, egg, 1)      take eggs the hens laid from the hen house nest
    harvest(Alex, wheat)      harvest one ripe plot of a crop (its yield goes to the bot)
    plant(Alex, wheat)        plant the crop's seed in an empty plot of its field
    milk(Alex)                fill a bucket the bot carries at a cow
    craft(Alex, bread)        craft one recipe at the crafting table
    smelt(Alex, potato)       put what the bot carries of an item (and its coal) in the furnace
    takeout(Alex)             take what the furnace has smelted
    serve(Alex, bread)        hand one dish in at the serving chest
    noop(Alex)

Verbs and agent names match case-insensitively; items are Minecraft ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Verb = Literal["take", "gather", "harvest", "plant", "milk", "craft", "smelt", "takeout", "serve", "noop"]
#: verb -> (takes an item, takes a count)
SHAPES: dict[str, tuple[bool, bool]] = {
    "take": (True, True), "gather": (True, True), "harvest": (True, False), "plant": (True, False),
    "milk": (False, False), "craft": (True, False), "smelt": (True, False), "takeout": (False, False),
    "serve": (True, False), "noop": (False, False),
}

COMMAND_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<verb>" + "|".join(SHAPES) + r")\(\s*(?P<agent>[A-Za-z][A-Za-z0-9_]{0,15})\s*"
    r"(?:,\s*(?:minecraft:)?(?P<item>[a-z][a-z_]{0,39})\s*)?"
    r"(?:,\s*(?P<count>\d{1,3})\s*)?\)",
    re.IGNORECASE,
)


class FarmSyntaxError(ValueError):
    """Text that is not one well-formed farm command for this team."""


@dataclass(frozen=True, slots=True)
class FarmCommand:
    """One bot's action. Example: ``FarmCommand("harvest", "Alex", "wheat").text == "harvest(Alex, wheat)"``."""

    verb: Verb
    agent: str
    item: str | None = None
    count: int = 0

    @property
    def text(self) -> str:
        args = [self.agent] + ([self.item] if self.item else []) + ([str(self.count)] if SHAPES[self.verb][1] else [])
        return f"{self.verb}({', '.join(str(a) for a in args)})"


def _build(match: re.Match[str], agents: Sequence[str]) -> FarmCommand:
    verb: Verb = match["verb"].lower()  # type: ignore[assignment]
    agent = {a.lower(): a for a in agents}.get(match["agent"].lower())
    if agent is None:
        raise FarmSyntaxError(f"unknown agent {match['agent']!r}")
    item = match["item"].lower() if match["item"] else None
    count = int(match["count"]) if match["count"] else None
    if (item is not None, count is not None) != SHAPES[verb]:
        raise FarmSyntaxError(f"{verb} does not take those arguments (see the command list)")
    return FarmCommand(verb, agent, item, count or 0)


def parse_farm_command(text: str, agents: Sequence[str]) -> FarmCommand:
    """Exactly one command (surrounding whitespace allowed), else `FarmSyntaxError`."""
    match = COMMAND_RE.fullmatch(text.strip())
    if match is None:
        raise FarmSyntaxError(f"not a command: {text.strip()[:80]!r}")
    return _build(match, agents)


def extract_farm_commands(text: str, agents: Sequence[str]) -> list[FarmCommand]:
    """Every well-formed command in free text, the first per agent, in agent order."""
    first: dict[str, FarmCommand] = {}
    for match in COMMAND_RE.finditer(text):
        try:
            command = _build(match, agents)
        except FarmSyntaxError:
            continue
        first.setdefault(command.agent, command)
    return [first[a] for a in agents if a in first]
