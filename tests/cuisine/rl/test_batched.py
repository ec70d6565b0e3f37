"""The batched NumPy kitchens play exactly as the engine does, step by step.

Each kitchen of a `BatchedKitchens` is compared with a `CuisineJointEnv` (the engine behind the
single env) given the same joint actions: a mix of the planner's commands (which cook and serve,
so orders complete), random legal actions and random actions the mask forbids (refused commands).
Every step compares the observation, every agent's mask, the reward, the accepted flags, the score
and the episode ends; episodes restart on their own, so resets and carried-on order streams are
covered too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.rl import CuisineJointEnv
from cuisineworld.adapter.rl.batched import BatchedKitchens, CuisineVectorEnv


@dataclass
class Tally:
    steps: int = 0
    completed: int = 0
    failed: int = 0
    refused: int = 0
    episodes: int = 0
    kinds: set[str] = field(default_factory=set)


def _play_against_engine(level: str, rules: str, n_agents: int, worlds: int, steps: int, taus: tuple[float, ...],
                         reward: str, seed: int, p_planner: float, p_illegal: float, order: str = "agent") -> Tally:
    """Kitchen i follows the planner with probability `p_planner` (the even ones; the odd ones play
    randomly), and any agent's action is drawn from all actions with probability `p_illegal`."""
    batch = BatchedKitchens(level, n_agents, worlds, tau=taus, rules=rules, reward=reward, order=order)
    envs = [CuisineJointEnv(level, n_agents=n_agents, tau=taus, rules=rules, reward=reward, order=order)
            for _ in range(worlds)]
    planners = [make_policy("planner") for _ in range(worlds)]
    obs, masks = batch.reset(seed=seed)
    assert np.array_equal(obs, np.stack([env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]))
    assert np.array_equal(masks, np.stack([env.action_masks().reshape(n_agents, -1) for env in envs]))
    table = batch.table
    rng = np.random.default_rng(seed)
    tally = Tally()
    for t in range(steps):
        actions = np.zeros((worlds, n_agents), dtype=np.int64)
        for i, env in enumerate(envs):
            mask = env.action_masks().reshape(n_agents, -1)
            plan: dict[int, str] = {}
            if i % 2 == 0 and rng.random() < p_planner:  # the planner lists its commands in its own order
                plan = {int(c.split("_")[1][5:]): c for c in planners[i].act_world(env.world)}
            for a in range(n_agents):
                if rng.random() < p_illegal:
                    actions[i, a] = rng.integers(table.size)
                elif a in plan:
                    actions[i, a] = table.index_of(plan[a]) or 0
                else:
                    actions[i, a] = rng.choice(np.flatnonzero(mask[a]))
        step = batch.step(actions)
        for i, env in enumerate(envs):
            where = f"{level} {rules} step {t} kitchen {i}"
            tally.kinds.update(table.templates[int(x)][0] for x, ok in zip(actions[i], step.accepted[i], strict=True) if ok)
            obs_i, got, _, truncated, info = env.step(actions[i])
            assert info["accepted"] == step.accepted[i].tolist(), where
            assert got == step.rewards[i], where
            assert truncated == bool(step.dones[i]), where
            tally.refused += int((~step.accepted[i]).sum())
            if truncated:
                assert step.final_obs is not None and step.final_counts is not None
                assert np.array_equal(obs_i, step.final_obs[i]), where
                counts = info["episode_counts"]
                assert [counts["completed"], counts["failed"], counts["active"]] == step.final_counts[i].tolist(), where
                tally.completed += counts["completed"]
                tally.failed += counts["failed"]
                tally.episodes += 1
                obs_i, _ = env.reset()
                planners[i] = make_policy("planner")
            else:
                counts = env.world.counts
                assert [counts.completed, counts.failed, counts.active] == batch.counts()[i].tolist(), where
            assert np.array_equal(obs_i, step.obs[i]), where
            assert np.array_equal(env.action_masks().reshape(n_agents, -1), step.masks[i]), where
        tally.steps += worlds
    return tally


@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("level", "agents", "taus", "reward"), [
    ("level_1", 2, (1.0, 2.0, 3.0), "sparse"),
    ("level_3", 3, (1.0,), "potential"),
    pytest.param("level_5", 2, (1.5, 2.5), "sparse", marks=pytest.mark.slow),  # the planner takes 10 s here
    ("level_12", 4, (1.0, 3.0), "potential"),  # the fixed kitchen gets its fryer: another location list
    ("level_11", 2, (2.0,), "sparse"),  # 18 items: recipes checked combo by combo instead of by table
])
def test_batched_kitchens_match_the_engine(level: str, agents: int, taus: tuple[float, ...], reward: str, rules: str):
    tally = _play_against_engine(level, rules, agents, worlds=6, steps=130, taus=taus, reward=reward, seed=11,
                                 p_planner=0.9, p_illegal=0.1)
    assert tally.steps == 780 and tally.episodes >= 6
    assert tally.refused > 0 and tally.failed > 0
    assert {"goto", "get", "put", "activate"} <= tally.kinds
    if level != "level_12" or rules == "fixed":  # the reference level_12 has no fryer: its fries cannot be made
        assert tally.completed > 0


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(["level_0", "level_2", "level_4", "level_7", "level_9", "level_11"]),
       rules=st.sampled_from(["reference", "fixed"]), agents=st.integers(1, 5), seed=st.integers(0, 10_000),
       p_planner=st.floats(0.0, 1.0), p_illegal=st.floats(0.0, 0.6))
def test_batched_kitchens_match_the_engine_on_drawn_games(level: str, rules: str, agents: int, seed: int,
                                                          p_planner: float, p_illegal: float):
    _play_against_engine(level, rules, agents, worlds=3, steps=70, taus=(1.0, 2.5), reward="sparse", seed=seed,
                         p_planner=p_planner, p_illegal=p_illegal)


def _vector_trace(seed: int) -> tuple[list[np.ndarray], int]:
    envs = CuisineVectorEnv("level_1", n_agents=2, num_envs=5, tau=(1.0, 2.0), max_steps=12)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    obs, infos = envs.reset(seed=seed)
    assert obs.shape == (5, envs.kitchens.obs_size) and obs in envs.observation_space
    assert infos["action_mask"].shape == (5, 2, envs.kitchens.n_actions)
    rng = np.random.default_rng(0)
    endings = 0
    trace = [obs]
    for _ in range(30):
        masks = envs.action_masks().reshape(5, 2, -1)
        actions = np.array([[rng.choice(np.flatnonzero(m)) for m in kitchen] for kitchen in masks])
        obs, _, terminations, truncations, infos = envs.step(actions)
        trace.append(obs)
        assert not terminations.any()
        if truncations.any():
            assert infos["_final_obs"].tolist() == truncations.tolist()
            ended = int(np.flatnonzero(truncations)[0])
            assert infos["final_obs"][ended].shape == obs[ended].shape
            assert set(infos["final_info"][ended]["episode_counts"]) == {"completed", "failed", "active"}
            assert obs[ended][0] == 0.0  # already the new episode's first step
            endings += 1
    return trace, endings


def test_vector_env_api_autoreset_and_seeds():
    trace, endings = _vector_trace(seed=3)
    assert endings == 2  # 30 steps of 12-step episodes
    again, _ = _vector_trace(seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(trace, again, strict=True))


def test_batched_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="agent or shuffle order"):
        BatchedKitchens("level_1", 2, 4, order="random")
    with pytest.raises(ValueError, match="computes the rewards sparse, potential, dense, not 'dense-v1'"):
        BatchedKitchens("level_1", 2, 4, reward="dense-v1")
    kitchens = BatchedKitchens("level_1", 2, 4)
    with pytest.raises(RuntimeError, match="reset"):
        kitchens.step(np.zeros((4, 2), dtype=np.int64))
    kitchens.reset(seed=0)
    with pytest.raises(ValueError, match="action indices"):
        kitchens.step(np.full((4, 2), 999))


@pytest.mark.parametrize("level", ["pass_sushi", "secret_salad"])
def test_forced_collaboration_levels_are_refused_with_a_reason(level: str) -> None:
    with pytest.raises(ValueError, match="counters or per-agent reach"):
        BatchedKitchens(level, 2, 4)
