"""The standard idioms of Gymnasium, PettingZoo and SB3 work as their docs show them.

int8 masks that `space.sample(mask=...)` takes (Gymnasium, PettingZoo parallel and AEC), the
docstring example of the joint env run as a doctest, the level as a ``level=`` keyword that
`gymnasium.make` and `make_vec` pass on, masks reachable through wrappers, the render modes SB3
asks for, and the centralised state with its declared shape and named features.
"""

from __future__ import annotations

import doctest

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils import parallel_to_aec

from cuisineworld import load_level
from cuisineworld.adapter.rl import ENV_ID, CuisineJointEnv, CuisineParallelEnv, CuisineVectorEnv, Observer, gym_env


def _legal(mask: np.ndarray, pick: int) -> bool:
    return bool(mask[pick] == 1)


def test_joint_env_masks_sample_through_the_multidiscrete_space():
    env = CuisineJointEnv("level_3", n_agents=3, tau=(1.0, 2.0))
    _, info = env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(70):  # past one 60-step episode: the reset in between keeps the dtype
        masks = info["action_mask"]
        assert masks.dtype == np.int8 and env.action_masks().dtype == np.int8
        action = env.action_space.sample(mask=tuple(masks))
        assert all(_legal(masks[a], int(action[a])) for a in range(3))
        _, _, _, truncated, info = env.step(action)
        assert info["accepted"][0]
        if truncated:
            _, info = env.reset()


def test_joint_env_docstring_example_runs():
    result = doctest.testmod(gym_env, verbose=False)
    assert result.attempted >= 5 and result.failed == 0


@pytest.mark.parametrize("obs_type", ["vector", "dict"])
def test_parallel_env_masks_sample_through_each_agent_space(obs_type: str):
    env = CuisineParallelEnv("level_5", n_agents=2, obs_type=obs_type)
    obs, infos = env.reset(seed=1)
    steps = 0
    while env.agents:
        actions = {}
        for agent in env.agents:
            mask = infos[agent]["action_mask"]
            assert mask.dtype == np.int8
            if obs_type == "dict":
                assert np.array_equal(obs[agent]["action_mask"], mask)
            actions[agent] = env.action_space(agent).sample(mask=mask)
            assert _legal(mask, actions[agent])
        obs, _, _, _, infos = env.step(actions)
        assert infos.get("agent0", {}).get("accepted", True)
        steps += 1
    assert steps == 60


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice on agent names and Dict observations
@pytest.mark.parametrize("obs_type", ["vector", "dict"])
def test_aec_env_through_parallel_to_aec_passes_the_api_test_and_samples_masks(obs_type: str):
    api_test(parallel_to_aec(CuisineParallelEnv("level_3", n_agents=3, obs_type=obs_type)), num_cycles=60)
    env = parallel_to_aec(CuisineParallelEnv("level_3", n_agents=2, obs_type=obs_type))
    env.reset(seed=2)
    acted = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = info["action_mask"]
        action = env.action_space(agent).sample(mask=mask)
        assert _legal(mask, action)
        env.step(action)
        acted += 1
    assert acted == 2 * 60


def test_vector_env_masks_are_int8_per_kitchen():
    envs = CuisineVectorEnv("level_1", n_agents=2, num_envs=4)
    _, infos = envs.reset(seed=0)
    masks = infos["action_mask"]
    assert masks.dtype == np.int8 and envs.action_masks().dtype == np.int8
    for kitchen in masks:
        action = envs.single_action_space.sample(mask=tuple(kitchen))
        assert all(_legal(kitchen[a], int(action[a])) for a in range(2))


def test_level_keyword_through_make_and_make_vec_with_masks_through_wrappers():
    env = gymnasium.make(ENV_ID, level="level_4", n_agents=2)
    env.reset(seed=0)
    assert env.unwrapped.world.level.name == "level_4"
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == np.int8 and masks.shape == (2 * env.unwrapped.table.size,)
    vec = gymnasium.make_vec(ENV_ID, num_envs=2, level="level_4", n_agents=2)
    vec.reset(seed=0)
    assert vec.single_observation_space == env.observation_space
    assert [m.shape for m in vec.call("action_masks")] == [masks.shape] * 2
    vec.close()


@pytest.mark.parametrize("env_cls", [CuisineJointEnv, CuisineParallelEnv])
def test_rgb_array_frames_show_the_observation(env_cls):
    env = env_cls("level_1", n_agents=2, render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3 and first.any()
    actions = [1, 2] if env_cls is CuisineJointEnv else {"agent0": 1, "agent1": 2}  # both agents walk away
    env.step(actions)
    moved = env.render()
    assert moved.shape == first.shape and not np.array_equal(moved, first)
    with pytest.raises(ValueError, match="render_mode"):
        env_cls("level_1", render_mode="human")


@pytest.mark.parametrize("level, n_agents", [("level_0", 2), ("level_4", 3), ("level_12", 4)])
def test_state_has_the_declared_shape_and_matches_every_observation(level: str, n_agents: int):
    env = CuisineParallelEnv(level, n_agents=n_agents, tau=(1.0, 3.0))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.agents:
        state = env.state()
        assert state.shape == env.state_space.shape and state.dtype == env.state_space.dtype
        assert env.state_space.contains(state)
        for agent in env.agents:  # every agent's observation is the state plus its id flags
            assert np.array_equal(obs[agent][:state.size], state)
        actions = {a: int(rng.integers(env.table.size)) for a in env.agents}
        obs, _, _, _, _ = env.step(actions)


@pytest.mark.parametrize("level, n_agents", [("level_1", 2), ("level_9", 3)])
def test_feature_names_say_what_each_entry_means(level: str, n_agents: int):
    env = CuisineParallelEnv(level, n_agents=n_agents)
    obs, _ = env.reset(seed=5)
    names = env.observer.feature_names
    assert len(names) == env.observation_space("agent0").shape[0] and len(set(names)) == len(names)
    assert names[:env.observer.state_size] == names[:env.state_space.shape[0]]
    for i, agent in enumerate(env.possible_agents):
        lit = {name for name, value in zip(names, obs[agent].tolist(), strict=True) if value > 0}
        assert f"agent{i}.at.{env.world.agent_location(i)}" in lit
        assert f"agent{i}.holds.nothing" in lit and f"id.agent{i}" in lit
        assert [n for n in lit if n.startswith("id.")] == [f"id.agent{i}"]
    assert "time" in names and "interval" in lit
    dishes = {o.dish for o in env.world.orders}
    assert {n.split(".")[2] for n in lit if ".dish." in n} == dishes
    assert Observer(load_level(level), n_agents).feature_names == names


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_gymnasium_checker_with_its_render_checks(render_mode: str):
    """Made through the registry (so the checker knows the spec and tries every declared render mode)."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a render-mode or dtype complaint is a failure here
        check_env(gymnasium.make(ENV_ID, level="level_1", n_agents=2, render_mode=render_mode).unwrapped)
