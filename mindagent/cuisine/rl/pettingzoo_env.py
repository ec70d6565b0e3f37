"""CuisineWorld as a PettingZoo `ParallelEnv`: every agent acts at once, as in the engine.

Agents are "agent0", "agent1", ...; each picks a `Discrete` action from the level's fixed
command list (`ActionTable`), with the legal ones in ``infos[agent]["action_mask"]`` (and in the
observation too when ``obs_type="dict"``). Actions run in agent order within the step, the same
order the engine uses for a joint command list. The team reward, given to every agent, is orders
completed minus orders failed in the step (failures counted as the rule set counts them). An
episode never terminates early; it is truncated after the level's step budget.

Example::

    env = CuisineParallelEnv("level_0", n_agents=2, tau=1.0)
    obs, infos = env.reset(seed=0)
    actions = {a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in env.agents}
    obs, rewards, terminations, truncations, infos = env.step(actions)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from cuisineworld import Level, World, load_level
from mindagent.cuisine.rl.actions import ActionTable
from mindagent.cuisine.rl.observe import Observer


class CuisineParallelEnv(ParallelEnv):
    metadata: ClassVar[dict[str, Any]] = {"name": "cuisineworld_v0", "render_modes": ["ansi"],
                                          "is_parallelizable": True}

    def __init__(self, level: str | Level = "level_0", n_agents: int = 2, tau: float = 1.0, seed: int = 0,
                 rules: str = "reference", max_steps: int | None = None, obs_type: str = "vector",
                 render_mode: str | None = None) -> None:
        if obs_type not in ("vector", "dict"):
            raise ValueError("obs_type must be 'vector' or 'dict'")
        compiled = level if isinstance(level, Level) else load_level(level, rules)
        self.world = World(compiled, n_agents=n_agents, tau=tau, seed=seed, max_steps=max_steps)
        self.table = ActionTable(compiled, n_agents)
        self.observer = Observer(compiled, n_agents)
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.possible_agents = [f"agent{i}" for i in range(n_agents)]
        self.agents: list[str] = []
        self.last_commands: list[str] = []
        vector = spaces.Box(0.0, 1.0, shape=(self.observer.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, shape=(self.table.size,), dtype=np.int8)
        # one space object per agent, returned as is (PettingZoo seeds and compares them by identity)
        self.observation_spaces = {a: vector if obs_type == "vector" else spaces.Dict(
            {"observation": vector, "action_mask": mask}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new episode; with `seed` the order generator restarts from it, as `World.reset` does."""
        self.world.reset(seed=seed)
        if seed is not None:
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        self.agents = list(self.possible_agents)
        self.last_commands = []
        return self._observations(), self._infos()

    def step(self, actions: dict[str, int]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                   dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        commands = [self.table.command(i, actions.get(agent, 0)) for i, agent in enumerate(self.possible_agents)]
        before = self.world.counts
        result = self.world.step(commands)
        after = self.world.counts
        reward = float((after.completed - before.completed) - (after.failed - before.failed))
        self.last_commands = commands
        done = self.world.done
        agents = list(self.agents)
        observations = self._observations(agents)
        infos = self._infos(agents)
        for agent in agents:
            outcome = result.outcomes[self.possible_agents.index(agent)]
            infos[agent]["command"] = outcome.command
            infos[agent]["accepted"] = outcome.ok
        rewards = {a: reward for a in agents}
        terminations = {a: False for a in agents}
        truncations = {a: done for a in agents}
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self.world.state_text() if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release: the engine holds no outside resources."""

    # ----------------------------------------------------------------- helpers
    def _observations(self, agents: list[str] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for agent in agents if agents is not None else self.agents:
            i = self.possible_agents.index(agent)
            vector = self.observer.encode(self.world, i)
            out[agent] = vector if self.obs_type == "vector" else {
                "observation": vector, "action_mask": self.table.mask(self.world, i)}
        return out

    def _infos(self, agents: list[str] | None = None) -> dict[str, dict[str, Any]]:
        return {agent: {"action_mask": self.table.mask(self.world, self.possible_agents.index(agent))}
                for agent in (agents if agents is not None else self.agents)}


def parallel_env(**kwargs: Any) -> CuisineParallelEnv:
    """PettingZoo-style constructor: ``parallel_env(level="level_3", n_agents=2)``."""
    return CuisineParallelEnv(**kwargs)
