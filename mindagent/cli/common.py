"""Shared CLI pieces: loading a level with one clear error line instead of a traceback."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from cuisineworld import Level, LevelFileError, load_level

err = Console(stderr=True, soft_wrap=True, highlight=False)


def level_or_exit(name: str, rules: str = "reference", recipes: Path | None = None) -> Level:
    try:
        return load_level(name, rules=rules, recipes=recipes)
    except LevelFileError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
