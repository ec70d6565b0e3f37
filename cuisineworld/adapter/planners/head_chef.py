"""The planner's side of the head chef's words: the core reads them (`mindagent.core.directions`),
the planner follows them.

The language (``make X``, ``only X``, ``no X``, ``agentK do X``, ``stop``, ``go on``; X a dish of
the level) and its replies are the core's, shared by every dispatcher; this module only adapts
the call to what the scheduler has at hand (the level's dishes and the team size). Example::

    orders = read_orders(["only tuna sushi", "agent1 do salmonSushi"], ("salmonSushi", "tunaSushi"), 2)
    orders.allowed            # frozenset({'tunaSushi'})
    orders.replies            # ['agent1 cannot work on salmonSushi: another instruction rules salmonSushi out.']
"""

from __future__ import annotations

from mindagent.core.directions import LANGUAGE, Directions, read_directions

#: What the scheduler reads of the standing instructions (the core's `Directions`).
ChefOrders = Directions


def read_orders(lines: list[str], dishes: tuple[str, ...], n_agents: int) -> ChefOrders:
    """Standing instructions, oldest first, for a kitchen serving `dishes` with `n_agents` agents."""
    return read_directions(lines, {d: frozenset() for d in dishes}, [f"agent{a}" for a in range(n_agents)])


__all__ = ["LANGUAGE", "ChefOrders", "read_orders"]
