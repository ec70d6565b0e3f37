"""Loads and cross-checks the data files; every problem becomes one `LevelFileError`.

The error names the file, the field and what is wrong, so the CLI can print one line and stop
before anything starts (a half-loaded kitchen is worse than none).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from levels.schema import LevelFile, LocationTypesFile, LocationTypeSpec, RecipesFile, RecipeSpec

_DATA = "data"
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


def _validate(model: type[M], raw: object, file: str) -> M:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise LevelFileError(file, field, first["msg"]) from None


def _packaged(relative: str) -> tuple[str, str]:
    res = resources.files("levels").joinpath(_DATA, relative)
    return res.read_text(encoding="utf-8"), f"levels/{_DATA}/{relative}"


def _from_path(path: Path) -> tuple[str, str]:
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except OSError as exc:
        raise LevelFileError(str(path), "", f"cannot read file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise LevelFileError(str(path), "", "not UTF-8 text") from None


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
    merged = RecipesFile.model_validate(
        {"schema": "mindagent/recipes@1", "base_ingredients": base, "recipes": [r.model_dump() for r in by_product.values()]}
    )
    _check_recipes(merged, load_location_types(), name)
    return merged


def level_names() -> list[str]:
    """Shipped level names in numeric order (level_0 .. level_12)."""
    folder = resources.files("levels").joinpath(_DATA, "levels")
    names = [p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json")]
    return sorted(names, key=lambda n: (len(n), n))


def _check_recipes(book: RecipesFile, types: tuple[LocationTypeSpec, ...], file: str) -> None:
    type_names = {t.name for t in types}
    base = set(book.base_ingredients)
    products = {r.product for r in book.recipes}
    for i, r in enumerate(book.recipes):
        if r.tool not in type_names:
            raise LevelFileError(file, f"recipes.{i}.tool", f"unknown location type {r.tool!r}")
        if r.product in base:
            raise LevelFileError(file, f"recipes.{i}.product", f"{r.product!r} is a base ingredient")
        for j, ing in enumerate(r.ingredients):
            if ing not in base and ing not in products:
                raise LevelFileError(
                    file, f"recipes.{i}.ingredients.{j}", f"{ing!r} is neither a base ingredient nor made by a recipe"
                )
    _check_acyclic(book, file)


def _check_acyclic(book: RecipesFile, file: str) -> None:
    makes = {r.product: r.ingredients for r in book.recipes}
    state: dict[str, int] = {}

    def visit(node: str, depth: int) -> None:
        if state.get(node) == 2 or node not in makes:
            return
        if state.get(node) == 1 or depth > 200:
            raise LevelFileError(file, "recipes", f"recipe cycle through {node!r}")
        state[node] = 1
        for child in makes[node]:
            visit(child, depth + 1)
        state[node] = 2

    for product in makes:
        visit(product, 0)


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
