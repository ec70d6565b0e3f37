"""`RandomPolicy`: the floor every dispatcher should beat, and a fuzzer for the engine.

Each agent draws uniformly among its legal commands. Commands run in order within a step, so an
earlier agent's pick can make a later pick illegal (two agents taking the one product out of a
tool); picks are made agent by agent, the joint list so far is checked with `World.check`, and a
pick that became illegal falls back to a noop. One seeded generator per policy: the same seed and
the same world give the same commands.

Example::

    policy = RandomPolicy(seed=0)
    world.step(policy.act_world(world))
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from cuisineworld import World

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession


class RandomPolicy:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def reset(self, session: CuisineSession | None = None) -> None:
        """Keep the generator running across episodes (seeded once, like the order stream)."""

    def reseed(self, seed: int | None = None) -> None:
        self._rng.seed(self.seed if seed is None else seed)

    def act(self, session: CuisineSession) -> list[str]:
        return self.act_world(session.world)

    def act_world(self, world: World) -> list[str]:
        commands: list[str] = []
        for agent in range(world.n_agents):
            pick = self._rng.choice(world.legal_commands(agent))
            if world.check([*commands, pick])[-1].ok:
                commands.append(pick)
            else:
                commands.append(f"noop_agent{agent}")
        return commands
