"""The state as the dispatcher reads it: orders, predicates, completed dishes, the clock.

Ordering is fixed (agents by index, locations in kitchen order, orders most urgent first) so
the same state always renders to the same bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cuisineworld.world import World


def _items(content: list[str]) -> str:
    return "&".join(content) if content else "None"


def render_state(world: World) -> str:
    k = world._kitchen
    names = world.level.location_names
    lines = [f"step: {world.time} of {world.max_steps}", "orders (most urgent first):"]
    if world._orders.active:
        lines.extend(f"  {o.dish} (lifetime {o.lifetime})" for o in world._orders.active)
    else:
        lines.append("  none")
    lines.append("agents:")
    for a in range(world.n_agents):
        lines.append(f"at(agent{a}, {names[k.at[a]]})")
        lines.append(f"hold(agent{a}, {k.hold[a]})")
        if k.agent_busy[a]:
            lines.append(f"occupy(agent{a})")
    lines.append("kitchen:")
    for j, name in enumerate(names):
        lines.append(f"inside({name}, {_items(k.content[j])})")
        if k.loc_busy[j]:
            lines.append(f"occupy({name})")
    done = world._orders.completed_dishes
    lines.append("completed dishes: " + (", ".join(done) if done else "none"))
    return "\n".join(lines) + "\n"
