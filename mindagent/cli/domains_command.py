"""`mindagent domains`: which games are installed, where they come from, and their own options."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from mindagent.core import registry

out = Console(highlight=False, soft_wrap=True)


def domains_list() -> None:
    """List the installed games (entry points in the `mindagent.domains` group) and their options."""
    table = Table(title="Installed domains")
    for column in ("name", "title", "options", "commands", "what it is"):
        table.add_column(column)
    for plugin in registry.plugins():
        commands = [m.rsplit(".", 1)[-1] for m in plugin.commands] + (["train"] if plugin.train else [])
        table.add_row(plugin.name, plugin.title, " ".join(o.flag for o in plugin.options) or "-",
                      ", ".join(commands) or "-", plugin.summary)
    out.print(table)
    out.print(f"default: {registry.default_domain()}")


def register(app: typer.Typer) -> None:
    app.command("domains")(domains_list)
