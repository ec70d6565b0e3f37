"""VillagerBench's construction metrics: completion rate C and the view hit rate (VHR).

C (their appendix A.2) is |P ∩ B| / |B| where a placed block matches a blueprint block when
position, material and facing all agree.

VHR (their eq. 3) is the IoU of the built structure against the blueprint averaged over a fixed
set of viewpoints. The paper does not list its viewpoints; ours are the six axis-aligned
orthographic views (from +x, -x, +y (above), -y (below), +z, -z). A view is a picture whose pixels
are the lines of cells along the view axis through the site; a pixel shows the material of the
first block met from the viewer's side (facing is not visible). A pixel counts in the
intersection when both pictures show the same material there, in the union when either shows a
block. Blocks outside the blueprint's site (``SITE`` x ``HEIGHT`` x ``SITE``) are the caller's to
leave out. Two empty pictures agree fully (IoU 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from minecraft.families.blueprint import Blueprint, Position


class Placed(NamedTuple):
    material: str
    facing: str | None = None


class View(NamedTuple):
    """Looking along `axis` (0 = x, 1 = y, 2 = z) from the high side when `from_high`."""

    name: str
    axis: int
    from_high: bool


VIEWS: tuple[View, ...] = (
    View("east", 0, True), View("west", 0, False), View("top", 1, True),
    View("bottom", 1, False), View("south", 2, True), View("north", 2, False),
)
Built = Mapping[Position, Placed]


def blueprint_as_built(blueprint: Blueprint) -> dict[Position, Placed]:
    """The blueprint as if built exactly, for comparisons."""
    return {b.pos: Placed(b.material, b.facing) for b in blueprint.blocks}


def completion_rate(blueprint: Blueprint, built: Built) -> float:
    """Blueprint blocks present with the right material and facing, over all blueprint blocks."""
    right = sum(1 for b in blueprint.blocks if built.get(b.pos) == Placed(b.material, b.facing))
    return right / len(blueprint.blocks)


def picture(built: Built, view: View) -> dict[tuple[int, int], str]:
    """What `view` shows: for each pixel (the two other coordinates) the nearest block's material."""
    nearest: dict[tuple[int, int], tuple[int, str]] = {}
    for pos, placed in built.items():
        pixel = tuple(c for i, c in enumerate(pos) if i != view.axis)
        along = pos[view.axis]
        distance = -along if view.from_high else along
        key = (pixel[0], pixel[1])
        if key not in nearest or distance < nearest[key][0]:
            nearest[key] = (distance, placed.material)
    return {pixel: material for pixel, (_, material) in nearest.items()}


def iou(seen: Mapping[tuple[int, int], str], expected: Mapping[tuple[int, int], str]) -> float:
    union = set(seen) | set(expected)
    if not union:
        return 1.0
    both = sum(1 for p in union if p in seen and seen[p] == expected.get(p))
    return both / len(union)


def view_hit_rate(blueprint: Blueprint, built: Built, views: tuple[View, ...] = VIEWS) -> float:
    """The mean IoU of the built pictures against the blueprint's, over `views`."""
    expected = blueprint_as_built(blueprint)
    return sum(iou(picture(built, v), picture(expected, v)) for v in views) / len(views)
