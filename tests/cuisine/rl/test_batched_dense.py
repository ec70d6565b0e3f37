"""The batched kitchens' dense reward and shuffled execution order equal the single env's, step by step.

`_play_against_engine` compares every step's reward as floats (``==``, not approximately), the
observations, masks, accepted flags and scores, against one `CuisineJointEnv` per kitchen given the
same joint actions: the dense reward's ledger, potential and term order, and the shuffle's
permutations (drawn from each kitchen's own generator) must all agree for that to hold.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cuisine.rl.test_batched import _play_against_engine


@pytest.mark.parametrize(("level", "agents", "taus", "rules", "order"), [
    ("level_1", 2, (1.0, 2.0, 3.0), "reference", "agent"),
    ("level_4", 2, (1.0, 2.5), "reference", "agent"),
    ("level_3", 3, (1.0,), "fixed", "shuffle"),
    ("level_11", 2, (2.0,), "reference", "shuffle"),  # 18 items: recipes checked combo by combo
])
def test_dense_reward_and_order_match_the_single_env(level: str, agents: int, taus: tuple[float, ...], rules: str,
                                                     order: str) -> None:
    tally = _play_against_engine(level, rules, agents, worlds=6, steps=130, taus=taus, reward="dense", seed=5,
                                 p_planner=0.9, p_illegal=0.1, order=order)
    assert tally.steps == 780 and tally.episodes >= 6
    assert tally.completed > 0 and tally.refused > 0  # served, expired and refused terms all paid
    assert "activate" in tally.kinds  # the ledger credited made nodes


@pytest.mark.parametrize("reward", ["sparse", "potential"])
def test_shuffled_order_with_the_other_rewards(reward: str) -> None:
    tally = _play_against_engine("level_2", "reference", 3, worlds=4, steps=70, taus=(1.0, 2.5), reward=reward, seed=2,
                                 p_planner=0.8, p_illegal=0.2, order="shuffle")
    assert tally.episodes >= 4


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(["level_0", "level_2", "level_4", "level_9"]), rules=st.sampled_from(["reference", "fixed"]),
       agents=st.integers(1, 4), order=st.sampled_from(["agent", "shuffle"]), seed=st.integers(0, 10_000),
       p_planner=st.floats(0.0, 1.0), p_illegal=st.floats(0.0, 0.5))
def test_dense_reward_matches_on_drawn_games(level: str, rules: str, agents: int, order: str, seed: int,
                                             p_planner: float, p_illegal: float) -> None:
    _play_against_engine(level, rules, agents, worlds=3, steps=65, taus=(1.0, 2.5), reward="dense", seed=seed,
                         p_planner=p_planner, p_illegal=p_illegal, order=order)
