"""Which layouts the human trials cover, under which names.

The trials of Carroll et al. (2019) were recorded before the layouts got their published names, and
the maintained `overcooked` package later reused one of those names for a different grid:

- the trials say ``random0`` for forced_coordination and ``random3`` for counter_circuit (the other
  three already carry their published names; older releases also used ``simple``, ``unident_s`` and
  ``random1``, accepted here so old notes still work);
- ``counter_circuit`` in ``overcooked`` 0.2.1 is a 9-wide grid with tomatoes and bonus orders; the grid
  the people played (8 wide, onions only) ships as ``counter_circuit_o_1order``.

So a layout is resolved to the package's layout whose *terrain* the people played, and the loader
checks every trial's grid against that terrain (`check_terrain`) rather than trusting names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from overcooked_game.bc.errors import UnknownLayout


@dataclass(frozen=True)
class ClassicLayout:
    """One layout people played: its published name, the package's file and the trials' label."""

    name: str
    package_layout: str
    trials_name: str


CLASSIC_LAYOUTS: tuple[ClassicLayout, ...] = (
    ClassicLayout("cramped_room", "cramped_room", "cramped_room"),
    ClassicLayout("asymmetric_advantages", "asymmetric_advantages", "asymmetric_advantages"),
    ClassicLayout("coordination_ring", "coordination_ring", "coordination_ring"),
    ClassicLayout("forced_coordination", "forced_coordination", "random0"),
    ClassicLayout("counter_circuit", "counter_circuit_o_1order", "random3"),
)
CLASSIC_NAMES: tuple[str, ...] = tuple(layout.name for layout in CLASSIC_LAYOUTS)

# every spelling a user or an old file may use, mapped to the published name
_ALIASES: dict[str, str] = {
    "simple": "cramped_room",
    "unident_s": "asymmetric_advantages",
    "random1": "coordination_ring",
    "random0": "forced_coordination",
    "random3": "counter_circuit",
    "counter_circuit_o_1order": "counter_circuit",
}


def resolve(name: str) -> ClassicLayout:
    """The classic layout for a published name, a package file name or an old trials label.

    >>> resolve("random3").package_layout
    'counter_circuit_o_1order'
    """
    key = _ALIASES.get(name.strip(), name.strip())
    for layout in CLASSIC_LAYOUTS:
        if layout.name == key:
            return layout
    raise UnknownLayout(f"no human trials for layout {name!r}; the trials cover {', '.join(CLASSIC_NAMES)}")


def terrain_of(grid: Sequence[str]) -> tuple[str, ...]:
    """A grid's terrain: the rows with the players' start digits turned into floor."""
    return tuple("".join(" " if c.isdigit() else c for c in row.strip()) for row in grid)


def check_terrain(layout: ClassicLayout, trial_grid: Sequence[str], package_terrain: Sequence[Sequence[str]]) -> None:
    """Refuse trials recorded on another grid than the package layout they are mapped to."""
    played = terrain_of(trial_grid)
    shipped = tuple("".join(row) for row in package_terrain)
    if played != shipped:
        raise UnknownLayout(f"the trials' {layout.trials_name!r} grid {list(played)} differs from the package layout "
                            f"{layout.package_layout!r} {list(shipped)}")
