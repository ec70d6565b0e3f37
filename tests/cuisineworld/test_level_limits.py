"""Level and recipe files are held to the limits in `mindagent/recordings/limits.py` before any work: the
size before parsing, the counts, the recipe tree's depth and expansion, and every number. Each
refusal is one `LevelFileError` naming the file, the field and the problem."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cuisineworld.level
from cuisineworld import LevelFileError, load_level
from cuisineworld.levels.limits import (
    MAX_DISHES,
    MAX_LEVEL_FILE_BYTES,
    MAX_LOCATIONS,
    MAX_RECIPE_DEPTH,
    MAX_RECIPE_EXPANSION,
    MAX_RECIPES,
)
from mindagent.cli import app


def level(**changes: Any) -> dict[str, Any]:
    return {"schema": "mindagent/level@1", "name": "mine", "dishes": ["cake"],
            "kitchen": ["storage", "servingtable", "blender"], **changes}


def refused(tmp_path: Path, body: dict[str, Any] | str, recipes: dict[str, Any] | None = None) -> LevelFileError:
    path = tmp_path / "mine.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    book = None
    if recipes is not None:
        book = tmp_path / "book.json"
        book.write_text(json.dumps(recipes))
    with pytest.raises(LevelFileError) as info:
        load_level(path, recipes=book)
    return info.value


def test_an_oversized_file_is_refused_by_its_size_before_parsing(tmp_path: Path) -> None:
    padded = json.dumps(level()) + " " * MAX_LEVEL_FILE_BYTES
    error = refused(tmp_path, padded)
    assert error.file.endswith("mine.json") and "over the limit" in error.problem


def test_a_fifo_named_as_a_level_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(LevelFileError, match="not a regular file"):
        load_level(fifo)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(("changes", "field"), [
    ({"kitchen": ["storage", "servingtable"] + ["pot"] * 100_000}, "kitchen"),
    ({"kitchen_fixed": ["storage", "servingtable"] + ["pot"] * (MAX_LOCATIONS - 1)}, "kitchen_fixed"),
    ({"dishes": ["cake"] * (MAX_DISHES + 1)}, "dishes"),
    ({"max_steps": 10**9}, "max_steps"),
    ({"name": "n" * 500}, "name"),
    ({"dishes": ["x" * 10_000]}, "dishes.0"),
])
def test_counts_and_numbers_over_the_limits_name_their_field(tmp_path: Path, changes: dict[str, Any],
                                                            field: str) -> None:
    error = refused(tmp_path, level(**changes))
    assert error.field == field, str(error)
    assert str(error).startswith(f"{tmp_path / 'mine.json'}: {field}: ")
    assert "\n" not in str(error)


def book(recipes: list[dict[str, Any]], base: list[str] | None = None) -> dict[str, Any]:
    return {"schema": "mindagent/recipes@1", "base_ingredients": base or [], "recipes": recipes}


def test_a_recipe_graph_that_doubles_at_every_level_is_refused_not_walked(tmp_path: Path) -> None:
    # r0 needs two r1, r1 two r2 ... r24 two tuna: 2**25 nodes when expanded, 25 recipes written down
    chain = [{"product": f"r{i}", "tool": "mixer", "ingredients": [f"r{i + 1}", f"r{i + 1}"]} for i in range(24)]
    chain.append({"product": "r24", "tool": "mixer", "ingredients": ["tuna", "tuna"]})
    started = time.monotonic()
    error = refused(tmp_path, level(dishes=["r0"]), book(chain))
    assert time.monotonic() - started < 2.0
    # r13 is the first over the limit (2**13 - 1 nodes), named by its place in the user's file
    assert error.field == "recipes.13" and f"'r13' expands to more than {MAX_RECIPE_EXPANSION}" in error.problem
    assert error.file.endswith("book.json")


def test_a_recipe_chain_deeper_than_the_limit_is_refused(tmp_path: Path) -> None:
    depth = MAX_RECIPE_DEPTH + 8
    chain = [{"product": f"r{i}", "tool": "pot", "ingredients": [f"r{i + 1}"]} for i in range(depth)]
    chain.append({"product": f"r{depth}", "tool": "pot", "ingredients": ["tuna"]})
    error = refused(tmp_path, level(dishes=["r0"]), book(chain))
    assert f"more than {MAX_RECIPE_DEPTH} recipes deep" in error.problem


def test_too_many_recipes_in_a_file_or_merged_are_refused(tmp_path: Path) -> None:
    many = [{"product": f"r{i}", "tool": "pot", "ingredients": ["tuna"]} for i in range(MAX_RECIPES + 1)]
    assert refused(tmp_path, level(), book(many)).field == "recipes"
    # each file under the limit, the shipped book plus the user's over it
    merged = refused(tmp_path, level(), book(many[: MAX_RECIPES - 10]))
    assert merged.field == "recipes" and "merged" in merged.file


def test_a_recipe_tree_within_the_limits_still_loads(tmp_path: Path) -> None:
    chain = [{"product": f"r{i}", "tool": "mixer", "ingredients": [f"r{i + 1}", f"r{i + 1}"]} for i in range(10)]
    chain.append({"product": "r10", "tool": "mixer", "ingredients": ["tuna", "tuna"]})
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(level(dishes=["r0"])))
    recipes = tmp_path / "book.json"
    recipes.write_text(json.dumps(book(chain)))
    loaded = load_level(path, recipes=recipes)
    assert loaded.dishes == ("r0",) and loaded.lifetime("r0", 1.0) > 0


def test_a_lifetime_over_the_number_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the shipped cook times keep every reachable lifetime far below the limit, so the limit is
    # lowered to show the check and its message
    monkeypatch.setattr(cuisineworld.level, "MAX_LEVEL_NUMBER", 2)
    error = refused(tmp_path, level(dishes=["cake"]))
    assert error.field == "dishes.0" and "would live" in error.problem


def test_the_cli_says_it_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(level(kitchen=["storage", "servingtable"] * 50_000)))
    result = CliRunner().invoke(app, ["run", "--level", str(path), "--model", "planner", "--steps", "1",
                                      "--out-dir", str(tmp_path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "kitchen" in result.output and "at most 512" in result.output


def test_json_nested_too_deeply_is_one_error(tmp_path: Path) -> None:
    error = refused(tmp_path, "[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in error.problem
