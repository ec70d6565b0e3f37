"""What the page shows of a CuisineWorld kitchen, as JSON-able dicts (the paper's interface, G.2).

Everything here reads the session; nothing changes it. The room adds its own parts (who plays
which agent, the last step's actions, the score) around `kitchen_view`.
"""

from __future__ import annotations

from typing import Any

from cuisineworld import Command, Reason
from feedback import describe
from mindagent.cuisine_session import CuisineSession


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
        "max_steps": session.max_steps,
    }


def read_command(session: CuisineSession, text: str) -> Command | str:
    """The command a person typed or picked, or the sentence saying why it cannot be read."""
    parsed = session.world.parse(text.strip())
    if isinstance(parsed, Reason):
        return describe(parsed)
    return parsed


def idle_command(agent: int) -> str:
    """What an agent without a command does this step."""
    return f"noop_agent{agent}"


def agent_of(command: str) -> int | None:
    """The agent a well-formed command string names (``get_agent1_tuna_storage0`` → 1)."""
    parts = command.split("_")
    if len(parts) >= 2 and parts[1].startswith("agent") and parts[1][5:].isdigit():
        return int(parts[1][5:])
    return None


def collaboration_score(completed: int, failed: int, active: int) -> float | None:
    """Completed over all orders so far (completed + failed + still active); None before any order."""
    total = completed + failed + active
    return round(completed / total, 4) if total else None


__all__ = ["agent_of", "collaboration_score", "idle_command", "kitchen_view", "level_view", "read_command"]
