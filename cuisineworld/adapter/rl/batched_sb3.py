"""The batched kitchens as a stable-baselines3 `VecEnv`, so `MaskablePPO` trains on them directly.

Kept apart from `batched` because SB3 needs torch, which the envs never import. Kitchen i is
seeded with ``seed + i`` (SB3's own convention for the envs of a vector env, and what
`make_vec_env` gives the single env), ended episodes restart in the same step with the last
observation in ``infos[i]["terminal_observation"]`` and ``"TimeLimit.truncated"`` set (so PPO
bootstraps the cut-off return), and ``infos[i]["episode_counts"]`` feeds the completion-rate
logger. `make_batched_vec_env` wraps it in `VecMonitor` for the episode return and length logs.

Example::

    from sb3_contrib import MaskablePPO
    venv = make_batched_vec_env("level_1", n_agents=2, num_envs=64, tau=(1.0, 2.0), reward="potential", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024)
    model.learn(100_000)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from cuisineworld import Level
from cuisineworld.adapter.rl.batched import BatchedKitchens


class BatchedVecEnv(VecEnv):
    def __init__(self, level: str | Level, n_agents: int, num_envs: int, tau: float | Sequence[float] = 1.0,
                 rules: str = "reference", max_steps: int | None = None, reward: str = "sparse",
                 gamma: float = 0.99, order: str = "agent") -> None:
        self.kitchens = BatchedKitchens(level, n_agents, num_envs, tau=tau, rules=rules, max_steps=max_steps,
                                        reward=reward, gamma=gamma, order=order)
        self.render_mode = None
        observation = spaces.Box(0.0, 1.0, shape=(self.kitchens.obs_size,), dtype=np.float32)
        action = spaces.MultiDiscrete([self.kitchens.n_actions] * n_agents)
        super().__init__(num_envs, observation, action)
        self._actions: np.ndarray | None = None
        self._masks: np.ndarray | None = None
        self.last_accepted = np.ones((num_envs, n_agents), dtype=bool)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]  # SB3's `seed(s)` asks for s, s+1, ...: BatchedKitchens seeds kitchen i with s + i
        obs, masks = self.kitchens.reset(seed)
        self._masks = masks
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_async() first")
        out = self.kitchens.step(self._actions)
        self._actions = None
        self._masks = out.masks
        self.last_accepted = out.accepted  # (num_envs, n_agents): whose command was carried out this step
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if out.final_obs is not None and out.final_counts is not None:
            for i in np.flatnonzero(out.dones).tolist():
                completed, failed, active = out.final_counts[i].tolist()
                infos[i] = {"terminal_observation": out.final_obs[i], "TimeLimit.truncated": True,
                            "episode_counts": {"completed": completed, "failed": failed, "active": active}}
        return out.obs, out.rewards.astype(np.float32), out.dones.copy(), infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_agents * actions)``: every kitchen's legal actions, agents concatenated."""
        if self._masks is None:
            raise RuntimeError("reset() first")
        return self._masks.reshape(self.num_envs, -1)

    def close(self) -> None:
        """Nothing to release: the kitchens are arrays."""

    # ------------------------------------------------ the per-env calls SB3 makes
    def _indices(self, indices: None | int | Iterable[int]) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: None | int | Iterable[int] = None) -> list[Any]:
        if attr_name in ("render_mode", "action_masks") or hasattr(self, attr_name):
            value = getattr(self, attr_name)
            return [value for _ in self._indices(indices)]
        raise AttributeError(f"the batched kitchens have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: None | int | Iterable[int] = None) -> None:
        raise AttributeError(f"the batched kitchens share one state: {attr_name!r} cannot be set per env")

    def env_method(self, method_name: str, *method_args: Any, indices: None | int | Iterable[int] = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"the batched kitchens answer action_masks only, not {method_name!r}")
        masks = self.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: None | int | Iterable[int] = None
                       ) -> list[bool]:
        return [False for _ in self._indices(indices)]


def make_batched_vec_env(level: str | Level, n_agents: int, num_envs: int, tau: float | Sequence[float] = 1.0,
                         rules: str = "reference", max_steps: int | None = None, reward: str = "sparse",
                         gamma: float = 0.99, seed: int | None = None, order: str = "agent") -> VecMonitor:
    """`BatchedVecEnv` in `VecMonitor` (episode return and length in the logs), seeded for its first reset."""
    venv = BatchedVecEnv(level, n_agents, num_envs, tau=tau, rules=rules, max_steps=max_steps, reward=reward,
                         gamma=gamma, order=order)
    if seed is not None:
        venv.seed(seed)
    return VecMonitor(venv)
