"""The kitchen's answers for the head chef's words (`mindagent.core.directions`): the dishes a
head chef may name, and which dish a command makes now, so any dispatcher's commands can be held
to ``no X``, ``only X`` and ``agentK do X``.

A command makes a dish when it activates a tool whose content cooks into that dish, or when it
puts that dish on a serving table; fetching and chopping toward it are not counted (the same
slice may end in several dishes). Example: with salmon sashimi and cooked rice in ``mixer0``,
``command_makes(world, "activate_agent0_mixer0")`` is ``"salmonSushi"``.
"""

from __future__ import annotations

from cuisineworld import Level, Reason, World


def direction_names(level: Level) -> dict[str, frozenset[str]]:
    """Each dish of the level with the other dishes of the level it is made of (any depth)."""
    makes = {r.product: r.ingredients for r in level.recipes}
    dishes = set(level.dishes)
    out: dict[str, frozenset[str]] = {}
    for dish in level.dishes:
        parts: set[str] = set()
        queue = list(makes.get(dish, ()))
        while queue:
            item = queue.pop()
            if item in parts:
                continue
            parts.add(item)
            queue.extend(makes.get(item, ()))
        out[dish] = frozenset(parts & dishes)
    return out


def command_makes(world: World, command: str) -> str | None:
    """The dish `command` would cook or serve now, or None."""
    parsed = world.parse(command.strip())
    if isinstance(parsed, Reason) or parsed.location is None:
        return None
    level = world.level
    kind = next((loc.type for loc in level.locations if loc.name == parsed.location), None)
    if parsed.verb == "activate" and kind is not None:
        made = level.product_of(kind, world.location_content(parsed.location))
    elif parsed.verb == "put" and kind == "servingtable":
        made = world.agent_holding(parsed.agent)
    else:
        return None
    return made if made in level.dishes else None


__all__ = ["command_makes", "direction_names"]
