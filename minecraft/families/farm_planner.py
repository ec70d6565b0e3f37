"""The farm family's built-in dispatcher: each bot works back along the causal chain of its dish.

Dishes are dealt to the bots in task order (dish k to bot k mod n), so one bot gathers everything
its dish needs (crafting takes all ingredients from one inventory). For its first unserved dish a
bot asks what it lacks, deepest first: carry it → serve or craft; in the pantry → take; a furnace
product → take it out, or put the raw item and coal in; milk → fill a bucket; an egg → gather from
the nest; a crop → harvest a ripe plot, or plant an empty one and let it grow. A bot with nothing
it can do now waits. Bots are planned one after another on a scratch world, each command applied
there, so no two bots are sent for the same ripe plot or the pantry's last bucket; every command
it gives passes the session's own check.

`simulate` plays a task with this planner on the pure world model and the world clock: the
generator's solvability check and the fast tests use it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Protocol

from minecraft.families.farm_commands import parse_farm_command
from minecraft.families.farm_task import FarmTask, book
from minecraft.families.farm_world import FarmWorld, check_all, check_one

#: `_next` found the item already carried (nothing to do for it).
HAVE = "have"
MAX_DEPTH = 8


def dealt(task_dishes: Sequence[str], world: FarmWorld, agent_index: int, n_agents: int) -> str | None:
    """The first dish dealt to this bot that is not served yet (served copies count in task order)."""
    served = dict(world.served)
    for k, dish in enumerate(task_dishes):
        if served.get(dish, 0) > 0:
            served[dish] -= 1
            continue
        if k % n_agents == agent_index:
            return dish
    return None


def _next(world: FarmWorld, agent: str, item: str, need: int, depth: int = 0) -> str | None:
    """A command that brings `agent` closer to carrying `need` of `item`, HAVE, or None (wait)."""
    inv, b = world.inventory[agent], book()
    missing = need - inv[item]
    if missing <= 0:
        return HAVE
    if depth > MAX_DEPTH:
        return None
    if world.pantry[item] > 0:
        return f"take({agent}, {item}, {min(missing, world.pantry[item], 64)})"
    if item in b.recipes:
        return _ingredients(world, agent, item, depth)
    raw = next((r for r, out in b.smelting.items() if out == item), None)
    if raw is not None:
        return _smelted(world, agent, item, raw, missing, depth)
    if item == "milk_bucket":
        return f"milk({agent})" if inv["bucket"] > 0 else _wait_if_have(_next(world, agent, "bucket", missing, depth + 1))
    if item == "egg":
        return f"gather({agent}, egg, {min(missing, world.nest)})" if world.nest > 0 else None
    crop = b.crop_yielding(item)
    if crop is None:
        return None
    if world.ripe(crop):
        return f"harvest({agent}, {crop})"
    seed = b.crops[crop].seed
    if world.empty(crop) and inv[seed] > 0:
        return f"plant({agent}, {crop})"
    if world.empty(crop) and not world.growing(crop):
        return _wait_if_have(_next(world, agent, seed, 1, depth + 1))
    return None


def _wait_if_have(found: str | None) -> str | None:
    return None if found == HAVE else found


def _ingredients(world: FarmWorld, agent: str, item: str, depth: int) -> str | None:
    """The first ingredient that can be worked on now; the craft once all are carried."""
    waiting = False
    for ingredient, n in book().recipes[item].needs.items():
        found = _next(world, agent, ingredient, n, depth + 1)
        if found is None:
            waiting = True
        elif found != HAVE:
            return found
    return None if waiting else f"craft({agent}, {item})"


def _smelted(world: FarmWorld, agent: str, item: str, raw: str, missing: int, depth: int) -> str | None:
    f, fuel = world.furnace, book().fuel
    if f.output == item and f.output_n > 0:
        return f"takeout({agent})"
    cooking = f.input_n if f.input == raw else 0
    if cooking >= missing:
        return None
    found = _next(world, agent, raw, missing - cooking, depth + 1)
    if found != HAVE:
        return found
    if not world.has_fire() and world.inventory[agent][fuel] <= 0:
        return _wait_if_have(_next(world, agent, fuel, 1, depth + 1))
    return f"smelt({agent}, {raw})"


def plan(world: FarmWorld, agents: Sequence[str], dishes: Sequence[str]) -> list[str]:
    """One command per bot, each checked on a scratch world and applied there before the next bot."""
    scratch = copy.deepcopy(world)
    out: list[str] = []
    for i, agent in enumerate(agents):
        dish = dealt(dishes, scratch, i, len(agents))
        text = f"noop({agent})"
        if dish is not None:
            found = _next(scratch, agent, dish, 1)
            text = f"serve({agent}, {dish})" if found == HAVE else (found or text)
        command = parse_farm_command(text, agents)
        if check_one(scratch, command) is not None:
            command = parse_farm_command(f"noop({agent})", agents)
        scratch.apply(command)
        out.append(command.text)
    return out


class FarmLike(Protocol):
    world: FarmWorld
    agents: list[str]
    task: FarmTask


class FarmPlanner:
    """Example: ``FarmPlanner().act(session)`` → ``["harvest(Alex, wheat)", "take(Steve, bucket, 3)"]``."""

    name = "planner"

    def reset(self, session: FarmLike) -> None:
        """Stateless: everything is read from the session each step."""

    def act(self, session: FarmLike) -> list[str]:
        return plan(session.world, session.agents, session.task.dishes)


def simulate(task: FarmTask, n_agents: int, *, step_ticks: int, cook_ticks: int, max_steps: int) -> int | None:
    """Steps the planner needs to serve every dish on the pure world model, or None within `max_steps`."""
    agents = [f"Bot{i}" for i in range(n_agents)]
    world = FarmWorld.fresh(task, agents, cook_ticks=cook_ticks)
    for step in range(max_steps):
        if not world.owed():
            return step
        for command, why, _ in check_all(plan(world, agents, task.dishes), agents, world):
            if command is not None and why is None:
                world.apply(command)
        world.advance(step_ticks)
    return None if world.owed() else max_steps
