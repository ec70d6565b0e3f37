"""One-timestep steps toward a station, for what no medium-level command expresses.

The medium-level commands pick their own station (``pickup_onion`` takes from the chef's own
dispenser, never from a counter it could also reach). Beside a partner it does not command, the
planner sometimes wants a particular station instead: an onion or dish the partner left on a
counter nearer than the dispenser. It walks there with primitive commands, one timestep at a time,
re-aimed at every decision exactly as the engine re-aims a task: the package planner's route, a
breadth-first way around the partner when it stands on that route, then ``interact``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from overcooked_game.commands import Command
from overcooked_game.kitchen import DIRECTIONS, Kitchen, Motion, Pos

#: The primitive verb of each direction tuple of the package.
VERB_OF: dict[tuple[int, int], str] = dict(zip(DIRECTIONS, ("up", "down", "right", "left"), strict=True))


def step_toward(kitchen: Kitchen, state: Any, chef: int, stations: Sequence[Pos]) -> Command | None:
    """The primitive command that brings `chef` one timestep closer to acting on the nearest of
    `stations` (``interact`` once it stands there facing it), or None when none is reachable.

    Example: ``step_toward(kitchen, state, 0, [(2, 2)])`` → ``Command("left", 0)``."""
    best = kitchen.best_goal(state, chef, stations, free_only=True)  # a cell the partner stands on is no way in
    return None if best is None else step_to(kitchen, state, chef, best[1])


def step_to(kitchen: Kitchen, state: Any, chef: int, goal: Motion) -> Command:
    """The primitive command that brings `chef` one timestep closer to standing at `goal` (a cell
    and a facing), then ``interact``."""
    player = state.players[chef]
    if (player.position, player.orientation) == goal:
        return Command("interact", chef)
    action = kitchen.first_action(state, chef, goal)
    if action == "interact":
        return Command("interact", chef)
    if action not in VERB_OF:
        return Command("stay", chef)
    ahead = (player.position[0] + action[0], player.position[1] + action[1])
    others = {p.position for i, p in enumerate(state.players) if i != chef}
    plan = kitchen.mp.all_plans.get(((player.position, player.orientation), goal))
    # (a partner anywhere on the route, not only just ahead: stepping back onto the route each
    # time the partner is a step away walked the chef to and fro beside it for good)
    if ahead in others or (plan is not None and any(pos in others for pos, _ in plan[1])):
        around = kitchen.detour(player.position, goal[0], others)
        if around is None:
            return Command("stay", chef)
        action = around
    return Command(VERB_OF[action], chef)


def cost_to(kitchen: Kitchen, state: Any, chef: int, stations: Sequence[Pos]) -> int | None:
    """Timesteps of the package planner's plan to act on the nearest of `stations` (None: unreachable)."""
    best = kitchen.best_goal(state, chef, stations)
    return None if best is None else best[2]


def walk_cost(kitchen: Kitchen, state: Any, chef: int, stations: Sequence[Pos]) -> int | None:
    """Like `cost_to`, but with no extra for a standing cell the partner occupies: how far the
    stations are, not how busy. Deciding by the busy cost, the chef far from the pots while the
    partner stood on their only cell put an onion on a counter, then took it back as nearer than
    a dispenser, over and over."""
    player = state.players[chef]
    start = (player.position, player.orientation)
    costs = [int(plan[2]) for station in stations for goal in kitchen.mp.motion_goals_for_pos.get(station, ())
             if (plan := kitchen.mp.all_plans.get((start, goal))) is not None]
    return min(costs) if costs else None


def via(kitchen: Kitchen, state: Any, chef: int, stations: Sequence[Pos], then: Sequence[Pos],
        max_onward: int | None = None) -> tuple[Pos, Motion, int] | None:
    """The station of `stations`, and the side to use it from, that make the cheapest trip for
    `chef` to it and on to act on one of `then` (an onion taken to a pot): a counter between two
    corridors is cheap from one side and useless from the other. Sides farther than `max_onward`
    from `then` are left out. None when no trip exists."""
    player = state.players[chef]
    start = (player.position, player.orientation)
    taken = {p.position for i, p in enumerate(state.players) if i != chef}
    plans = kitchen.mp.all_plans
    ends = [g for t in then for g in kitchen.mp.motion_goals_for_pos.get(t, ())]
    best: tuple[int, tuple[int, int], Pos, Motion] | None = None
    for station in stations:
        for goal in kitchen.mp.motion_goals_for_pos.get(station, ()):
            there = plans.get((start, goal))
            onward = [int(plans[(goal, end)][2]) for end in ends if (goal, end) in plans]
            if there is None or not onward or (max_onward is not None and min(onward) > max_onward) or goal[0] in taken:
                continue  # (a side the partner stands on is no way in: the chef would stand stuck behind it)
            key = (int(there[2]) + min(onward), (station[1], station[0]), station, goal)
            if best is None or key[:2] < best[:2]:
                best = key
    return None if best is None else (best[2], best[3], best[0])


def side_cost(kitchen: Kitchen, station: Pos, then: Sequence[Pos]) -> int | None:
    """The cheapest trip from standing at some side of `station` to acting on one of `then`."""
    plans = kitchen.mp.all_plans
    ends = [g for t in then for g in kitchen.mp.motion_goals_for_pos.get(t, ())]
    costs = [int(plans[(goal, end)][2]) for goal in kitchen.mp.motion_goals_for_pos.get(station, ())
             for end in ends if (goal, end) in plans]
    return min(costs) if costs else None
