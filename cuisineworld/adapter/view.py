"""What the page shows of a CuisineWorld kitchen, as JSON-able dicts (the paper's interface, G.2).

Everything here reads the session; nothing changes it. The room adds its own parts (who plays
which agent, the last step's actions, the score) around `kitchen_view`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cuisineworld.adapter.page import HOWTO, display_names, page_static, tiles

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession


def kitchen_view(session: CuisineSession) -> dict[str, Any]:
    """Orders with remaining lifetime, agents (location, held item, busy), locations (content, in
    use), the board's tiles (`page.tiles`) and ``needs``: the planner's lines for a person who
    holds the block (`planners.people.people_needs`; empty when nothing is asked).

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
        "tiles": tiles(session),
        # what the planner needs a person to do (they hold the block on a split kitchen), in words
        "needs": list(session.team_needs),
    }


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
        "page": page_static(session),
        "howto": HOWTO,
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
