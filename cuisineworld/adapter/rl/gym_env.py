"""One Gymnasium agent that commands the whole team: a `MultiDiscrete` joint action.

The single-agent view suits algorithms without multi-agent support and the paper's masked PPO
baseline (one centralized policy picking one command per agent per step). The observation is the
same kitchen vector as the parallel env without an agent id. Legal actions come two ways:
``info["action_mask"]`` has one row per agent, and `action_masks()` returns them flat (all rows
concatenated), which is what sb3-contrib's `MaskablePPO` asks a MultiDiscrete env for, so it
trains with no wrapper. Masks are 0/1 int8, the dtype `space.sample(mask=...)` takes; a
`MultiDiscrete` space takes one mask per agent as a tuple, hence ``tuple(info["action_mask"])``.

Registered as ``CuisineWorld-v0``, one id for every level: the level is the ``level=`` keyword,
which `gymnasium.make`, `gymnasium.make_vec` and SB3's `make_vec_env` (``env_kwargs``) all pass
on. Gymnasium's wrappers do not forward methods, so through `gymnasium.make` the masks are
``env.get_wrapper_attr("action_masks")()``; SB3's vector envs reach them the same way
(`sb3_contrib.common.maskable.utils.get_action_masks`)::

    import gymnasium, cuisineworld.adapter.rl
    env = gymnasium.make("CuisineWorld-v0", level="level_1", n_agents=2, reward="dense")
    masks = env.get_wrapper_attr("action_masks")()
    # or, with no import first: gymnasium.make("cuisineworld.adapter.rl:CuisineWorld-v0", ...)
    # SB3: make_vec_env("CuisineWorld-v0", n_envs=8, env_kwargs={"level": "level_4"})

Options: ``reward`` (sparse | potential | dense, `cuisineworld.adapter.rl.rewards`), ``order``
(agent | shuffle, `cuisineworld.adapter.rl.core`), ``tau`` (one value or several, one drawn per
episode), ``seed`` (None: drawn from ``reset(seed=...)``), ``render_mode``: ``"ansi"`` (the
state text) or ``"rgb_array"`` (the observation drawn as a picture, `cuisineworld.adapter.rl.picture`;
what SB3's `make_vec_env` asks for and video recorders record).

Example (run as a doctest by the tests)::

    >>> env = CuisineJointEnv("level_1", n_agents=2)
    >>> obs, info = env.reset(seed=0)
    >>> action = env.action_space.sample(mask=tuple(info["action_mask"]))
    >>> obs, reward, terminated, truncated, info = env.step(action)
    >>> bool(info["accepted"][0])
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cuisineworld import Level, World
from cuisineworld.adapter.rl.core import KitchenCore
from cuisineworld.adapter.rl.picture import draw
from cuisineworld.adapter.rl.rewards import RewardFn

RENDER_MODES = ("ansi", "rgb_array")


class CuisineJointEnv(gym.Env):
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, level: str | Level = "level_0", n_agents: int = 2, tau: float | Sequence[float] = 1.0,
                 seed: int | None = None, rules: str = "reference", max_steps: int | None = None,
                 render_mode: str | None = None, reward: str | RewardFn = "sparse", order: str = "agent",
                 gamma: float = 0.99) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {', '.join(map(repr, RENDER_MODES))}, not {render_mode!r}")
        self.core = KitchenCore(level, n_agents, tau, seed, rules, max_steps, reward, order, gamma)
        self.table = self.core.table
        self.observer = self.core.observer
        self.render_mode = render_mode
        self.action_space = spaces.MultiDiscrete([self.table.size] * n_agents)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.observer.size,), dtype=np.float32)

    @property
    def world(self) -> World:
        """The kitchen of the current episode (one per tau)."""
        return self.core.world

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.core.reset(self.np_random, seed)
        if seed is not None:
            self.action_space.seed(seed)
        return self.core.observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if isinstance(action, np.ndarray):
            actions = (action if action.ndim == 1 else action.reshape(-1)).tolist()
        else:
            actions = [int(a) for a in action]
        core = self.core
        reward, outcomes, _ = core.step(actions, self.np_random)
        world = core.world
        info: dict[str, Any] = {"action_mask": core.masks(), "accepted": [o.ok for o in outcomes]}
        done = world.time >= world.max_steps
        if done:
            counts = world.counts
            info["episode_counts"] = {"completed": counts.completed, "failed": counts.failed, "active": counts.active}
        return core.observer.encode(world), reward, False, done, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every agent, concatenated: a flat 0/1 int8 vector of ``n_agents * actions``."""
        return self.core.flat_masks()

    def render(self) -> Any:  # text, a frame or None: gymnasium types frames per render mode
        if self.render_mode == "ansi":
            return self.core.world.state_text()
        if self.render_mode == "rgb_array":
            return draw(self.observer, self.core.observe())
        return None

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.core.masks()}
