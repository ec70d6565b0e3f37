"""Loads and cross-checks the data files; every problem becomes one `LevelFileError`.

The error names the file, the field and what is wrong, so the CLI can print one line and stop
before anything starts (a half-loaded kitchen is worse than none).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from cuisineworld.levels.limits import MAX_LEVEL_FILE_BYTES, MAX_RECIPE_DEPTH, MAX_RECIPE_EXPANSION
from cuisineworld.levels.schema import LevelFile, LocationTypesFile, LocationTypeSpec, RecipesFile, RecipeSpec

_DATA = "data"
SHIPPED = "recipes (shipped)"
M = TypeVar("M", bound=BaseModel)


class LevelFileError(ValueError):
    """A data file is unreadable or inconsistent: `file`, `field` and `problem` say where and why."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file, self.field, self.problem = file, field, problem
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class LevelData:
    """A validated level with the recipe book and location types it is to be played with."""

    level: LevelFile
    recipes: tuple[RecipeSpec, ...]
    base_ingredients: tuple[str, ...]
    location_types: tuple[LocationTypeSpec, ...]
    source: str


def _read_json(text: str, file: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LevelFileError(file, f"line {exc.lineno} column {exc.colno}", f"not valid JSON ({exc.msg})") from None
    except RecursionError:  # "[[[[..." a hundred thousand deep: no level is shaped like that
        raise LevelFileError(file, "", "not valid JSON (nested too deeply)") from None


def _validate(model: type[M], raw: object, file: str) -> M:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise LevelFileError(file, field, first["msg"]) from None


def _packaged(relative: str) -> tuple[str, str]:
    res = resources.files("cuisineworld.levels").joinpath(_DATA, relative)
    return res.read_text(encoding="utf-8"), f"levels/{_DATA}/{relative}"


def _from_path(path: Path) -> tuple[str, str]:
    """The file's text, read only when it is a regular file within the size limit (a FIFO, a
    device or a 1 GB file is refused before a byte of it is parsed)."""
    file = str(path)
    try:
        # O_NONBLOCK: a FIFO put in the file's place is not waited on
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise LevelFileError(file, "", "not a regular file")
            if info.st_size > MAX_LEVEL_FILE_BYTES:
                raise LevelFileError(file, "", f"{info.st_size} bytes, over the limit of {MAX_LEVEL_FILE_BYTES}")
            data = fh.read(MAX_LEVEL_FILE_BYTES + 1)
    except OSError as exc:
        raise LevelFileError(file, "", f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > MAX_LEVEL_FILE_BYTES:
        raise LevelFileError(file, "", f"grew past the limit of {MAX_LEVEL_FILE_BYTES} bytes while read")
    try:
        return data.decode("utf-8"), file
    except UnicodeDecodeError:
        raise LevelFileError(file, "", "not UTF-8 text") from None


def load_location_types() -> tuple[LocationTypeSpec, ...]:
    text, name = _packaged("location_types.json")
    return tuple(_validate(LocationTypesFile, _read_json(text, name), name).location_types)


def load_recipes(extra: str | Path | None = None) -> RecipesFile:
    """The shipped recipe book, with a user's recipe file merged over it when given."""
    text, name = _packaged("recipes.json")
    book = _validate(RecipesFile, _read_json(text, name), name)
    if extra is None:
        return book
    text, name = _from_path(Path(extra))
    user = _validate(RecipesFile, _read_json(text, name), name)
    by_product = {r.product: r for r in book.recipes}
    for r in user.recipes:
        by_product[r.product] = r
    base = list(book.base_ingredients) + [b for b in user.base_ingredients if b not in book.base_ingredients]
    merged = _validate(  # the limits hold for the merged book too
        RecipesFile,
        {"schema": "mindagent/recipes@1", "base_ingredients": base, "recipes": [r.model_dump() for r in by_product.values()]},
        f"{name} (merged with the shipped recipes)",
    )
    # errors point into the user's file: its recipe's position there, not in the merged book
    where = {r.product: f"recipes.{i}" for i, r in enumerate(user.recipes)}
    _check_recipes(merged, load_location_types(), name, where)
    return merged


def level_names() -> list[str]:
    """Shipped level names in numeric order (level_0 .. level_12)."""
    folder = resources.files("cuisineworld.levels").joinpath(_DATA, "levels")
    names = [p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json")]
    return sorted(names, key=lambda n: (len(n), n))


def _check_recipes(book: RecipesFile, types: tuple[LocationTypeSpec, ...], file: str, where: dict[str, str]) -> None:
    """`where` names a product's recipe in the user's file (a shipped one's is `SHIPPED`)."""
    type_names = {t.name for t in types}
    base = set(book.base_ingredients)
    products = {r.product for r in book.recipes}
    for r in book.recipes:
        at = where.get(r.product, SHIPPED)
        if r.tool not in type_names:
            raise LevelFileError(file, f"{at}.tool", f"unknown location type {r.tool!r}")
        if r.product in base:
            raise LevelFileError(file, f"{at}.product", f"{r.product!r} is a base ingredient")
        for j, ing in enumerate(r.ingredients):
            if ing not in base and ing not in products:
                raise LevelFileError(file, f"{at}.ingredients.{j}", f"{ing!r} is neither a base ingredient nor made by a recipe")
    _check_acyclic(book, file, where)


def _check_acyclic(book: RecipesFile, file: str, where: dict[str, str]) -> None:
    """No cycles, no chain deeper than MAX_RECIPE_DEPTH, no dish whose recipe tree expands past
    MAX_RECIPE_EXPANSION nodes. Counted once per product (memoised), so a graph that doubles at
    every level costs a few hundred additions here instead of an exponential walk later."""
    makes = {r.product: r.ingredients for r in book.recipes}
    done: dict[str, tuple[int, int]] = {}  # product -> (depth, nodes of its expanded tree)
    visiting: set[str] = set()

    def visit(node: str) -> tuple[int, int]:
        if node not in makes:
            return 0, 1
        if node in done:
            return done[node]
        if node in visiting:
            raise LevelFileError(file, "recipes", f"recipe cycle through {node!r}")
        visiting.add(node)
        depth, nodes = 0, 1
        for child in makes[node]:
            child_depth, child_nodes = visit(child)
            depth = max(depth, child_depth)
            nodes = min(nodes + child_nodes, MAX_RECIPE_EXPANSION + 1)
        depth += 1
        visiting.discard(node)
        field = where.get(node, SHIPPED)
        if depth > MAX_RECIPE_DEPTH:
            raise LevelFileError(file, field, f"{node!r} is more than {MAX_RECIPE_DEPTH} recipes deep")
        if nodes > MAX_RECIPE_EXPANSION:
            raise LevelFileError(file, field, f"{node!r} expands to more than {MAX_RECIPE_EXPANSION} ingredients "
                                              "and intermediate products in all")
        done[node] = (depth, nodes)
        return done[node]

    for product in makes:  # recursion stays shallow: a chain deeper than the limit stops at it
        visit(product)


def _check_level(level: LevelFile, book: RecipesFile, types: tuple[LocationTypeSpec, ...], file: str) -> None:
    by_name = {t.name: t for t in types}
    products = {r.product for r in book.recipes}
    for i, dish in enumerate(level.dishes):
        if dish not in products:
            raise LevelFileError(file, f"dishes.{i}", f"no recipe makes {dish!r}")
    if len(set(level.dishes)) != len(level.dishes):
        raise LevelFileError(file, "dishes", "a dish is listed twice")
    for field in ("kitchen", "kitchen_fixed"):
        kitchen = getattr(level, field)
        if kitchen is None:
            continue
        for i, loc in enumerate(kitchen):
            if loc not in by_name:
                raise LevelFileError(file, f"{field}.{i}", f"unknown location type {loc!r} (known: {', '.join(sorted(by_name))})")
        roles = [by_name[loc].role for loc in kitchen]
        if "storage" not in roles:
            raise LevelFileError(file, field, "the kitchen needs a storage")
        if "serving" not in roles:
            raise LevelFileError(file, field, "the kitchen needs a serving table")
        if level.agents:
            _check_reach(level, kitchen, file)
    for i, profile in enumerate(level.agents or ()):
        for j, product in enumerate(profile.knows or ()):
            if product not in products:
                raise LevelFileError(file, f"agents.{i}.knows.{j}", f"no recipe makes {product!r}")


def _check_reach(level: LevelFile, kitchen: list[str], file: str) -> None:
    """Every reach entry names a location type or instance (type + index) of this kitchen."""
    seen: dict[str, int] = {}
    names = set()
    for loc in kitchen:
        names.add(f"{loc}{seen.get(loc, 0)}")
        seen[loc] = seen.get(loc, 0) + 1
    for i, profile in enumerate(level.agents or ()):
        for j, entry in enumerate(profile.reach):
            if entry not in names and entry not in seen:
                raise LevelFileError(file, f"agents.{i}.reach.{j}",
                                     f"{entry!r} is no location or location type of this kitchen "
                                     f"(locations: {', '.join(sorted(names))})")


def load_level_data(name_or_path: str | Path, recipes: str | Path | None = None) -> LevelData:
    """Load a shipped level by name (``"level_3"``) or a user's level file by path."""
    types = load_location_types()
    book = load_recipes(recipes)
    candidate = str(name_or_path)
    if isinstance(name_or_path, Path) or candidate.endswith(".json") or "/" in candidate:
        text, file = _from_path(Path(candidate))
    else:
        if candidate not in level_names():
            raise LevelFileError(candidate, "", f"no such level (known: {', '.join(level_names())}; or give a path to a .json file)")
        text, file = _packaged(f"levels/{candidate}.json")
    level = _validate(LevelFile, _read_json(text, file), file)
    _check_level(level, book, types, file)
    return LevelData(level, tuple(book.recipes), tuple(book.base_ingredients), types, file)
