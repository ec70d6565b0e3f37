"""The upper bound: its parts are right, and no dispatcher we have beats it."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld import PAPER_TAUS, World, load_level
from cuisineworld.adapter.paper import GPT4_COS, PAPER_AGENT_COUNTS, PAPER_LEVELS
from cuisineworld.adapter.planners import CuisinePlanner, RandomPolicy
from cuisineworld.adapter.planners.evaluate import run_cell
from cuisineworld.adapter.planners.upper_bound import (
    cap_can_bind,
    cos_upper_bound,
    most_on_time,
    order_stream,
    upper_bound,
)
from cuisineworld.levels import level_names


def test_cap_never_binds_with_engine_timing():
    for name in level_names():
        level = load_level(name)
        for tau in (*PAPER_TAUS, 0.5, 5.0):
            assert not cap_can_bind(level, tau)


def test_order_stream_does_not_depend_on_play():
    level = load_level("level_9")
    stream = order_stream(level, 1.0)
    world = World(level, n_agents=3, tau=1.0, seed=0)
    policy = RandomPolicy(4)
    for expected in stream:
        world.reset()
        seen = [(0, o.dish) for o in world.orders]
        while not world.done:
            result = world.step(policy.act_world(world))
            seen.extend((world.time, d) for d in result.arrived)
        assert seen == [(s.arrival, s.dish) for s in expected]


def _brute_force(jobs: list[tuple[int, int]], capacity: int) -> int:
    for k in range(len(jobs), -1, -1):
        for subset in combinations(jobs, k):
            total = 0
            ok = True
            for deadline, work in sorted(subset):
                total += work
                ok = ok and total <= capacity * (deadline + 1)
            if ok:
                return k
    return 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 30)), max_size=8), st.integers(1, 4))
def test_moore_hodgson_is_exact(jobs: list[tuple[int, int]], capacity: int):
    assert most_on_time(jobs, capacity) == _brute_force(jobs, capacity)


def test_bound_is_at_most_one_and_level12_is_capped():
    bound = upper_bound("level_12", 4)
    assert all(0 < t.rate <= 1 for t in bound.taus)
    assert bound.cos < 0.75  # a third of its orders can never be served
    assert cos_upper_bound("level_12", 4) == bound.cos
    assert cos_upper_bound("level_12", 4, "fixed") > bound.cos  # with its fryer


@pytest.mark.slow  # a sweep: the planner on every paper cell
@pytest.mark.parametrize("agents", PAPER_AGENT_COUNTS)
def test_bound_is_above_the_planner_and_random_on_every_paper_cell(agents: int):
    for level in PAPER_LEVELS:
        bound = upper_bound(level, agents)
        cell = run_cell(CuisinePlanner(), level, agents)
        for ours, limit in zip(cell.taus, bound.taus, strict=True):
            assert ours.rate <= limit.rate + 1e-9, (level, agents, ours.tau)
        assert cell.cos <= bound.cos + 1e-9
        assert bound.cos >= GPT4_COS[agents][level]  # the paper's numbers are possible too
    random_cell = run_cell(RandomPolicy(0), "level_0", agents, taus=(1.0, 3.0))
    assert random_cell.cos <= upper_bound("level_0", agents, taus=(1.0, 3.0)).cos
