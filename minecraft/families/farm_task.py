"""A farm-to-table task: the dishes to serve and the farm they start from, plus the recipe book.

The recipe book (`farm_recipes.json`, shared with the server plugin `node/plugins/farm.js`) says
how each crop grows and what a ripe plot yields, which dishes are crafted from what, and what the
furnace smelts. A task file names the dishes, the fields (plots per crop, how many start ripe),
the pantry chest's contents, the hen house's eggs and the growth and laying times in world ticks.
Both are data, read through one bounded reader; every defect is one `FarmTaskError` line.

Example::

    task = load_farm_task(Path("levels/farm/cake.json"))
    task.dishes   # ('cake',)
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mindagent.recordings.limits import read_regular_file

SCHEMA: Literal["mindagent/farm-task@1"] = "mindagent/farm-task@1"
RECIPES_PATH = Path(__file__).with_name("farm_recipes.json")
#: A task file larger than this is refused before it is read.
MAX_BYTES = 64 * 1024
MAX_PLOTS = 6
MAX_DISHES = 8


class FarmTaskError(ValueError):
    """A farm task (or the recipe book) cannot be used; the message is one line naming what is wrong."""


class Crop(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: str
    block: str
    ripe_age: int
    ripe_block: str | None = None
    yield_: dict[str, int] = Field(alias="yield")


class Recipe(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    needs: dict[str, int]
    makes: int = 1
    returns: dict[str, int] = Field(default_factory=dict)


class Book(BaseModel):
    """The recipe book: crops, crafting, smelting, and which products count as dishes."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: Literal["mindagent/farm-recipes@1"] = Field(alias="schema")
    crops: dict[str, Crop]
    recipes: dict[str, Recipe]
    smelting: dict[str, str]
    fuel: str
    fuel_items: int
    dishes: tuple[str, ...]

    def items(self) -> set[str]:
        """Every item the farm knows (for checking pantry contents and command arguments)."""
        out = {self.fuel, "bucket", "milk_bucket", "egg", "bowl"}
        for crop in self.crops.values():
            out.add(crop.seed)
            out.update(crop.yield_)
        for name, recipe in self.recipes.items():
            out.add(name)
            out.update(recipe.needs)
            out.update(recipe.returns)
        out.update(self.smelting)
        out.update(self.smelting.values())
        return out

    def crop_yielding(self, item: str) -> str | None:
        """The crop whose ripe plot yields `item` as its main produce (the first listed), if any."""
        return next((name for name, c in self.crops.items() if next(iter(c.yield_)) == item), None)


@lru_cache(maxsize=1)
def book() -> Book:
    """The recipe book shipped beside this module (read once)."""
    data = read_regular_file(RECIPES_PATH, MAX_BYTES, FarmTaskError)
    try:
        return Book.model_validate(json.loads(data))
    except (ValueError, ValidationError) as exc:
        raise FarmTaskError(f"{RECIPES_PATH}: {str(exc).splitlines()[0]}") from None


class FieldSpec(BaseModel):
    """A row of plots of one crop; the first `ripe` start ripe, the rest start empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    crop: str
    plots: int = Field(ge=1, le=MAX_PLOTS)
    ripe: int = Field(ge=0, le=MAX_PLOTS)

    @model_validator(mode="after")
    def _fits(self) -> FieldSpec:
        if self.crop not in book().crops:
            raise ValueError(f"no crop {self.crop!r} (crops: {', '.join(book().crops)})")
        if self.ripe > self.plots:
            raise ValueError(f"{self.crop}: {self.ripe} ripe plots of {self.plots}")
        return self


class FarmTask(BaseModel):
    """What to serve and the farm it starts from. Times are world ticks (20 per second)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: Literal["mindagent/farm-task@1"] = Field(default=SCHEMA, alias="schema")
    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")
    dishes: tuple[str, ...] = Field(min_length=1, max_length=MAX_DISHES)
    fields: tuple[FieldSpec, ...] = Field(default=(), max_length=len(book().crops))
    pantry: dict[str, int] = Field(default_factory=dict)
    nest_eggs: int = Field(default=0, ge=0, le=16)
    egg_ticks: int = Field(default=200, ge=20, le=24000)
    grow_ticks: int = Field(default=160, ge=20, le=24000)
    steps: int = Field(default=40, ge=1, le=500)

    @model_validator(mode="after")
    def _known(self) -> FarmTask:
        for dish in self.dishes:
            if dish not in book().dishes:
                raise ValueError(f"no dish {dish!r} (dishes: {', '.join(book().dishes)})")
        crops = [f.crop for f in self.fields]
        if len(set(crops)) != len(crops):
            raise ValueError("a crop has two fields")
        known = book().items()
        for item, count in self.pantry.items():
            if item not in known:
                raise ValueError(f"pantry: no item {item!r} on this farm")
            if not 1 <= count <= 64:
                raise ValueError(f"pantry: {item} x{count} (1 to 64)")
        return self

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), indent=1, sort_keys=True)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def parse_farm_task(text: str | bytes, source: str = "farm task") -> FarmTask:
    """A task from its JSON text; `FarmTaskError` (one line, naming `source`) otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise FarmTaskError(f"{source}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise FarmTaskError(f"{source}: a farm task is a JSON object")
    if data.get("schema") != SCHEMA:
        raise FarmTaskError(f"{source}: schema must be {SCHEMA!r}")
    try:
        return FarmTask.model_validate(data)
    except ValidationError as exc:
        raise FarmTaskError(f"{source}: {_first_error(exc)}"[:300]) from None


def load_farm_task(path: Path) -> FarmTask:
    """A task file, refused by size before it is read (`MAX_BYTES`)."""
    return parse_farm_task(read_regular_file(path, MAX_BYTES, FarmTaskError), source=str(path))
