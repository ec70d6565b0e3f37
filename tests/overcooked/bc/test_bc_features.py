"""The features: fixed size, deterministic, symmetric between the chefs, and meaningful on real states."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from overcooked_game.bc.layouts import CLASSIC_NAMES, resolve


@pytest.fixture
def overcooked(trials: dict[str, Path]):
    import overcooked

    return overcooked


@pytest.mark.parametrize("layout", CLASSIC_NAMES)
def test_vectors_are_fixed_size_finite_and_the_same_for_equal_states(layout: str, overcooked) -> None:
    from overcooked_game.bc.data import load_transitions
    from overcooked_game.bc.features import Featurizer
    from overcooked_game.bc.parse import make_mdp

    featurizer = Featurizer(make_mdp(resolve(layout)).terrain_mtx)
    for transition in load_transitions(layout, "test", limit=300)[::7]:
        first, second = featurizer.both(transition.state)
        again = Featurizer(make_mdp(resolve(layout)).terrain_mtx).both(transition.state.deepcopy())
        assert first.shape == second.shape == (featurizer.size,)
        assert np.isfinite(first).all() and first.dtype == np.float32
        assert np.array_equal(first, again[0]) and np.array_equal(second, again[1])
        # chef 1's view of a state is chef 0's view of the state with the chefs swapped
        swapped = transition.state.deepcopy()
        swapped.players = tuple(reversed(swapped.players))
        assert np.array_equal(featurizer(swapped, 0), second)


def test_features_see_what_a_chef_holds_faces_and_where_things_are(overcooked) -> None:
    from overcooked_game.bc.features import BLOCK_SIZE, Featurizer
    from overcooked_game.bc.parse import make_mdp

    mdp = make_mdp(resolve("cramped_room"))  # XXPXX / O  2O / X1  X / XDXSX
    featurizer = Featurizer(mdp.terrain_mtx)
    empty = overcooked.OvercookedState.from_dict({
        "players": [{"position": (1, 1), "orientation": (-1, 0)}, {"position": (3, 2), "orientation": (0, 1)}],
        "objects": []})
    holding = overcooked.OvercookedState.from_dict({
        "players": [{"position": (1, 1), "orientation": (-1, 0), "held_object": {"name": "onion", "position": (1, 1)}},
                    {"position": (3, 2), "orientation": (0, 1)}],
        "objects": [{"name": "soup", "position": (2, 0), "state": ["onion", 3, 20]}]})
    a, b = featurizer(empty, 0), featurizer(holding, 0)
    assert a[:4].tolist() == [0, 0, 0, 1]  # facing west
    assert a[4:8].tolist() == [0, 0, 0, 0] and b[4:8].tolist() == [1, 0, 0, 0]  # empty hands, then an onion
    assert a[8:12].tolist() == [-1, 0, 1, 1]  # the onion dispenser one step west, reachable
    assert not np.array_equal(a[:BLOCK_SIZE], b[:BLOCK_SIZE])  # a ready soup in the pot shows too
    assert a[-2:].tolist() == [2, 1]  # where the partner stands, relative to this chef


def test_history_features_are_one_hot_most_recent_first() -> None:
    from overcooked_game.bc.features import ACTION_SLOTS, history_features

    vector = history_features([0, 5, 4], 2)
    assert vector.shape == (2 * ACTION_SLOTS,)
    assert vector[4] == 1 and vector[ACTION_SLOTS + 5] == 1 and vector.sum() == 2
    assert history_features([], 2)[[6, ACTION_SLOTS + 6]].tolist() == [1, 1]  # nothing pressed yet
    with pytest.raises(ValueError):
        history_features([9], 1)
