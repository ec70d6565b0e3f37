"""Seeded escape rooms in graded bands, each checked solvable before it is handed out.

A band bounds the number of rooms (VillagerBench's dependency depth), the atom tasks drawn, the
levers per room and the decoy chests. Draws are free (three plates, a key behind its own door);
`escape_room.solvable` rejects what a team of two cannot escape and the generator draws again
from the same `random.Random`, so the same band and seed always give the same room.

Example: ``generate_room("easy", 3).name == "escape:easy:3"``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from minecraft.families.escape_room import KEYS, MAX_STAGES, Kind, Room, Stage, solvable

TEAM = 2
MAX_DRAWS = 200


@dataclass(frozen=True, slots=True)
class Band:
    rooms: tuple[int, int]
    kinds: tuple[Kind, ...]
    levers: tuple[int, int]
    decoys: tuple[int, int]


BANDS: dict[str, Band] = {
    "easy": Band(rooms=(1, 2), kinds=("plates", "levers", "key"), levers=(2, 2), decoys=(0, 0)),
    "medium": Band(rooms=(2, 3), kinds=("plates", "levers", "key"), levers=(2, 3), decoys=(0, 1)),
    "hard": Band(rooms=(3, 5), kinds=("plates", "levers", "key"), levers=(3, 4), decoys=(1, 3)),
}


def _stage(rng: random.Random, band: Band, room: int, keys: list[str]) -> Stage:
    kind = rng.choice(band.kinds)
    if kind == "key" and not keys:
        kind = "plates"
    if kind == "plates":
        return Stage(kind="plates", plates=rng.randint(1, 3))
    if kind == "levers":
        order = list(range(rng.randint(*band.levers)))
        rng.shuffle(order)
        return Stage(kind="levers", order=tuple(order))
    key = keys.pop(rng.randrange(len(keys)))
    return Stage(kind="key", key=key, key_room=min(rng.randint(0, room + 1), MAX_STAGES - 1))


def _draw(rng: random.Random, band: Band, name: str, n_rooms: int) -> Room | None:
    keys = list(KEYS)
    stages = [_stage(rng, band, r, keys) for r in range(n_rooms)]
    decoys = sorted(rng.randrange(n_rooms) for _ in range(rng.randint(*band.decoys)))
    # a key drawn into a room past the last one has nowhere to lie: the draw is void
    if any(s.key_room is not None and s.key_room >= n_rooms for s in stages):
        return None
    try:
        return Room(name=name, team=TEAM, stages=tuple(stages), decoys=tuple(decoys))
    except ValueError:  # too many chests in one room
        return None


def generate_room(band_name: str, seed: int) -> Room:
    """A room of the named band that a team of two can escape; ValueError for an unknown band."""
    band = BANDS.get(band_name)
    if band is None:
        raise ValueError(f"no escape band {band_name!r} (bands: {', '.join(BANDS)})")
    rng = random.Random(f"escape:{band_name}:{seed}")
    n_rooms = rng.randint(*band.rooms)
    name = f"escape:{band_name}:{seed}"
    for _ in range(MAX_DRAWS):
        room = _draw(rng, band, name, n_rooms)
        if room is not None and solvable(room) is None:
            return room
    raise RuntimeError(f"{name}: no solvable room in {MAX_DRAWS} draws")  # pragma: no cover - bands make this unreachable
