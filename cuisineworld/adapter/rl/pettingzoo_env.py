"""CuisineWorld as a PettingZoo `ParallelEnv`: every agent acts at once, as in the engine.

Agents are "agent0", "agent1", ...; each picks a `Discrete` action from the level's fixed
command list (`ActionTable`), with the legal ones in ``infos[agent]["action_mask"]`` (and in the
observation too when ``obs_type="dict"``). The team reward, given to every agent, is chosen by
``reward`` (sparse: orders completed minus orders failed in the step; potential; dense; see
`cuisineworld.adapter.rl.rewards`). Commands run in agent order, or in a fresh random order each
step with ``order="shuffle"`` (`cuisineworld.adapter.rl.core`). An episode never terminates early;
it is truncated after the level's step budget, and the last step's infos carry
``episode_counts`` (orders completed, failed, still active). The kitchen is encoded once per step
and each agent's copy only gains its id flag.

Masks are 0/1 int8, so ``env.action_space(agent).sample(mask=infos[agent]["action_mask"])`` works,
here and through `pettingzoo.utils.parallel_to_aec`. For centralised training (MAPPO's critic,
QMIX's mixer) `state()` is the kitchen vector without any agent's id, in `state_space`; the
observer's `feature_names` say what every entry means.

Example::

    env = CuisineParallelEnv("level_0", n_agents=2, tau=1.0)
    obs, infos = env.reset(seed=0)
    actions = {a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in env.agents}
    obs, rewards, terminations, truncations, infos = env.step(actions)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from cuisineworld import Level, World
from cuisineworld.adapter.rl.core import KitchenCore
from cuisineworld.adapter.rl.picture import draw
from cuisineworld.adapter.rl.rewards import RewardFn


class CuisineParallelEnv(ParallelEnv):
    metadata: ClassVar[dict[str, Any]] = {"name": "cuisineworld_v0", "render_modes": ["ansi", "rgb_array"],
                                          "is_parallelizable": True}

    def __init__(self, level: str | Level = "level_0", n_agents: int = 2, tau: float | Sequence[float] = 1.0,
                 seed: int | None = None, rules: str = "reference", max_steps: int | None = None,
                 obs_type: str = "vector", render_mode: str | None = None, reward: str | RewardFn = "sparse",
                 order: str = "agent", gamma: float = 0.99) -> None:
        if obs_type not in ("vector", "dict"):
            raise ValueError("obs_type must be 'vector' or 'dict'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', not {render_mode!r}")
        self.core = KitchenCore(level, n_agents, tau, seed, rules, max_steps, reward, order, gamma)
        self.table = self.core.table
        self.observer = self.core.observer
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.possible_agents = [f"agent{i}" for i in range(n_agents)]
        self.agents: list[str] = []
        self.last_commands: list[str] = []
        self._rng, _ = seeding.np_random(seed)
        vector = spaces.Box(0.0, 1.0, shape=(self.observer.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, shape=(self.table.size,), dtype=np.int8)
        # one space object per agent, returned as is (PettingZoo seeds and compares them by identity)
        self.observation_spaces = {a: vector if obs_type == "vector" else spaces.Dict(
            {"observation": vector, "action_mask": mask}) for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space[Any]] = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, shape=(self.observer.state_size,), dtype=np.float32)

    @property
    def world(self) -> World:
        """The kitchen of the current episode (one per tau)."""
        return self.core.world

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new episode; with `seed` the order generator restarts from it, as `World.reset` does."""
        if seed is not None:
            self._rng, _ = seeding.np_random(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        self.core.reset(self._rng, seed)
        self.agents = list(self.possible_agents)
        self.last_commands = []
        return self._observations(), self._infos()

    def step(self, actions: dict[str, int]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                   dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        reward, outcomes, commands = self.core.step([actions.get(a, 0) for a in self.possible_agents], self._rng)
        self.last_commands = commands
        done = self.core.world.done
        agents = list(self.agents)
        observations = self._observations(agents)
        infos = self._infos(agents)
        for agent in agents:
            outcome = outcomes[self.possible_agents.index(agent)]
            infos[agent]["command"] = outcome.command
            infos[agent]["accepted"] = outcome.ok
        if done:
            counts = self.core.world.counts
            totals = {"completed": counts.completed, "failed": counts.failed, "active": counts.active}
            for agent in agents:
                infos[agent]["episode_counts"] = totals
        rewards = {a: reward for a in agents}
        terminations = {a: False for a in agents}
        truncations = {a: done for a in agents}
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """The whole kitchen for a centralised critic or mixer: the observation without the id block.

        Every agent sees the full kitchen, so the state adds no hidden information; it exists so
        MAPPO- and QMIX-style trainers get one team-wide input of a declared shape.

        Example::

            env.reset(seed=0)
            env.state().shape == env.state_space.shape   # (observer.state_size,)
        """
        return self.core.observe()[:self.observer.state_size].copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.core.world.state_text()
        if self.render_mode == "rgb_array":
            return draw(self.observer, self.state())
        return None

    def close(self) -> None:
        """Nothing to release: the engine holds no outside resources."""

    # ----------------------------------------------------------------- helpers
    def _observations(self, agents: list[str] | None = None) -> dict[str, Any]:
        shared = self.core.observe()
        masks = self.core.masks() if self.obs_type == "dict" else None
        out: dict[str, Any] = {}
        for agent in agents if agents is not None else self.agents:
            i = self.possible_agents.index(agent)
            vector = self.observer.for_agent(shared, i)
            out[agent] = vector if masks is None else {"observation": vector, "action_mask": masks[i].astype(np.int8)}
        return out

    def _infos(self, agents: list[str] | None = None) -> dict[str, dict[str, Any]]:
        masks = self.core.masks()
        return {agent: {"action_mask": masks[self.possible_agents.index(agent)]}
                for agent in (agents if agents is not None else self.agents)}


def parallel_env(**kwargs: Any) -> CuisineParallelEnv:
    """PettingZoo-style constructor: ``parallel_env(level="level_3", n_agents=2)``."""
    return CuisineParallelEnv(**kwargs)
