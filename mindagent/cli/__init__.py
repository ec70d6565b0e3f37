"""The `mindagent` command line. Each sub-command lives in its own module."""

from __future__ import annotations

import importlib
import logging

import typer

from mindagent.core import registry as domains
from mindagent.cli import ablate, compare, evaluate, levels, metrics, play, run, serve

app = typer.Typer(
    name="mindagent",
    help="LLM multi-agent dispatch in games: " + ", ".join(domains.NAMES) + ".",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(levels.app, name="levels")
app.command("play")(play.play)
for _module in (run, evaluate, compare, serve, ablate, metrics):
    _module.register(app)
for _name in domains.COMMAND_MODULES:
    importlib.import_module(_name).register(app)


@app.callback()
def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug details to stderr.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
