"""A construction blueprint: which block goes where, facing which way, and what the chest holds.

Positions are relative to the building site: ``x`` and ``z`` across the site, ``y`` the layer
above the ground (``y = 0`` rests on the ground). VillagerBench writes absolute world coordinates;
relative ones let the same file be built wherever a server has room. A blueprint is data: it is
read through one bounded reader and every defect is a single `BlueprintError` line.

Example::

    bp = load_blueprint(Path("levels/construction/hut.json"))
    bp.blocks[0]  # Block(material='stone', x=0, y=0, z=0, facing=None)
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mindagent.recordings.limits import read_regular_file

SCHEMA: Literal["mindagent/blueprint@1"] = "mindagent/blueprint@1"
#: A blueprint file larger than this is refused before it is read.
MAX_BYTES = 256 * 1024
#: The site is at most SITE x SITE columns and HEIGHT layers.
SITE = 16
HEIGHT = 16
MAX_BLOCKS = 512
Facing = Literal["N", "E", "S", "W"]
Position = tuple[int, int, int]

#: Full blocks: anything may rest on them.
SOLID = ("stone", "cobblestone", "oak_planks", "bricks", "sandstone", "oak_log", "glass", "dirt", "grass_block")
#: Blocks that must be given a facing (the way the block's front looks, as VillagerBench lists it).
FACED = ("oak_stairs", "furnace")
#: Plants: they stand only on soil and nothing rests on them.
PLANTS = ("poppy", "dandelion", "oxeye_daisy")
SOIL = ("dirt", "grass_block")
MATERIALS = SOLID + FACED + PLANTS


class BlueprintError(ValueError):
    """A blueprint cannot be used; the message is one line naming what is wrong."""


class Block(BaseModel):
    """One block of the blueprint; `facing` is required for `FACED` materials and refused otherwise."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    material: Literal[MATERIALS]  # type: ignore[valid-type]
    x: int = Field(ge=0, lt=SITE)
    y: int = Field(ge=0, lt=HEIGHT)
    z: int = Field(ge=0, lt=SITE)
    facing: Facing | None = None

    @model_validator(mode="after")
    def _facing_fits(self) -> Block:
        if self.material in FACED and self.facing is None:
            raise ValueError(f"{self.material} at {self.pos} needs a facing (N, E, S or W)")
        if self.material not in FACED and self.facing is not None:
            raise ValueError(f"{self.material} at {self.pos} has no facing")
        return self

    @property
    def pos(self) -> Position:
        return (self.x, self.y, self.z)


class ChestStack(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    material: Literal[MATERIALS]  # type: ignore[valid-type]
    count: int = Field(ge=1, le=64)


class Blueprint(BaseModel):
    """What to build and the materials provided. `chest` empty means exactly what the blocks need."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: Literal["mindagent/blueprint@1"] = Field(default=SCHEMA, alias="schema")
    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")
    blocks: tuple[Block, ...] = Field(min_length=1, max_length=MAX_BLOCKS)
    chest: tuple[ChestStack, ...] = Field(default=(), max_length=MAX_BLOCKS)

    @model_validator(mode="after")
    def _one_block_per_place(self) -> Blueprint:
        seen: set[Position] = set()
        for block in self.blocks:
            if block.pos in seen:
                raise ValueError(f"two blocks at {block.pos}")
            seen.add(block.pos)
        return self

    def at(self) -> dict[Position, Block]:
        """The blocks by position."""
        return {b.pos: b for b in self.blocks}

    def needs(self) -> dict[str, int]:
        """Materials the blueprint uses, with counts, in material-name order."""
        return dict(sorted(Counter(b.material for b in self.blocks).items()))

    def chest_contents(self) -> dict[str, int]:
        """What the chest holds at the start: `chest` when given, else exactly `needs()`."""
        if not self.chest:
            return self.needs()
        total: Counter[str] = Counter()
        for stack in self.chest:
            total[stack.material] += stack.count
        return dict(sorted(total.items()))

    def to_json(self) -> str:
        """The file form (stable key order), which `parse_blueprint` reads back to an equal value."""
        return json.dumps(self.model_dump(mode="json", by_alias=True, exclude_none=False), indent=1, sort_keys=True)


def chest_stacks(contents: dict[str, int]) -> tuple[ChestStack, ...]:
    """Counts split into stacks of at most 64, as a chest holds them."""
    stacks: list[ChestStack] = []
    for material, count in sorted(contents.items()):
        while count > 0:
            stacks.append(ChestStack(material=material, count=min(64, count)))
            count -= 64
    return tuple(stacks)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def parse_blueprint(text: str | bytes, source: str = "blueprint") -> Blueprint:
    """A blueprint from its JSON text; `BlueprintError` (one line, naming `source`) otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BlueprintError(f"{source}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise BlueprintError(f"{source}: a blueprint is a JSON object")
    try:
        return Blueprint.model_validate(data)
    except ValidationError as exc:
        raise BlueprintError(f"{source}: {_first_error(exc)}"[:300]) from None


def load_blueprint(path: Path) -> Blueprint:
    """A blueprint file, refused by size before it is read (`MAX_BYTES`)."""
    return parse_blueprint(read_regular_file(path, MAX_BYTES, BlueprintError), source=str(path))
