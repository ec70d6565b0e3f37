"""What both RL envs share: the kitchen(s), the action table, the encoder, the reward, the order.

Execution order (``order=``): the engine runs a joint action command by command in list order,
and the first command can take what a later one wanted (the only item in a tool, a busy station).

- ``"agent"`` (the default, the engine's order): agent0 first, then agent1, ... The legal mask of
  every agent is exact for agent0 and optimistic for the others.
- ``"shuffle"``: a fresh permutation every step, drawn from the env's seeded generator, so no
  agent always wins a conflict and a policy cannot learn to rely on one priority.

Seeds: an env built without ``seed`` draws its first order stream from the generator that
Gymnasium seeds in ``reset(seed=...)`` (vector envs pass ``seed + i`` to env i), so the envs of a
vector env get distinct, reproducible streams; with ``seed`` it starts from that stream. Later
resets without a seed carry the stream on, as the reference game does between episodes.

Several taus (``tau=(1.0, 1.5, 2.0, 2.5, 3.0)``): one kitchen per tau, one drawn per episode,
so one policy learns the whole task-interval sweep; the observation carries the interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cuisineworld import Level, Outcome, World, load_level
from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.observe import Observer
from cuisineworld.adapter.rl.rewards import RewardFn, make_reward

ORDERS = ("agent", "shuffle")


class KitchenCore:
    def __init__(self, level: str | Level, n_agents: int, tau: float | Sequence[float], seed: int | None,
                 rules: str, max_steps: int | None, reward: str | RewardFn, order: str, gamma: float = 0.99) -> None:
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        compiled = level if isinstance(level, Level) else load_level(level, rules)
        taus = [float(tau)] if isinstance(tau, int | float) else [float(t) for t in tau]
        if not taus:
            raise ValueError("give at least one tau")
        self.level = compiled
        self.n_agents = n_agents
        self.taus = taus
        self.worlds = [World(compiled, n_agents=n_agents, tau=t, seed=seed or 0, max_steps=max_steps) for t in taus]
        self.world = self.worlds[0]
        self.table = ActionTable(compiled, n_agents)
        self.observer = Observer(compiled, n_agents)
        self.reward: RewardFn = make_reward(reward, compiled, gamma) if isinstance(reward, str) else reward
        self.order = order
        self._shuffle = order == "shuffle" and n_agents > 1
        self._command_rows = [[self.table.command(a, i) for i in range(self.table.size)] for a in range(n_agents)]
        self._first_seed = seed
        self._seeded = [False] * len(taus)
        self._masks: np.ndarray | None = None
        self._flat_masks: np.ndarray | None = None

    def reset(self, rng: np.random.Generator, seed: int | None) -> None:
        """A new episode; `rng` is the env's seeded generator (tau draws, unseeded order streams).

        A `seed` restarts everything that seeding decides: which kitchens have had their order
        stream seeded is forgotten, so a used env re-seeded plays the episodes a fresh one would
        (otherwise a kitchen seeded in an earlier run would carry its old stream on).
        """
        if seed is not None:
            self._seeded = [False] * len(self.worlds)
        k = int(rng.integers(len(self.worlds))) if len(self.worlds) > 1 else 0
        self.world = self.worlds[k]
        if seed is None and not self._seeded[k]:
            seed = self._first_seed if self._first_seed is not None and k == 0 else int(rng.integers(2**31 - 1))
        if seed is not None:
            self._seeded[k] = True
        self.world.reset(seed=seed)
        self.reward.reset(self.world)
        self._masks = self._flat_masks = None

    def step(self, actions: Sequence[int], rng: np.random.Generator) -> tuple[float, list[Outcome], list[str]]:
        """Run one joint action; the reward, each agent's outcome (in agent order) and the commands."""
        commands = [row[a] for row, a in zip(self._command_rows, actions, strict=True)]
        if self._shuffle:
            perm = rng.permutation(self.n_agents)
            result = self.world.step([commands[i] for i in perm])
            outcomes: list[Outcome] = [result.outcomes[0]] * self.n_agents
            for pos, i in enumerate(perm):
                outcomes[int(i)] = result.outcomes[pos]
        else:
            result = self.world.step(commands)
            outcomes = result.outcomes
        self._masks = self._flat_masks = None
        return self.reward(self.world, result), outcomes, commands

    def masks(self) -> np.ndarray:
        """``(n_agents, actions)`` booleans for the current state, computed once per state."""
        masks = self._masks
        if masks is None:
            masks = self._masks = self.table.masks(self.world)
        return masks

    def flat_masks(self) -> np.ndarray:
        """The same masks, agents concatenated (what `action_masks()` returns), also made once per state."""
        flat = self._flat_masks
        if flat is None:
            flat = self._flat_masks = self.masks().reshape(-1)
        return flat

    def observe(self) -> np.ndarray:
        return self.observer.encode(self.world)
