"""The trained proxy as a partner chef: loads, acts on package states, reproducible, unsticks, refuses bad folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from overcooked_game.bc.errors import PolicyLoadError
from overcooked_game.bc.layouts import resolve


def _play(policy_dir: Path, layout: str, seed: int, steps: int) -> list[tuple]:
    """Two proxies from one folder play `steps` timesteps of the package's own game."""
    from overcooked_game.bc.parse import make_mdp
    from overcooked_game.bc.policy import BCPolicy

    mdp = make_mdp(resolve(layout))
    chefs = BCPolicy.load(policy_dir, mdp=mdp)
    rng = np.random.default_rng(seed)
    state = mdp.get_standard_start_state()
    trace = []
    for _ in range(steps):
        joint = tuple(chefs.act(state, index, rng) for index in (0, 1))
        state = mdp.get_state_transition(state, joint)[0]
        trace.append((joint, state.players_pos_and_or))
    return trace


def test_a_loaded_proxy_plays_the_package_game_reproducibly(tiny_policy) -> None:
    import overcooked

    layout = tiny_policy.meta.layout
    first = _play(tiny_policy.out, layout, seed=11, steps=80)
    assert all(action in overcooked.Action.ALL_ACTIONS for joint, _ in first for action in joint)
    assert len({where for _, where in first}) > 3, "the chefs move around"
    assert first == _play(tiny_policy.out, layout, seed=11, steps=80)
    assert first != _play(tiny_policy.out, layout, seed=12, steps=80)


def test_argmax_mode_and_probabilities(tiny_policy, trials) -> None:
    from overcooked_game.bc.data import load_transitions
    from overcooked_game.bc.policy import BCPolicy

    state = load_transitions(tiny_policy.meta.layout, "test", limit=50)[40].state
    greedy = BCPolicy.load(tiny_policy.out, sample=False)
    probs = greedy.probabilities(state, 1)
    assert probs.shape == (6,) and abs(probs.sum() - 1.0) < 1e-9 and (probs > 0).all()
    picks = {greedy.act_index(state, 1, np.random.default_rng(s)) for s in range(5)}
    assert picks == {int(np.argmax(probs))}  # the same state, a new episode each time: no history yet
    with pytest.raises(ValueError, match="player_index"):
        greedy.act(state, 2, np.random.default_rng(0))


def test_a_chef_that_stands_still_stops_repeating_what_failed(tiny_policy) -> None:
    import overcooked
    import torch

    from overcooked_game.bc.features import Featurizer
    from overcooked_game.bc.model import ACTION_NAMES
    from overcooked_game.bc.parse import make_mdp
    from overcooked_game.bc.policy import BCPolicy

    meta = tiny_policy.meta
    network = torch.nn.Linear(meta.feature_size, 6)
    with torch.no_grad():  # a network that always prefers stay, then up, then interact, then the rest
        network.weight.zero_()
        network.bias.copy_(torch.tensor([4.0, 0.0, 0.0, 0.0, 5.0, 3.0]))
    featurizer = Featurizer(meta.terrain)
    still = overcooked.OvercookedState.from_dict(
        {"players": [{"position": p.position, "orientation": p.orientation} for p in
                     make_mdp(resolve(meta.layout)).get_standard_start_state().players], "objects": []})

    def run(policy: BCPolicy, timesteps: list[int]) -> list[str]:
        chosen = []
        for t in timesteps:
            still.timestep = t
            chosen.append(ACTION_NAMES[policy.act_index(still, 0, np.random.default_rng(0))])
        return chosen

    unsticking = BCPolicy(network, meta, featurizer, sample=False)
    assert run(unsticking, [0, 1, 2, 3, 4, 5, 6]) == ["stay", "stay", "stay", "up", "interact", "down", "stay"]
    assert run(unsticking, [9, 10]) == ["stay", "stay"]  # a gap in timesteps: a new episode, a fresh history
    assert run(BCPolicy(network, meta, featurizer, sample=False, stuck_time=0), [0, 1, 2, 3, 4]) == ["stay"] * 5


def test_bad_policy_folders_are_one_clear_error(tiny_policy, tmp_path: Path) -> None:
    from overcooked_game.bc.parse import make_mdp
    from overcooked_game.bc.policy import BCPolicy

    def refused(folder: Path, **kwargs) -> str:
        with pytest.raises(PolicyLoadError) as caught:
            BCPolicy.load(folder, **kwargs)
        assert "\n" not in str(caught.value)
        return str(caught.value)

    assert "not a behaviour-cloning policy folder" in refused(tmp_path / "missing")
    copy = tmp_path / "copy"
    shutil.copytree(tiny_policy.out, copy)
    assert "trained on coordination_ring" in refused(copy, mdp=make_mdp(resolve("cramped_room")))
    (copy / "policy.pt").write_bytes(b"not a torch file")
    assert "does not hold this policy's weights" in refused(copy)
    (copy / "meta.json").write_text('{"layout": "cramped_room"}')
    assert "not a valid policy description" in refused(copy)


@pytest.mark.slow
def test_two_proxies_trained_on_a_whole_layout_cook_and_deliver(trials, tmp_path: Path) -> None:
    """The whole cramped_room training set, then three seeded 400-timestep games of the package's own
    MDP (the trials' dynamics): people's clones are slow, but between them they deliver soups."""
    from overcooked_game.bc.parse import make_mdp
    from overcooked_game.bc.policy import BCPolicy
    from overcooked_game.bc.train import train

    result = train("cramped_room", tmp_path / "cr", epochs=40, seed=0)
    # the default design (Carroll et al.'s: last epoch kept) overfits, so its most likely key is right
    # less often than "stay" is; what a sampling proxy plays by is its probabilities, and those fit
    # held-out people better than the keys' frequencies alone
    assert result.meta.heldout_loss is not None and result.meta.heldout_prior_loss is not None
    assert result.meta.heldout_loss < result.meta.heldout_prior_loss
    mdp = make_mdp(resolve("cramped_room"))
    chefs = BCPolicy.load(result.out, mdp=mdp)
    rewards = []
    for seed in range(3):
        rng, state, total = np.random.default_rng(seed), mdp.get_standard_start_state(), 0
        for _ in range(400):
            state, info = mdp.get_state_transition(state, tuple(chefs.act(state, i, rng) for i in (0, 1)))
            total += sum(info["sparse_reward_by_agent"])
        rewards.append(total)
    assert sum(rewards) >= 40, rewards  # at least two soups over the three games
