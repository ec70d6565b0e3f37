"""One Gymnasium agent that commands the whole team: a `MultiDiscrete` joint action.

The single-agent view suits algorithms without multi-agent support (and the paper's Masked PPO
baseline, which picks one command per agent per step). The observation is the same kitchen vector
as the parallel env without an agent id; ``info["action_mask"]`` has one row per agent.

Example::

    env = CuisineJointEnv("level_1", n_agents=2)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cuisineworld import Level, World, load_level
from mindagent.cuisine.rl.actions import ActionTable
from mindagent.cuisine.rl.observe import Observer


class CuisineJointEnv(gym.Env):
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, level: str | Level = "level_0", n_agents: int = 2, tau: float = 1.0, seed: int = 0,
                 rules: str = "reference", max_steps: int | None = None, render_mode: str | None = None) -> None:
        compiled = level if isinstance(level, Level) else load_level(level, rules)
        self.world = World(compiled, n_agents=n_agents, tau=tau, seed=seed, max_steps=max_steps)
        self.table = ActionTable(compiled, n_agents)
        self.observer = Observer(compiled, n_agents)
        self.render_mode = render_mode
        self.action_space = spaces.MultiDiscrete([self.table.size] * n_agents)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.observer.size,), dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.world.reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        return self.observer.encode(self.world), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        commands = [self.table.command(i, int(a)) for i, a in enumerate(np.asarray(action).reshape(-1))]
        before = self.world.counts
        result = self.world.step(commands)
        after = self.world.counts
        reward = float((after.completed - before.completed) - (after.failed - before.failed))
        info = self._info()
        info["accepted"] = [o.ok for o in result.outcomes]
        return self.observer.encode(self.world), reward, False, self.world.done, info

    def render(self) -> str | None:
        return self.world.state_text() if self.render_mode == "ansi" else None

    def _info(self) -> dict[str, Any]:
        return {"action_mask": np.stack([self.table.mask(self.world, a) for a in range(self.world.n_agents)])}
