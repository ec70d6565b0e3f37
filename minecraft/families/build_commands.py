"""The construction family's commands, read from model text with one regex (never evaluated).

Syntax (site coordinates, as the blueprint lists them)::

    take(Alex, stone, 4)              take 4 stone from the materials chest (1 to 64)
    place(Alex, stone, 1, 0, 2)       place a stone at x=1, y=0, z=2
    place(Alex, oak_stairs, 1, 0, 2, N)   a block with a facing (N, E, S, W)
    dig(Alex, 1, 0, 2)                dig out the block there (a wrong one)
    noop(Alex)

Verbs and agent names match case-insensitively; materials are Minecraft ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Verb = Literal["take", "place", "dig", "noop"]
VERBS: tuple[Verb, ...] = ("take", "place", "dig", "noop")

_NUM = r"\s*(-?\d{1,3})\s*"
COMMAND_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<verb>take|place|dig|noop)\(\s*(?P<agent>[A-Za-z][A-Za-z0-9_]{0,15})\s*"
    r"(?:,\s*(?:minecraft:)?(?P<material>[a-z][a-z_]{0,39})\s*)?"
    r"(?P<nums>(?:," + _NUM + r"){0,3})"
    r"(?:,\s*(?P<facing>[NESW])\s*)?\)",
    re.IGNORECASE,
)


class BuildSyntaxError(ValueError):
    """Text that is not one well-formed construction command for this team."""


@dataclass(frozen=True, slots=True)
class BuildCommand:
    """One bot's action. Example: ``BuildCommand("place", "Alex", "stone", (1, 0, 2)).text``."""

    verb: Verb
    agent: str
    material: str | None = None
    pos: tuple[int, int, int] | None = None
    count: int = 0
    facing: str | None = None

    @property
    def text(self) -> str:
        if self.verb == "noop":
            return f"noop({self.agent})"
        if self.verb == "take":
            return f"take({self.agent}, {self.material}, {self.count})"
        assert self.pos is not None
        xyz = ", ".join(str(c) for c in self.pos)
        if self.verb == "dig":
            return f"dig({self.agent}, {xyz})"
        tail = f", {self.facing}" if self.facing else ""
        return f"place({self.agent}, {self.material}, {xyz}{tail})"


def _build(match: re.Match[str], agents: Sequence[str]) -> BuildCommand:
    verb: Verb = match["verb"].lower()  # type: ignore[assignment]
    agent = {a.lower(): a for a in agents}.get(match["agent"].lower())
    if agent is None:
        raise BuildSyntaxError(f"unknown agent {match['agent']!r}")
    material = match["material"].lower() if match["material"] else None
    nums = [int(n) for n in re.findall(r"-?\d+", match["nums"] or "")]
    facing = match["facing"].upper() if match["facing"] else None
    shape = (material is not None, len(nums), facing is not None)
    if verb == "noop" and shape == (False, 0, False):
        return BuildCommand("noop", agent)
    if verb == "take" and shape == (True, 1, False):
        return BuildCommand("take", agent, material, count=nums[0])
    if verb == "place" and shape[:2] == (True, 3):
        return BuildCommand("place", agent, material, (nums[0], nums[1], nums[2]), facing=facing)
    if verb == "dig" and shape == (False, 3, False):
        return BuildCommand("dig", agent, pos=(nums[0], nums[1], nums[2]))
    raise BuildSyntaxError(f"{verb} does not take those arguments (see the command list)")


def parse_build_command(text: str, agents: Sequence[str]) -> BuildCommand:
    """Exactly one command (surrounding whitespace allowed), else `BuildSyntaxError`."""
    match = COMMAND_RE.fullmatch(text.strip())
    if match is None:
        raise BuildSyntaxError(f"not a command: {text.strip()[:80]!r}")
    return _build(match, agents)


def extract_build_commands(text: str, agents: Sequence[str]) -> list[BuildCommand]:
    """Every well-formed command in free text, the first per agent, in agent order."""
    first: dict[str, BuildCommand] = {}
    for match in COMMAND_RE.finditer(text):
        try:
            command = _build(match, agents)
        except BuildSyntaxError:
            continue
        first.setdefault(command.agent, command)
    return [first[a] for a in agents if a in first]
