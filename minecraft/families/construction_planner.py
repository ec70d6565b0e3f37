"""The construction family's built-in dispatcher: builds in a support-respecting order.

Each step, bot by bot: place the lowest blueprint block it carries the material for whose support
stood before the step (no two bots on one spot); else dig out a wrong block; else take from the
chest the material the team lacks most (as many as still lack, at most 64); else wait. Every
command it gives passes the session's own check.
"""

from __future__ import annotations

from collections import Counter

from minecraft.families.blueprint import Block
from minecraft.families.build_commands import parse_build_command
from minecraft.families.build_world import check_one
from minecraft.families.construction import ConstructionSession
from minecraft.families.metrics import Placed
from minecraft.families.support import build_order


class ConstructionPlanner:
    """Example: ``ConstructionPlanner().act(session)`` → ``["take(Alex, dirt, 3)", "noop(Steve)"]``."""

    name = "planner"

    def reset(self, session: ConstructionSession) -> None:
        """Stateless: everything is read from the session each step."""

    def act(self, session: ConstructionSession) -> list[str]:
        world, bp = session.world, session.blueprint
        before = {p: b.material for p, b in world.site.items()}
        want = bp.at()
        todo = [b for b in build_order(bp) if world.site.get(b.pos) != Placed(b.material, b.facing)]
        wrong = sorted(p for p, placed in world.site.items()
                       if p not in want or Placed(want[p].material, want[p].facing) != placed)
        lacking = Counter(session.missing())
        claimed: set[tuple[int, int, int]] = set()
        out: list[str] = []
        for name in session.agents:
            out.append(self._one(session, name, before, todo, wrong, lacking, claimed))
        return out

    @staticmethod
    def _one(session: ConstructionSession, name: str, before: dict[tuple[int, int, int], str], todo: list[Block],
             wrong: list[tuple[int, int, int]], lacking: Counter[str], claimed: set[tuple[int, int, int]]) -> str:
        for block in todo:
            if block.pos in claimed:
                continue
            facing = f", {block.facing}" if block.facing else ""
            text = f"place({name}, {block.material}, {block.x}, {block.y}, {block.z}{facing})"
            if check_one(session.world, before, parse_build_command(text, session.agents)) is None:
                claimed.add(block.pos)
                return text
        for pos in wrong:
            if pos not in claimed:
                claimed.add(pos)
                return f"dig({name}, {pos[0]}, {pos[1]}, {pos[2]})"
        for material, n in sorted(lacking.items(), key=lambda kv: (-kv[1], kv[0])):
            if n > 0 and session.world.chest[material] > 0:
                count = min(64, n, session.world.chest[material])
                lacking[material] -= count
                return f"take({name}, {material}, {count})"
        return f"noop({name})"
