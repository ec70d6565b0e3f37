"""`reset(seed=...)` restarts everything seeding decides: a used env re-seeded plays what a fresh one does.

With several taus each kitchen's order stream is seeded the first time its tau is drawn; an
evaluation loop that re-seeds one env must not inherit which kitchens an earlier run had seeded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cuisineworld.adapter.rl import CuisineJointEnv, CuisineParallelEnv

TAUS = (1.0, 1.5, 2.0, 2.5, 3.0)
EPISODES = 6
STEPS = 15  # enough steps per episode for orders to arrive from each kitchen's stream


def _joint_episodes(env: CuisineJointEnv, seed: int) -> list[tuple[float, list[str], list[bytes]]]:
    """Six episodes after one seeded reset: each episode's tau, its orders and its observations."""
    rng = np.random.default_rng(seed)
    out = []
    for episode in range(EPISODES):
        obs, info = env.reset(seed=seed) if episode == 0 else env.reset()
        frames = [obs.tobytes()]
        for _ in range(STEPS):
            rows = info["action_mask"]
            obs, _, _, _, info = env.step([int(rng.choice(np.flatnonzero(r))) for r in rows])
            frames.append(obs.tobytes())
        out.append((env.world.tau, [o.dish for o in env.world.orders], frames))
    return out


def _parallel_episodes(env: CuisineParallelEnv, seed: int) -> list[tuple[float, list[str], list[bytes]]]:
    rng = np.random.default_rng(seed)
    out = []
    for episode in range(EPISODES):
        obs, infos = env.reset(seed=seed) if episode == 0 else env.reset()
        frames = [obs["agent0"].tobytes()]
        for _ in range(STEPS):
            actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
            obs, _, _, _, infos = env.step(actions)
            frames.append(obs["agent0"].tobytes())
        out.append((env.world.tau, [o.dish for o in env.world.orders], frames))
    return out


def _use(env: Any, play: Callable[[Any, int], Any]) -> None:
    """Wear the env out: two seeded runs, so several taus' kitchens have been seeded and played."""
    play(env, 11)
    play(env, 12)


@pytest.mark.parametrize("make, play", [
    (lambda: CuisineJointEnv("level_3", n_agents=2, tau=TAUS), _joint_episodes),
    (lambda: CuisineJointEnv("level_3", n_agents=2, tau=TAUS, order="shuffle", seed=4), _joint_episodes),
    (lambda: CuisineParallelEnv("level_3", n_agents=2, tau=TAUS), _parallel_episodes),
    (lambda: CuisineParallelEnv("level_3", n_agents=3, tau=TAUS, seed=4, reward="dense"), _parallel_episodes),
], ids=["gymnasium", "gymnasium-shuffle-seeded", "pettingzoo", "pettingzoo-seeded-dense"])
def test_a_reseeded_used_env_plays_what_a_fresh_one_does(make, play):
    for seed in (0, 3):
        fresh = play(make(), seed)
        used = make()
        _use(used, play)
        again = play(used, seed)
        assert [tau for tau, _, _ in fresh] == [tau for tau, _, _ in again]
        assert len({tau for tau, _, _ in fresh}) > 2  # the run goes through several kitchens' streams
        for (_, orders_a, frames_a), (_, orders_b, frames_b) in zip(fresh, again, strict=True):
            assert orders_a == orders_b
            assert frames_a == frames_b


def test_a_reseeded_used_vector_env_plays_what_a_fresh_one_does():
    """The batched kitchens keep per-kitchen seeded flags too; `reset(seed=...)` must clear them as well."""
    from cuisineworld.adapter.rl import CuisineVectorEnv

    def run(envs: CuisineVectorEnv, seed: int) -> list[bytes]:
        rng = np.random.default_rng(seed)
        obs, infos = envs.reset(seed=seed)
        frames = [obs.tobytes()]
        for _ in range(EPISODES * 60):  # same-step autoreset carries every kitchen through six episodes
            masks = infos["action_mask"]
            actions = np.array([[rng.choice(np.flatnonzero(m)) for m in kitchen] for kitchen in masks])
            obs, _, _, _, infos = envs.step(actions)
            frames.append(obs.tobytes())
        return frames

    def make() -> CuisineVectorEnv:
        return CuisineVectorEnv("level_3", n_agents=2, num_envs=3, tau=TAUS)

    fresh = run(make(), 0)
    used = make()
    run(used, 5)
    assert run(used, 0) == fresh
