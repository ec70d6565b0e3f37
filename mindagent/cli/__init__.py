"""The `mindagent` command line. Each sub-command lives in its own module."""

from __future__ import annotations

import logging

import typer

from mindagent.cli import levels as _levels
from mindagent.cli import play as _play

app = typer.Typer(
    name="mindagent",
    help="LLM multi-agent dispatch in games: CuisineWorld and Minecraft.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(_levels.app, name="levels")
app.command("play")(_play.play)

for _module in ("run", "evaluate", "serve", "demo"):
    try:
        __import__(f"mindagent.cli.{_module}")
    except ModuleNotFoundError as exc:  # a sub-command whose module is not part of this build
        if exc.name != f"mindagent.cli.{_module}":
            raise
    else:
        getattr(__import__(f"mindagent.cli.{_module}", fromlist=["register"]), "register")(app)


@app.callback()
def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug details to stderr.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
