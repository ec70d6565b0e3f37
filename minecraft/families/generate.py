"""Seeded construction blueprints in graded bands of size and dependency depth.

A band bounds the footprint, the number of layers (every upper block waits on the one below,
so layers are the dependency depth) and which kinds of block appear: the easy band uses full
blocks and flowers on soil, the medium band adds blocks with a facing, the hard band is larger
and taller. Every generated blueprint is buildable (`support.problems` is empty) and its chest
holds exactly what it uses. Same band and seed, same blueprint (one `random.Random` per call).

Example: ``generate("easy", 3).name == "construction:easy:3"``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from minecraft.families.blueprint import FACED, PLANTS, SOIL, SOLID, Block, Blueprint, Facing, chest_stacks


@dataclass(frozen=True, slots=True)
class Band:
    """Footprint sides from `side[0]` to `side[1]`, `layers[0]` to `layers[1]` layers."""

    side: tuple[int, int]
    layers: tuple[int, int]
    #: share of columns left empty (a ragged footprint)
    gaps: float
    faced: bool


BANDS: dict[str, Band] = {
    "easy": Band(side=(2, 3), layers=(1, 2), gaps=0.25, faced=False),
    "medium": Band(side=(3, 4), layers=(2, 3), gaps=0.2, faced=True),
    "hard": Band(side=(4, 6), layers=(3, 5), gaps=0.15, faced=True),
}
_FACINGS: tuple[Facing, ...] = ("N", "E", "S", "W")


def _column(rng: random.Random, height: int, band: Band, palette: list[str]) -> list[tuple[str, Facing | None]]:
    """One column bottom to top; its top may be a flower (on soil) or a faced block."""
    blocks: list[tuple[str, Facing | None]] = [(rng.choice(palette), None) for _ in range(height)]
    roll = rng.random()
    if height >= 2 and roll < 0.3:
        blocks[-2] = (rng.choice(SOIL), None)
        blocks[-1] = (rng.choice(PLANTS), None)
    elif band.faced and roll < 0.6:
        blocks[-1] = (rng.choice(FACED), rng.choice(_FACINGS))
    return blocks


def generate(band_name: str, seed: int) -> Blueprint:
    """A buildable blueprint of the named band; ValueError for a band that does not exist."""
    band = BANDS.get(band_name)
    if band is None:
        raise ValueError(f"no construction band {band_name!r} (bands: {', '.join(BANDS)})")
    rng = random.Random(f"construction:{band_name}:{seed}")
    width, length = rng.randint(*band.side), rng.randint(*band.side)
    layers = rng.randint(*band.layers)
    palette = sorted(rng.sample(SOLID, 3))
    columns = [(x, z) for x in range(width) for z in range(length)]
    tallest = rng.choice(columns)
    blocks: list[Block] = []
    for x, z in columns:
        if (x, z) != tallest and rng.random() < band.gaps:
            continue
        height = layers if (x, z) == tallest else rng.randint(1, layers)
        for y, (material, facing) in enumerate(_column(rng, height, band, palette)):
            blocks.append(Block(material=material, x=x, y=y, z=z, facing=facing))
    name = f"construction:{band_name}:{seed}"
    bp = Blueprint(name=name, blocks=tuple(blocks))
    return bp.model_copy(update={"chest": chest_stacks(bp.needs())})
