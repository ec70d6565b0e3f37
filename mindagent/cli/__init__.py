"""The `mindagent` command line. Each sub-command lives in its own module.

The Typer app is built on first use (``from mindagent.cli import app`` or the `main` entry point),
not at import: building it reads the installed games' plugin descriptors for their options and
commands, and importing the CLI package should cost nothing and load no game.
"""

from __future__ import annotations

import importlib
import logging
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer


def _verbose_option(verbose: bool) -> None:
    from mindagent.llm.redact import install_log_redaction

    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()  # a registered secret (key, URL password, admin token) never reaches stderr


@cache
def build_app() -> typer.Typer:
    """The whole command tree: the core's commands, then each installed game's own."""
    import typer

    from mindagent.cli import ablate, compare, distill, domains_command, evaluate, metrics, run, serve, study, train
    from mindagent.core import registry

    app = typer.Typer(
        name="mindagent",
        help="LLM multi-agent dispatch in games: " + ", ".join(registry.names()) + ".",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    for module in (run, evaluate, compare, serve, ablate, metrics, train, distill, domains_command, study):
        module.register(app)
    for plugin in registry.plugins():
        for name in plugin.commands:
            try:
                importlib.import_module(name).register(app)
            except (ImportError, AttributeError) as exc:
                logging.getLogger(__name__).warning("%s: cannot add the commands of %s (%s)", plugin.name, name, exc)

    @app.callback()
    def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log debug details to stderr.")) -> None:
        _verbose_option(verbose)

    return app


def main() -> None:
    """The `mindagent` console script."""
    build_app()()


def __getattr__(name: str) -> object:
    if name == "app":
        return build_app()
    raise AttributeError(f"module 'mindagent.cli' has no attribute {name!r}")


__all__ = ["build_app", "main"]
