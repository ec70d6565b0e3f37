"""Cross-play cells, their CoS and interval, and the planner clone used as a partner."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuisineworld import World, load_level
from cuisineworld.adapter.rl.crossplay import Episode, cos, interval, make_player, play_cell


def test_cos_pools_episodes_per_tau_and_the_interval_brackets_it() -> None:
    cell = [Episode(1.0, 2, 10), Episode(1.0, 4, 10), Episode(3.0, 3, 4), Episode(3.0, 1, 4)]
    assert cos(cell) == pytest.approx((6 / 20 + 4 / 8) / 2)
    low, high = interval(cell, resamples=500)
    assert low <= cos(cell) <= high and low < high
    steady = [Episode(1.0, 3, 6)] * 4
    assert interval(steady, resamples=200) == pytest.approx((0.5, 0.5))


def test_a_cell_is_reproducible_and_seats_are_played_by_their_own_player() -> None:
    def run() -> list[Episode]:
        return play_cell("level_0", make_player("planner"), make_player("random", 1), (1.0, 3.0), episodes=1)

    first = run()
    assert first == run()
    assert [e.tau for e in first] == [1.0, 3.0] and all(0 <= e.completed <= e.total for e in first)
    planner = make_player("planner")
    together = play_cell("level_0", planner, planner, (3.0,), episodes=1)  # one player in both seats: one team
    assert together[0].completed >= first[1].completed


def test_unknown_players_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown player 'bc'"):
        make_player("bc")


@pytest.mark.slow
def test_clone_and_trained_policy_as_partners(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from cuisineworld.adapter.rl.planner_clone import CloneConfig, fit_clone, load_clone
    from cuisineworld.adapter.rl.train import TrainConfig, train

    meta = fit_clone(CloneConfig("level_0", 2, taus=(3.0,), episodes=3, epochs=20), tmp_path / "clone")
    assert meta["samples"] == 180 and 0.0 <= meta["held_out_accuracy"] <= 1.0
    clone = load_clone(tmp_path / "clone")
    world = World(load_level("level_0"), n_agents=2, tau=3.0, seed=0)
    world.reset()
    masks = clone.table.masks(world)
    assert all(masks[a, pick] for a, pick in enumerate(clone.actions(world)))  # legal picks only
    train(TrainConfig(level="level_0", steps=512, n_envs=16, n_steps=32, taus=(3.0,), out=tmp_path / "run", vec="batched"))
    policy = make_player(f"policy:{tmp_path / 'run'}")
    cell = play_cell("level_0", policy, make_player(f"clone:{tmp_path / 'clone'}"), (3.0,), episodes=2)
    assert len(cell) == 2 and all(e.total > 0 for e in cell)
