"""One English line per command outcome: the only place Minecraft results become words."""

from __future__ import annotations

from typing import Any

from minecraft.results import ActionDone, Outcome

REASONS: dict[str, str] = {
    "syntax": "that is not a valid command",
    "unknown_agent": "there is no such agent",
    "duplicate_agent": "it already has a command this step",
    "unknown_target": "there is no such thing in this kitchen",
    "not_found": "there is none nearby right now",
    "missing_item": "it does not have that item",
    "not_fuel": "that item does not burn",
    "not_cookable": "the furnace cannot cook that item",
    "slot_busy": "that furnace slot holds a different item",
    "slot_full": "there is no room for it",
    "empty_output": "the furnace has nothing cooked yet",
    "not_craftable": "the crafting table has no recipe for that",
    "missing_ingredients": "it lacks ingredients",
    "too_far": "it is not at the crafting table",
    "craft_failed": "the crafting table refused",
    "path_failed": "it could not find a way there",
    "container_failed": "the container did not open",
    "dig_failed": "the block could not be mined",
    "kill_failed": "the animal did not die",
    "timeout": "it ran out of time",
    "cancelled": "the action was cancelled",
    "superseded": "a newer command replaced it",
    "died": "it died and respawned",
    "disconnected": "it left the server",
    "rejoining": "it was disconnected and is rejoining the server",
    "not_connected": "it is not connected",
    "bridge": "the connection to the game failed",
}

# codes whose detail tells the dispatcher something it can act on (the bad name, the bridge's words)
_SHOW_DETAIL = frozenset({"syntax", "unknown_target", "not_craftable", "missing_ingredients", "craft_failed",
                           "bridge", "timeout", "path_failed", "dig_failed"})


def _items(counts: dict[str, Any]) -> str:
    parts = [f"{n} {name}" for name, n in sorted(counts.items())]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _done(outcome: ActionDone) -> str:
    a, r = outcome.agent, outcome.result
    match outcome.verb:
        case "goto":
            return f"{a} walked to the {r.get('target', 'place')}."
        case "killMob":
            return f"{a} killed a {r.get('killed', 'mob')} and picked up {_items(r.get('collected', {}))}."
        case "mineBlock":
            return f"{a} mined {r.get('mined', 'a block')} and picked up {_items(r.get('collected', {}))}."
        case "putFuelFurnace":
            return f"{a} put {r.get('count', 0)} {r.get('put', 'fuel')} into the furnace as fuel."
        case "putItemFurnace":
            return f"{a} put {r.get('count', 0)} {r.get('put', 'items')} into the furnace to cook."
        case "takeOutFurnace":
            return f"{a} took {r.get('count', 0)} {r.get('took', 'items')} out of the furnace."
        case "putInChest":
            return f"{a} put {r.get('count', 0)} {r.get('put', 'items')} into the chest."
        case "craft":
            return f"{a} crafted {r.get('count', 0)} {r.get('crafted', 'items')} from {_items(r.get('used', {}))}."
        case "noop":
            return f"{a} waited."
    return f"{a} did {outcome.command}."


def line(outcome: Outcome) -> str:
    """E.g. ``Alex killed a cow and picked up 1 beef and 1 leather.`` or
    ``Steve could not takeOutFurnace(Steve): the furnace has nothing cooked yet.``"""
    if isinstance(outcome, ActionDone):
        return _done(outcome)
    who = outcome.agent or "The dispatcher"
    reason = REASONS.get(outcome.code, outcome.code.replace("_", " "))
    what = outcome.command or "do that"
    tail = f" ({outcome.detail})" if outcome.detail and outcome.code in _SHOW_DETAIL else ""
    return f"{who} could not {what}: {reason}{tail}."
