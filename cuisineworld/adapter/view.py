"""What the page shows of a CuisineWorld kitchen, as JSON-able dicts (the paper's interface, G.2).

Everything here reads the session; nothing changes it. The room adds its own parts (who plays
which agent, the last step's actions, the score) around `kitchen_view`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession


def kitchen_view(session: CuisineSession) -> dict[str, Any]:
    """Orders with remaining lifetime, agents (location, held item, busy) and locations (content, in use).

    Example: ``kitchen_view(session)["agents"][0]`` → ``{"agent": 0, "name": "agent0", "location":
    "storage0", "holding": None, "busy": 0}``.
    """
    world = session.world
    return {
        "orders": [{"id": o.id, "dish": o.dish, "lifetime": o.lifetime} for o in world.orders],
        "agents": [{"agent": a, "name": f"agent{a}", "location": world.agent_location(a),
                    "holding": world.agent_holding(a), "busy": world.agent_busy(a)} for a in range(world.n_agents)],
        "locations": [{"name": loc.name, "type": loc.type, "content": world.location_content(loc.name),
                       "busy": world.location_busy(loc.name), "in_use": world.location_busy(loc.name) > 0,
                       "gettable": world.location_gettable(loc.name)} for loc in world.level.locations],
    }


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


def level_view(session: CuisineSession) -> dict[str, Any]:
    """The static part, sent once on joining: level, dishes, recipes and kitchen layout."""
    level = session.level
    products = {r.product for r in level.recipes}
    needed = sorted({i for r in level.recipes for i in r.ingredients if i not in products})
    return {
        "level": level.name,
        "dishes": list(level.dishes),
        "recipes": [{"product": r.product, "tool": r.tool, "ingredients": list(r.ingredients)} for r in level.recipes],
        "base_ingredients": list(level.base_ingredients),
        "needed_ingredients": needed,
        "kitchen": [{"name": loc.name, "type": loc.type, "role": loc.role} for loc in level.locations],
        "n_agents": session.n_agents,
        **_team(level, session.n_agents),
        "max_steps": session.max_steps,
        "display": display_names(level),
        "verbs": {"goto": "go", "get": "take", "put": "put", "activate": "start", "noop": "wait"},
    }


def _team(level: Any, n_agents: int) -> dict[str, Any]:
    """On a level whose agents differ: the locations each agent reaches (kitchen order) and the
    products whose recipes it knows (None: all). Nothing on a level where everyone reaches everything."""
    profiles = level.team_profiles(n_agents)
    if profiles is None:
        return {}
    return {
        "reach": [[n for n in level.location_names if n in p.reach] for p in profiles],
        "knows": [None if p.knows is None else [r.product for r in level.known_recipes(p.knows)] for p in profiles],
    }


__all__ = ["kitchen_view", "level_view"]
