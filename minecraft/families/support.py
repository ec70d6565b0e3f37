"""What holds a block up, and whether a blueprint can be built at all.

The rule (ours, stricter than vanilla so that order matters): a block rests on the ground
(``y = 0``) or on a block directly below it; nothing rests on a plant; a plant stands only on
soil (``dirt``, ``grass_block``) or on the ground, which on the superflat site is grass. Since
support only comes from below, a blueprint is buildable exactly when every block's support is
in the blueprint, and building layer by layer is then always a valid order.

Example: ``build_order(bp)`` lists the blocks bottom layer first; ``problems(bp)`` says why not.
"""

from __future__ import annotations

from collections.abc import Mapping

from minecraft.families.blueprint import PLANTS, SOIL, Block, Blueprint, Position


def below(pos: Position) -> Position:
    return (pos[0], pos[1] - 1, pos[2])


def held_up(material: str, pos: Position, placed: Mapping[Position, str]) -> str | None:
    """Why `material` cannot go at `pos` given the `placed` blocks (position -> material), or None."""
    if pos[1] == 0:
        return None
    under = placed.get(below(pos))
    if under is None:
        return f"nothing under {pos} to rest on"
    if under in PLANTS:
        return f"the {under} under {pos} holds nothing up"
    if material in PLANTS and under not in SOIL:
        return f"a {material} needs dirt or grass under it, not {under}"
    return None


def problems(blueprint: Blueprint) -> list[str]:
    """Every reason the blueprint cannot be built from its chest, one line each, [] when it can."""
    found: list[str] = []
    final = {b.pos: b.material for b in blueprint.blocks}
    for block in sorted(blueprint.blocks, key=_layer_key):
        why = held_up(block.material, block.pos, final)
        if why:
            found.append(why)
    have = blueprint.chest_contents()
    for material, count in blueprint.needs().items():
        if have.get(material, 0) < count:
            found.append(f"the chest holds {have.get(material, 0)} {material}, the blueprint uses {count}")
    return found


def _layer_key(block: Block) -> tuple[int, int, int]:
    return (block.y, block.x, block.z)


def build_order(blueprint: Blueprint) -> list[Block]:
    """A support-respecting order (bottom layer first, then x, then z); ValueError when unbuildable."""
    why = problems(blueprint)
    if why:
        raise ValueError(f"{blueprint.name} cannot be built: {why[0]}")
    return sorted(blueprint.blocks, key=_layer_key)


def depth(blueprint: Blueprint) -> int:
    """The longest support chain (the number of layers a block waits on, counting itself)."""
    return max(b.y for b in blueprint.blocks) + 1
