"""``python -m overcooked_game.bc``: the proxy's commands before the main CLI exposes them.

- ``fetch``: fill the trials cache (what ``scripts/setup.sh --dev`` runs; a no-op when cached);
- ``train-bc``: the training command of `overcooked_game.bc.command`.
"""

from __future__ import annotations

import typer
from rich.console import Console

from overcooked_game.bc.command import register
from overcooked_game.bc.errors import BCError

app = typer.Typer(name="overcooked_game.bc", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
register(app)


@app.command("fetch")
def fetch() -> None:
    """Download the human-human trials into the cache unless they are there (checksums checked)."""
    from overcooked_game.bc.data import ensure_trials

    try:
        paths = ensure_trials()
    except BCError as exc:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    Console(highlight=False, soft_wrap=True).print(f"human trials ready in {paths['train'].parent}")


if __name__ == "__main__":
    app()
