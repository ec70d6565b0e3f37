"""What the shared page needs to draw and play the Minecraft kitchen without knowing it: tiles,
the action groups with their keys, what each legal command means, and this world's words.

Reads a view or the command texts; changes nothing. `view.py` puts these into the page's views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minecraft.commands import Command, Verb, extract_commands
from minecraft.kitchen import BLOCKS, MEAT_OF_MOB, MOBS, STATIONS

#: The action buttons, in the order the page shows them; ``many``: one button per choice.
GROUPS: list[dict[str, Any]] = [
    {"id": "go", "label": "Go", "key": "g", "many": False},
    {"id": "take", "label": "Get", "key": "t", "many": True},
    {"id": "put", "label": "Put", "key": "p", "many": True},
    {"id": "craft", "label": "Craft", "key": "c", "many": True},
    {"id": "wait", "label": "Wait a step", "key": "w", "many": False},
]

WORDS: dict[str, str] = {
    "title": "Minecraft kitchen", "board": "Kitchen", "tables": "The kitchen as tables", "recipes": "Recipes",
    "director": "head chef", "director_example": "e.g. Steve, make cooked beef",
    "director_help": "Whoever dispatches follows: make X, only X, no X, Steve do X, stop, go on (X: a dish "
                     "of the orders, e.g. cooked_beef); every line gets a reply.",
    "completed": "served", "failed": "expired", "open": "open", "busy": "cooking",
    "completed_line": "Served {}!", "failed_line": "{} expired.",
    "completed_one": "dish served", "completed_many": "dishes served",
    "made_one": "item made", "made_many": "items made",
}


def _words(name: str) -> str:
    return name.replace("_", " ")


def page_static() -> dict[str, Any]:
    return {"words": WORDS, "groups": GROUPS, "offers": {}}


def join_words(host: str, port: int, version: str) -> str:
    return (f"Join this world with a Minecraft client {version} (offline mode) at {host}:{port}; "
            "your chat lines reach the dispatcher as head-chef words.")


def tiles(places: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board's tiles from the view's places: the furnace's ring is its cook progress."""
    out = []
    for place in places:
        cooking = bool(place["in_use"])
        progress = float(place.get("progress") or 0.0)
        out.append({"id": place["name"], "label": _words(place["name"]), "kind": place["type"],
                    "holds": list(place["content"]), "stock": False,
                    "busy": {"share": 1 - progress, "short": f"{round(progress * 100)}%",
                             "text": f"{round(progress * 100)}% cooked",
                             "long": f"{round(progress * 100)}%"} if cooking else None,
                    "users": None, "goal": place["type"] == "chest"})
    return out


def page_actions(agents: Sequence[str], agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
    """What each legal command of `agent` means on the page (see `mindagent.server.views`)."""
    out = []
    for text in legal:
        found = extract_commands(text, list(agents))
        if len(found) == 1:
            out.append(_describe(text, found[0]))
    return out


def _place(name: str) -> str:
    """A place as people say it: ``the furnace``, ``the chickens``, ``the coal ore``, a person's name."""
    if name in STATIONS or name in BLOCKS:
        return f"the {_words(name)}"
    if name in MOBS:
        return f"the {_words(name)}s" if not name.endswith("p") else f"the {_words(name)}"  # sheep stay sheep
    return name


def _describe(text: str, c: Command) -> dict[str, Any]:
    """Plain words for one command: what the bot does, never the game's verb or ids."""
    arg = _words(c.arg) if c.arg is not None else ""
    base: dict[str, Any] = {"command": text}
    if c.verb is Verb.NOOP:
        return {**base, "label": "wait a step", "group": "wait"}
    if c.verb is Verb.GOTO:
        return {**base, "label": f"go to {_place(c.arg or '')}", "group": "go", "tile": c.arg}
    if c.verb is Verb.KILL_MOB:
        meat = _words(MEAT_OF_MOB.get(c.arg or "", c.arg or ""))
        return {**base, "label": f"hunt a {arg} for its {meat}", "short": f"Hunt a {arg}", "group": "take",
                "tile": c.arg, "item": c.arg}
    if c.verb is Verb.MINE_BLOCK:
        return {**base, "label": f"mine {arg}", "short": f"Mine {arg}", "group": "take", "tile": c.arg, "item": c.arg}
    if c.verb is Verb.TAKE_OUT_FURNACE:
        return {**base, "label": "take what is cooked out of the furnace", "short": "Take out", "group": "take",
                "tile": "furnace", "item": "output"}
    if c.verb is Verb.PUT_FUEL_FURNACE:
        return {**base, "label": f"burn {arg} in the furnace as fuel", "short": f"Fuel: {arg}", "group": "put",
                "tile": "furnace", "item": f"fuel:{c.arg}"}
    if c.verb is Verb.PUT_ITEM_FURNACE:
        return {**base, "label": f"put {arg} in the furnace to cook", "short": f"Cook {arg}", "group": "put",
                "tile": "furnace", "item": c.arg}
    if c.verb is Verb.PUT_IN_CHEST:
        return {**base, "label": f"put {arg} in the chest", "short": f"Chest: {arg}", "group": "put", "tile": "chest",
                "item": c.arg}
    return {**base, "label": f"craft {arg} at the crafting table", "short": f"Craft {arg}", "group": "craft",
            "tile": "crafting_table", "item": c.arg}


__all__ = ["GROUPS", "WORDS", "join_words", "page_actions", "page_static", "tiles"]
