"""The envs as standard trainers take them: flat masks, gymnasium.make, seeds, order, rewards, fast paths."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from cuisineworld import MAX_ACTIVE_ORDERS, World, load_level
from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.rl import ENV_ID, ActionTable, CuisineJointEnv, CuisineParallelEnv, Observer, make_reward
from cuisineworld.adapter.rl.observe import MAX_TAU, SERVED_SCALE
from cuisineworld.adapter.rl.rewards import DenseWeights, RecipeProgress, subtree_counts


def _reference_encode(enc: Observer, world: World) -> np.ndarray:
    """The layout written out feature by feature through World's public views (the slow, obvious way)."""
    out = np.zeros(enc.size, dtype=np.float32)
    out[0] = min(1.0, world.time / world.max_steps)
    out[1] = min(1.0, world.interval / world.level.interval(MAX_TAU))
    i = 2
    locs, n_items = list(enc.locations), len(enc.items)
    for a in range(world.n_agents):
        out[i + locs.index(world.agent_location(a))] = 1.0
        held = world.agent_holding(a)
        out[i + len(locs) + (enc.item_index.get(held, n_items) if held is not None else n_items)] = 1.0
        out[i + len(locs) + n_items + 1] = min(1.0, world.agent_busy(a) / enc.max_cook)
        i += len(locs) + n_items + 2
    for j, name in enumerate(locs):
        for item in world.location_content(name):
            k = enc.item_index.get(item)
            if k is not None:
                serving = world.level.locations[j].role == "serving"
                out[i + k] = min(1.0, out[i + k] + 1.0 / SERVED_SCALE) if serving else 1.0
        out[i + n_items] = min(1.0, world.location_busy(name) / enc.max_cook)
        out[i + n_items + 1] = float(world.location_gettable(name))
        i += n_items + 2
    for k, order in enumerate(world.orders[:MAX_ACTIVE_ORDERS]):
        base = i + k * (len(enc.dishes) + 2)
        out[base + enc.dishes.index(order.dish)] = 1.0
        out[base + len(enc.dishes)] = min(1.0, max(0, order.lifetime) / enc.max_life)
        out[base + len(enc.dishes) + 1] = 1.0
    return out


@pytest.mark.parametrize("level", ["level_0", "level_3", "level_12"])
def test_fast_observation_and_mask_match_the_obvious_ones(level: str):
    compiled = load_level(level)
    world = World(compiled, n_agents=3, tau=1.5, seed=2)
    world.reset()
    table, enc = ActionTable(compiled, 3), Observer(compiled, 3)
    planner = make_policy("planner")  # a planner reaches cooked, served and busy states a random walk rarely does
    rng = np.random.default_rng(0)
    while not world.done:
        assert np.array_equal(enc.encode(world), _reference_encode(enc, world))
        for agent in range(3):
            slow = np.zeros(table.size, dtype=bool)
            for command in world.legal_commands(agent):
                index = table.index_of(command)
                if index is not None:
                    slow[index] = True
            assert np.array_equal(table.masks(world)[agent], slow)
        commands = planner.act_world(world) if world.time % 3 else [str(rng.choice(world.legal_commands(a))) for a in range(3)]
        world.step(commands)
    world.reset()  # a new episode has new state lists: the encoder must read those
    world.step(["goto_agent0_storage0", "noop_agent1", "noop_agent2"])
    assert np.array_equal(enc.encode(world), _reference_encode(enc, world))


def test_action_masks_are_flat_and_legal():
    env = CuisineJointEnv("level_1", n_agents=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        flat = env.action_masks()
        assert flat.shape == (2 * env.table.size,) and flat.dtype == np.int8
        rows = flat.reshape(2, -1)
        action = [int(rng.choice(np.flatnonzero(rows[a]))) for a in range(2)]
        _, _, _, truncated, info = env.step(action)
        assert info["accepted"][0]  # agent0 runs first: its masked pick is always accepted
        if truncated:
            break


def test_gymnasium_make_and_ansi_render():
    env = gymnasium.make(ENV_ID, level="level_4", n_agents=3, render_mode="ansi", reward="dense")
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert "at(agent0" in env.render()
    assert env.unwrapped.world.n_agents == 3
    assert env.get_wrapper_attr("action_masks")().shape == (3 * env.unwrapped.table.size,)
    with pytest.raises(ValueError, match="render_mode"):
        CuisineJointEnv("level_0", render_mode="human")




def test_vector_env_seeds_give_distinct_reproducible_streams():
    def streams() -> list[list[str]]:
        vec = gymnasium.vector.SyncVectorEnv([lambda: CuisineJointEnv("level_3", n_agents=2) for _ in range(3)])
        vec.reset(seed=7)
        for _ in range(40):
            vec.step(np.zeros((3, 2), dtype=np.int64))
        return [[o.dish for o in env.unwrapped.world.orders] + env.unwrapped.world.failed_dishes for env in vec.envs]

    first, again = streams(), streams()
    assert first == again
    assert len({tuple(s) for s in first}) == 3


def test_shuffled_order_is_seeded_and_reports_outcomes_per_agent():
    def run(seed: int) -> list[list[bool]]:
        env = CuisineJointEnv("level_1", n_agents=3, order="shuffle")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        accepted = []
        for _ in range(60):
            rows = env.action_masks().reshape(3, -1)
            _, _, _, _, info = env.step([int(rng.choice(np.flatnonzero(r))) for r in rows])
            accepted.append(info["accepted"])
        return accepted

    assert run(3) == run(3)
    with pytest.raises(ValueError, match="order"):
        CuisineJointEnv("level_1", order="sideways")


def test_several_taus_draw_one_kitchen_per_episode():
    env = CuisineJointEnv("level_1", n_agents=2, tau=(1.0, 3.0))
    seen = set()
    env.reset(seed=0)
    for _ in range(12):
        seen.add(env.world.tau)
        env.reset()
    assert seen == {1.0, 3.0}


def _planner_rewards(reward: str, level: str = "level_1") -> tuple[list[float], World]:
    env = CuisineParallelEnv(level, n_agents=2, tau=3.0, reward=reward)
    planner = make_policy("planner")
    env.reset(seed=0)
    rewards = []
    while env.agents:
        commands = planner.act_world(env.world)  # in the planner's own execution order, not agent order
        actions = {c.split("_")[1]: env.table.index_of(c) or 0 for c in commands}
        _, r, _, _, _ = env.step(actions)
        rewards.append(r["agent0"])
    return rewards, env.world


def test_sparse_reward_is_the_score():
    rewards, world = _planner_rewards("sparse")
    assert sum(rewards) == world.counts.completed - world.counts.failed
    assert world.counts.completed >= 5


def test_potential_shaping_telescopes_to_the_score():
    """With gamma = 1 the shaping terms cancel over an episode (phi is 0 at the start and the end)."""
    compiled = load_level("level_1")
    world = World(compiled, n_agents=2, tau=2.0, seed=0)
    world.reset()
    reward = make_reward("potential", compiled, gamma=1.0)
    reward.reset(world)
    planner = make_policy("planner")
    total, shaped_seen = 0.0, False
    while not world.done:
        before = world.counts
        r = reward(world, world.step(planner.act_world(world)))
        after = world.counts
        shaped_seen |= r != (after.completed - before.completed) - (after.failed - before.failed)
        total += r
    assert shaped_seen
    assert total == pytest.approx(world.counts.completed - world.counts.failed)


def test_dense_reward_credits_recipe_work_before_the_first_dish():
    rewards, _ = _planner_rewards("dense")
    first_serve = next(i for i, r in enumerate(_planner_rewards("sparse")[0]) if r > 0)
    assert sum(rewards[:first_serve]) > 0  # ingredients fetched and nodes made toward open orders
    progress = RecipeProgress(load_level("level_1"))
    assert max(progress.size[d] for d in progress.trees) * progress.scale == pytest.approx(0.5)


def test_unknown_reward_is_refused():
    with pytest.raises(ValueError, match="reward"):
        CuisineJointEnv("level_0", reward="shiny")


def test_envs_and_cli_import_no_torch():
    """torch and the trainers load only when training or when a trained policy plays."""
    import subprocess
    import sys

    code = ("import sys, mindagent.cli, cuisineworld.adapter.rl; "
            "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _fetch_and_discard(reward_name: str) -> tuple[float, int]:
    """agent0 fetches an ingredient an open order needs and puts it straight back, for 60 steps.

    Returns the reward minus its served and expired terms (what the loop itself earned) and how
    many ingredients were fetched."""
    level = load_level("level_4")
    world = World(level, n_agents=2, tau=1.0, seed=0)
    world.reset()
    reward = make_reward(reward_name, level)
    reward.reset(world)
    weights = DenseWeights()
    earned, fetched = 0.0, 0
    r = reward(world, world.step(["goto_agent0_storage0", "noop_agent1"]))
    while not world.done:
        before = world.counts
        if world.agent_holding(0) is not None:
            command = "put_agent0_storage0"
        else:
            needed = [item for order in world.orders for item in sorted(subtree_counts(level, order.dish))
                      if level.recipe_for(item) is None]
            command = f"get_agent0_{needed[0]}_storage0" if needed else "noop_agent0"
            fetched += bool(needed)
        r = reward(world, world.step([command, "noop_agent1"]))
        after = world.counts
        done, failed = after.completed - before.completed, after.failed - before.failed
        earned += r - (1.0 + weights.served) * done + (1.0 + weights.expired) * failed
    return earned, fetched


def test_fetching_and_discarding_ingredients_no_longer_pays():
    """The loop that farmed dense-v1 on level_4: each new order paid its fetch credit again."""
    farmed, fetched = _fetch_and_discard("dense-v1")
    assert fetched >= 20
    assert farmed >= 0.5  # dense-v1: several orders' worth of fetch credit for no cooking
    earned, fetched_again = _fetch_and_discard("dense")
    assert fetched_again == fetched
    assert earned <= 0.0  # the potential gives each fetch back when the ingredient goes back
