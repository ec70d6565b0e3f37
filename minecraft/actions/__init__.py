"""The Minecraft action library: a catalogue of actions and queries (what each does, what world
event confirms it, its timeout), a parser for ``verb(Agent, args...)`` built from it, prompt text
rendered from it, and `perform`, which runs a parsed action through the bridge's `act` request.

Example::

    call = parse_action("placeBlock(Alex, oak_planks, 3, 5, 2)", ["Alex", "Steve"])
    result = await perform(bridge, call)        # {"placed": "oak_planks", "position": [3, 5, 2]}
    prompt_text = render(["placeBlock", "digBlock", "inventory"])
"""

from minecraft.actions.catalogue import CATALOGUE, CATALOGUE_BY_NAME
from minecraft.actions.feedback import failure_line, success_line
from minecraft.actions.parse import ActionCall, ActionSyntaxError, extract_actions, parse_action
from minecraft.actions.prompt import describe, render, select
from minecraft.actions.run import perform
from minecraft.actions.spec import ActionSpec, ArgKind, Param

__all__ = [
    "CATALOGUE", "CATALOGUE_BY_NAME", "ActionCall", "ActionSpec", "ActionSyntaxError", "ArgKind", "Param",
    "describe", "extract_actions", "failure_line", "parse_action", "perform", "render", "select", "success_line",
]
