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
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cuisineworld import World
from cuisineworld.commands import Command
from mindagent.core.domain import DomainSession

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
        """Picks checked after the people's commands of this step (they run first; see
        `DomainSession.people_commands`), so a random teammate never races a person."""
        first = session.people_commands() if isinstance(session, DomainSession) else []  # a bare world holder has none
        return self.act_world(session.world, first)

    def act_world(self, world: World, first: Sequence[str] = ()) -> list[str]:
        commands: list[str] = []
        people = list(first)
        theirs = {p.agent for p in map(world.parse, people) if isinstance(p, Command)}
        for agent in range(world.n_agents):
            if agent in theirs:
                continue  # a person's agent: its command is given
            pick = self._rng.choice(world.legal_commands(agent))
            if world.check([*people, *commands, pick])[-1].ok:
                commands.append(pick)
            else:
                commands.append(f"noop_agent{agent}")
        return commands
