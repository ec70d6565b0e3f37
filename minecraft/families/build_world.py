"""What the construction family knows of the world, and the checker run before any bot moves.

`BuildWorld` holds the chest's contents, each bot's building materials and the site's blocks. The
live session refreshes the site and chest from the server after every step (the server is the
truth; C is computed from it) and the bots' materials from their confirmed actions.

`check_all` refuses, with an `ActionError`, every command that cannot work, judged in the order
given against a scratch copy (two bots cannot take the chest's last stone or fill one spot).
Support counts only blocks standing before the step: the bots act at the same time, so a block
placed this step cannot yet hold another up.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from minecraft.families.blueprint import FACED, HEIGHT, MATERIALS, SITE, Blueprint, Position
from minecraft.families.build_commands import BuildCommand, BuildSyntaxError, parse_build_command
from minecraft.families.metrics import Placed
from minecraft.families.support import held_up
from minecraft.results import ActionError

FACING_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
FACING_LETTERS = {v: k for k, v in FACING_NAMES.items()}
MAX_TAKE = 64


@dataclass
class BuildWorld:
    """Example: ``BuildWorld.fresh(bp, ["Alex"]).chest == Counter(bp.chest_contents())``."""

    chest: Counter[str]
    inventory: dict[str, Counter[str]]
    site: dict[Position, Placed] = field(default_factory=dict)

    @classmethod
    def fresh(cls, blueprint: Blueprint, agents: Sequence[str]) -> BuildWorld:
        return cls(Counter(blueprint.chest_contents()), {a: Counter() for a in agents})

    def apply(self, command: BuildCommand, result: Mapping[str, object] | None = None) -> None:
        """Record a confirmed command (`result`: what the bridge said, e.g. the facing it got)."""
        if command.verb == "take" and command.material:
            n = int(str(result["count"])) if result and "count" in result else min(command.count, self.chest[command.material])
            self.chest[command.material] -= n
            self.inventory[command.agent][command.material] += n
        elif command.verb == "place" and command.material and command.pos:
            facing = (result or {}).get("facing") if result else FACING_NAMES.get(command.facing or "")
            self.inventory[command.agent][command.material] -= 1
            letter = FACING_LETTERS.get(str(facing)) if command.material in FACED else None
            self.site[command.pos] = Placed(command.material, letter)
        elif command.verb == "dig" and command.pos:
            self.site.pop(command.pos, None)
        self.chest = +self.chest
        self.inventory = {a: +inv for a, inv in self.inventory.items()}


def _refuse(code: str, command: BuildCommand, detail: str) -> ActionError:
    return ActionError(code, command.agent, command.text, detail)


def check_one(world: BuildWorld, before: Mapping[Position, str], command: BuildCommand) -> ActionError | None:
    """Why `command` cannot work in `world` (support judged on `before`), or None."""
    if command.verb == "noop":
        return None
    if command.material is not None and command.material not in MATERIALS:
        return _refuse("unknown_material", command, f"{command.material} is not a building material here")
    if command.verb == "take":
        assert command.material is not None
        if not 1 <= command.count <= MAX_TAKE:
            return _refuse("bad_count", command, f"take 1 to {MAX_TAKE}, not {command.count}")
        if world.chest[command.material] <= 0:
            return _refuse("missing_item", command, f"the chest has no {command.material}")
        return None
    pos = command.pos
    assert pos is not None
    if not (0 <= pos[0] < SITE and 0 <= pos[1] < HEIGHT and 0 <= pos[2] < SITE):
        return _refuse("off_site", command, f"{pos} is outside the site (0..{SITE - 1}, 0..{HEIGHT - 1}, 0..{SITE - 1})")
    if command.verb == "dig":
        return None if pos in world.site else _refuse("not_found", command, f"there is no block at {pos}")
    material = command.material
    assert material is not None
    if world.inventory[command.agent][material] <= 0:
        return _refuse("missing_item", command, f"has no {material}")
    if (material in FACED) != (command.facing is not None):
        need = "needs a facing (N, E, S or W)" if material in FACED else "takes no facing"
        return _refuse("facing", command, f"{material} {need}")
    if pos in world.site:
        return _refuse("occupied", command, f"a {world.site[pos].material} is already at {pos}")
    why = held_up(material, pos, before)
    return None if why is None else _refuse("no_support", command, why)


def check_all(texts: Sequence[str], agents: Sequence[str],
              world: BuildWorld) -> list[tuple[BuildCommand | None, ActionError | None]]:
    """Each command parsed and judged in order against a scratch copy of `world`."""
    scratch = copy.deepcopy(world)
    before = {p: b.material for p, b in world.site.items()}
    seen: set[str] = set()
    out: list[tuple[BuildCommand | None, ActionError | None]] = []
    for text in texts:
        try:
            command = parse_build_command(text, agents)
        except BuildSyntaxError as exc:
            out.append((None, ActionError("syntax", None, text.strip()[:120], str(exc))))
            continue
        if command.agent in seen:
            out.append((command, _refuse("duplicate_agent", command, f"{command.agent} already has a command this step")))
            continue
        seen.add(command.agent)
        why = check_one(scratch, before, command)
        if why is None:
            scratch.apply(command)
        out.append((command, why))
    return out
