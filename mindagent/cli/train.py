"""`mindagent train --domain NAME ...`: the game's own trainer, with the rest of the arguments.

Training is game-specific (a kitchen trains masked PPO on its RL env, Overcooked a
behaviour-cloning proxy from human trials), so the core only routes: the game's `DomainPlugin`
names its trainer, a Typer command function, and this command runs it as if it were its own.
``mindagent train --domain NAME --help`` shows that trainer's options.
"""

from __future__ import annotations

import importlib

import typer

from mindagent.cli.common import fail
from mindagent.core import registry
from mindagent.core.domain import SpecError

_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def train(ctx: typer.Context,
          domain: str | None = typer.Option(None, "--domain", help="the game whose trainer runs (default: the first)")) -> None:
    """Train a policy with the game's own trainer (`--help` after `--domain` lists its options)."""
    try:
        plugin = registry.plugin(domain)
    except SpecError as exc:
        fail(str(exc))
    if plugin.train is None:
        fail(f"{plugin.name} has no trainer")
    module, _, name = plugin.train.partition(":")
    try:
        command = importlib.import_module(module).__dict__[name]
    except (ImportError, KeyError) as exc:
        fail(f"{plugin.name}: cannot load its trainer {plugin.train} ({exc})")
    trainer = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    trainer.command()(command)
    trainer(args=list(ctx.args), prog_name=f"mindagent train --domain {plugin.name}")


def register(app: typer.Typer) -> None:
    app.command("train", context_settings=_PASS_THROUGH, add_help_option=False)(train)
