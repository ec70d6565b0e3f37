"""Task-graph mode for CuisineWorld: open orders as a DAG of subtasks from their recipe trees.

Every product in an order's recipe tree is one subtask ("make cookedRice with rice at a pot"),
depending on the subtasks of the products among its ingredients; base ingredients are fetched as
part of the subtask that needs them. A subtask is done when its product exists somewhere in the
kitchen (on a tool, a table or in a hand), matched to orders earliest deadline first so two
orders of one dish do not both count the same sushi.

The rule executor is the scheduler, run per agent with that agent's dishes restricted to its
subtask's dish (the planner's ``agentK do X`` path, `planners.head_chef`): within the dish it
picks the next command itself, so it may work on another node of the same order when that one is
more urgent. Agents without a subtask do the scheduler's spare work.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cuisineworld.adapter.planners.head_chef import ChefOrders
from cuisineworld.adapter.planners.people import people_first
from cuisineworld.adapter.planners.scheduler import CuisinePlanner
from mindagent.dispatch.taskgraph import Subtask, TaskGraph

if TYPE_CHECKING:
    from cuisineworld import World
    from mindagent.core.domain import DomainSession


def kitchen_items(world: World) -> Counter[str]:
    """Every item in the kitchen: on locations and in hands."""
    items: Counter[str] = Counter()
    for name in world.level.location_names:
        items.update(world.location_content(name))
    for agent in range(world.n_agents):
        held = world.agent_holding(agent)
        if held:
            items[held] += 1
    return items


def task_graph(world: World) -> TaskGraph:
    """The open orders' recipe trees as subtasks, with those already made marked done."""
    recipes = {r.product: r for r in world.level.recipes}
    available = kitchen_items(world)
    subtasks: list[Subtask] = []
    done: set[str] = set()
    orders = sorted(world.orders, key=lambda o: (o.lifetime, o.id))

    def visit(product: str, order_id: int, dish: str, deadline: int, made: bool, seen: Counter[str]) -> str:
        seen[product] += 1
        sid = f"o{order_id}.{product}" + (f".{seen[product]}" if seen[product] > 1 else "")
        recipe = recipes[product]
        have = not made and available[product] > 0
        if have:
            available[product] -= 1
        deps = tuple(visit(i, order_id, dish, deadline, made or have, seen) for i in recipe.ingredients if i in recipes)
        what = f"make {product} from {' + '.join(recipe.ingredients)} at a {recipe.tool}"
        label = what + (" and serve it" if product == dish else "") + f" (order {order_id}: {dish})"
        subtasks.append(Subtask(sid, label, dish, deps, deadline))
        if made or have:
            done.add(sid)
        return sid

    for order in orders:
        if order.dish in recipes:
            visit(order.dish, order.id, order.dish, order.lifetime, False, Counter())
    return TaskGraph(tuple(subtasks), frozenset(done), tuple(sorted(o.id for o in orders)))


class TaskExecutor:
    """The rule executor: ``TaskExecutor().act(session, {0: subtask}, [0, 1])`` -> commands."""

    def __init__(self) -> None:
        self.planner = CuisinePlanner(lookahead_team=0)

    def act(self, session: DomainSession, assignment: Mapping[int, Subtask], agents: Sequence[int]) -> list[str]:
        world: World = session.world  # type: ignore[attr-defined]  # only ever given a CuisineSession
        chef = ChefOrders(assigned={a: s.goal for a, s in assignment.items() if a in agents})
        return self.planner._act_directed(world, list(agents), chef,
                                          people_first(world, list(agents), session.people_commands()))

