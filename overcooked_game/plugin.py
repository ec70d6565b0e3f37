"""Overcooked-AI as the registry finds it: its name and where its `Domain` lives.

Light on purpose: reading it imports neither the `overcooked` package nor our engine, so the
command line lists the game even where the `overcooked` extra is not installed (using it then
says which package is missing).
"""

from mindagent.core.plugin import DomainPlugin

PLUGIN = DomainPlugin(
    name="overcooked",
    title="Overcooked-AI",
    domain="overcooked_game.domain:DOMAIN",
    summary="two chefs cook onion soup on the Overcooked-AI layouts (LLM-Coordination's benchmark)",
    train="overcooked_game.bc.command:train",
)
