"""Dispatchers that read the world directly: the scheduler baseline and a random floor.

Both are `Policy`-compatible (`name`, `reset(session)`, `act(session)`, reading
`session.world`) and also offer `act_world(world)` for fast sweeps without a session.

Example::

    policy = make_policy("planner")
    world.step(policy.act_world(world))
"""

from __future__ import annotations

from cuisineworld.adapter.planners.random_policy import RandomPolicy
from cuisineworld.adapter.planners.scheduler import CuisinePlanner

POLICIES: tuple[str, ...] = ("planner", "random")


def make_policy(name: str, seed: int = 0) -> CuisinePlanner | RandomPolicy:
    """A built-in dispatcher by name: "planner" (the scheduler) or "random"."""
    if name == "planner":
        return CuisinePlanner()
    if name == "random":
        return RandomPolicy(seed)
    raise ValueError(f"unknown policy {name!r}; choose one of: {', '.join(POLICIES)}")


__all__ = ["POLICIES", "CuisinePlanner", "RandomPolicy", "make_policy"]
