"""What the shared page needs to draw and play a CuisineWorld kitchen without knowing it: the
tiles, the action buttons (groups with their keys), what each legal command means, and the
kitchen's words for people (the page's own defaults name no game).

Reads the session; changes nothing. `view.py` puts these into the view and the static view.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cuisineworld.commands import Command, parse_command

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession

#: Plain words for location types (the page says "serving table", never "servingtable0").
TYPE_WORDS = {"storage": "storage", "servingtable": "serving table", "chopboard": "chopping board", "pot": "pot",
              "pan": "pan", "mixer": "mixer", "blender": "blender", "steamer": "steamer", "oven": "oven",
              "counter": "counter"}
def words(name: str) -> str:
    """``tunaSushi`` → ``tuna sushi``; ``BurritodeAsada`` → ``burrito de asada``."""
    if name.startswith("Burritode"):
        name = "BurritoDe" + name[len("Burritode"):]
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def display_names(level: Any) -> dict[str, str]:
    """Readable names for every location and item of a level (the page's plain words)."""
    out: dict[str, str] = {}
    by_type: dict[str, list[str]] = {}
    for loc in level.locations:
        by_type.setdefault(loc.type, []).append(loc.name)
    for kind, names in by_type.items():
        word = TYPE_WORDS.get(kind, words(kind))
        for i, name in enumerate(names):
            out[name] = word if len(names) == 1 else f"{word} {i + 1}"
    for item in list(level.base_ingredients) + [r.product for r in level.recipes]:
        out[item] = words(item)
    return out


#: The action buttons, in the order the page shows them; ``many``: one button per item.
GROUPS: list[dict[str, Any]] = [
    {"id": "go", "label": "Go", "key": "g", "many": False},
    {"id": "take", "label": "Take", "key": "t", "many": True},
    {"id": "put", "label": "Put", "key": "p", "many": False},
    {"id": "start", "label": "Start", "key": "s", "many": False},
    {"id": "wait", "label": "Wait a step", "key": "w", "many": False},
]
_GROUP_OF = {"goto": "go", "get": "take", "put": "put", "activate": "start", "noop": "wait"}

#: A refused command in a person's words, by reason code: short enough for a tile, said to "you"
#: (the sentences in `cuisineworld.feedback` are for the dispatcher and name agents and commands).
REASON_WORDS: dict[str, str] = {
    "agent_busy": "You are busy at a tool this step",
    "not_at_location": "Go there first",
    "cannot_reach": "You cannot reach this place",
    "not_gettable": "Nothing to take here now",
    "hands_full": "Your hands are full: put it down first",
    "hands_empty": "You hold nothing to put here",
    "location_busy": "Still cooking here",
    "location_empty": "Empty now: someone took it first",
    "location_full": "Full: no room for it",
    "not_base_ingredient": "Storage has no such ingredient",
    "not_a_level_dish": "No order asks for that dish",
    "no_open_order": "No open order wants that",
    "would_be_waste": "That would only make waste",
    "duplicate_item": "One of those is already here",
    "no_recipe": "Nothing can be cooked from what is here",
    "joint_rejected": "The whole step was refused",
    "malformed": "Not a command the kitchen reads",
    "unknown_verb": "Not a command the kitchen reads",
    "unknown_agent": "Not a command the kitchen reads",
    "unknown_location": "No such place in this kitchen",
    "duplicate_agent": "Only one command per step",
}

HOWTO = [
    "Orders come in; serve each dish before its bar runs out.",
    "Click a place (or press its number) to act there: go there first, then take an item, put what you hold "
    "into a tool, and start the tool.",
    "You hold one item at a time. A tool cooks for a few steps (the ring shows how many are left); then take "
    "the result.",
    "Put a finished dish on the serving table. Your command runs at the next step; wait does nothing for a step.",
    "The team score is served orders out of all orders so far.",
]


def page_words(session: CuisineSession) -> dict[str, Any]:
    """The kitchen's words on the shared page (title, the director, what a completed order is)."""
    names = session.agent_names
    dishes = list(session.level.dishes)
    example = f"e.g. {names[1 if len(names) > 1 else 0]}, make {dishes[0]}" if dishes else "e.g. agent1, make the tuna sushi"
    return {
        "title": "kitchen", "board": "Kitchen", "tables": "The kitchen as tables", "recipes": "Recipes",
        "director": "head chef", "director_example": example,
        "director_help": "Say make X, only X, no X, agentK do X, stop or go on: every dispatcher is held "
                         "to these, and each line gets a reply.",
        "completed": "served", "failed": "expired", "open": "open", "busy": "cooking",
        "completed_line": "Served {}!", "failed_line": "{} expired.",
        "completed_one": "dish served", "completed_many": "dishes served",
        "made_one": "item made", "made_many": "items made",
        "practice_goal": "Serve the order on the ticket: take its ingredients to a tool, start it, and bring "
                         "the dish to the serving table.",
        "practice_done": "Tutorial complete: you served a dish! Leave with “Rooms”, or keep practising.",
    }


def page_static(session: CuisineSession) -> dict[str, Any]:
    """The static view's ``page``: words, action groups, and what storage always offers."""
    level = session.level
    products = {r.product for r in level.recipes}
    needed = sorted({i for r in level.recipes for i in r.ingredients if i not in products})
    storage = [loc.name for loc in level.locations if loc.type == "storage"]
    return {"words": page_words(session), "groups": GROUPS, "offers": {name: needed for name in storage},
            "reasons": REASON_WORDS}


def tiles(session: CuisineSession) -> list[dict[str, Any]]:
    """The board's tiles now: label, what each holds, its cooking ring, who may use it."""
    world = session.world
    shown = display_names(world.level)
    profiles = world.level.team_profiles(world.n_agents)
    out: list[dict[str, Any]] = []
    for loc in world.level.locations:
        busy = world.location_busy(loc.name)
        stock = loc.type == "storage"
        out.append({
            "id": loc.name, "label": shown.get(loc.name, loc.name), "kind": loc.type,
            "holds": ["every ingredient"] if stock else [shown.get(i, words(i)) for i in world.location_content(loc.name)],
            "stock": stock,
            "busy": {"share": min(1.0, busy / 5), "short": str(busy), "text": f"{busy} step(s)",
                     "long": f"{busy} steps left"} if busy > 0 else None,
            "users": None if profiles is None else [a for a, p in enumerate(profiles) if loc.name in p.reach],
            "goal": loc.type == "servingtable",
        })
    return out


def page_actions(session: CuisineSession, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
    """What each legal command of `agent` means on the page (see `mindagent.server.views`)."""
    world = session.world
    shown = display_names(world.level)
    held = world.agent_holding(agent)
    parsed = [(text, parse_command(text, world.n_agents, world.level.location_names)) for text in legal]
    commands = [(text, c) for text, c in parsed if isinstance(c, Command) and c.verb in _GROUP_OF]
    # a get from a tool is legal in two spellings (with and without the item): one take per thing,
    # the short spelling is listed only among the commands as text
    named = {c.location for _, c in commands if c.verb == "get" and c.item is not None}
    out: list[dict[str, Any]] = []
    for text, command in commands:
        action = _describe(text, command, shown, held)
        if command.verb == "get" and command.item is None and command.location in named:
            action = {**action, "group": "other", "tile": None}
        out.append(action)
    return out


def _describe(text: str, c: Command, shown: dict[str, str], held: str | None) -> dict[str, Any]:
    place = shown.get(c.location, c.location) if c.location is not None else None
    item = shown.get(c.item, words(c.item)) if c.item is not None else None
    group = _GROUP_OF[c.verb]
    if group == "wait":
        return {"command": text, "label": "wait a step", "group": group}
    if group == "go":
        return {"command": text, "label": f"go to {place}", "group": group, "tile": c.location}
    if group == "take":
        label = f"take {item} from {place}" if item else f"take from {place}"
        return {"command": text, "label": label, "short": f"Take {item}" if item else f"Take from {place}",
                "group": group, "tile": c.location, "item": c.item}
    if group == "put":
        what = shown.get(held, words(held)) if held else None
        return {"command": text, "label": f"put {what} into {place}" if what else f"put into {place}",
                "group": group, "tile": c.location}
    return {"command": text, "label": f"start {place}", "group": group, "tile": c.location}


__all__ = ["GROUPS", "HOWTO", "REASON_WORDS", "TYPE_WORDS", "display_names", "words", "page_actions", "page_static", "page_words", "tiles"]
