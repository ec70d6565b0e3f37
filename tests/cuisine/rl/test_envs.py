"""The RL adapters pass PettingZoo's and Gymnasium's own conformance checks."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

from cuisineworld.adapter.rl import CuisineJointEnv, CuisineParallelEnv


@pytest.mark.parametrize("level", ["level_0", "level_3", "level_12"])
@pytest.mark.parametrize("obs_type", ["vector", "dict"])
def test_parallel_api(level: str, obs_type: str):
    parallel_api_test(CuisineParallelEnv(level, n_agents=3, obs_type=obs_type), num_cycles=100)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("level", ["level_1", "level_9"])
def test_gymnasium_checker(level: str):
    check_env(CuisineJointEnv(level, n_agents=2), skip_render_check=True)


def _rollout(env: CuisineParallelEnv, seed: int) -> list[np.ndarray]:
    obs, infos = env.reset(seed=seed)
    frames = [obs["agent0"]]
    rng = np.random.default_rng(seed)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
        if env.agents:
            frames.append(obs["agent0"])
    return frames


def test_seeded_reset_is_deterministic():
    a = _rollout(CuisineParallelEnv("level_4", n_agents=2), seed=3)
    b = _rollout(CuisineParallelEnv("level_4", n_agents=2), seed=3)
    assert len(a) == len(b) == 60
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_masked_actions_of_the_first_agent_are_accepted():
    env = CuisineParallelEnv("level_5", n_agents=2)
    _, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.agents:
        action = int(rng.choice(np.flatnonzero(infos["agent0"]["action_mask"])))
        _, _, _, _, infos = env.step({"agent0": action, "agent1": 0})
        if env.agents:
            assert infos["agent0"]["accepted"]


def test_rewards_follow_the_score():
    env = CuisineParallelEnv("level_0", n_agents=2, tau=3.0)
    env.reset(seed=0)
    total = 0.0
    while env.agents:
        _, rewards, _, _, _ = env.step({a: 0 for a in env.agents})
        total += rewards["agent0"]
    counts = env.world.counts
    assert total == counts.completed - counts.failed
