"""The proxy's design choices (`overcooked_game.bc.recipe`): each is an option, recorded in meta.json, and
acts; folders trained before they were recorded still load as the design they were; the BC pair
(the yardstick of a design) plays reproducibly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest


def test_a_proxy_learned_from_the_test_trials_is_judged_on_the_training_ones(trials: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    import torch

    from overcooked_game.bc.data import load_transitions
    from overcooked_game.bc.policy import BCPolicy
    from overcooked_game.bc.train import train

    result = train("forced_coordination", tmp_path / "fc", epochs=3, seed=2, limit=400, history=0, trials="test",
                   activation="tanh", keep="last")
    meta = result.meta
    assert (meta.trials, meta.activation, meta.keep, meta.history) == ("test", "tanh", "last", 0)
    assert meta.feature_size == BCPolicy.load(result.out).featurizer.size  # state only: no key history
    written = json.loads((result.out / "meta.json").read_text())
    assert (written["trials"], written["activation"], written["keep"]) == ("test", "tanh", "last")
    assert "trials='test'" in written["command"] and "activation='tanh'" in written["command"]
    # held out: both people of every (limited) training-split row, which has a different length from the test split's
    assert meta.heldout_examples == 2 * len(load_transitions("forced_coordination", "train", 400))
    network = BCPolicy.load(result.out).network
    assert any(isinstance(layer, torch.nn.Tanh) for layer in network) and not any(
        isinstance(layer, torch.nn.ReLU) for layer in network)


def test_keeping_the_last_epoch_differs_from_keeping_the_best_only_when_the_best_was_earlier(
        trials: dict[str, Path], tmp_path: Path) -> None:
    import torch

    from overcooked_game.bc.train import train

    runs = {keep: train("cramped_room", tmp_path / keep, epochs=4, seed=1, limit=300, keep=keep)  # type: ignore[arg-type]
            for keep in ("best", "last")}
    assert runs["best"].meta.best_epoch == runs["last"].meta.best_epoch  # the same training, only the kept weights differ
    best, last = (torch.load(runs[k].out / "policy.pt", weights_only=True) for k in ("best", "last"))
    same = all(torch.equal(best[name], last[name]) for name in best)
    assert same == (runs["best"].meta.best_epoch == 4)


def test_a_folder_trained_before_the_choices_were_recorded_loads_as_our_first_design(tiny_policy,
                                                                                     tmp_path: Path) -> None:
    from overcooked_game.bc.policy import BCPolicy
    from overcooked_game.bc.recipe import DESIGNS

    old = tmp_path / "old"
    shutil.copytree(tiny_policy.out, old)
    meta = json.loads((old / "meta.json").read_text())
    for key in ("trials", "activation", "keep"):
        meta.pop(key)
    (old / "meta.json").write_text(json.dumps(meta))
    loaded = BCPolicy.load(old).meta
    first = DESIGNS["mindagent-v1"]
    assert (loaded.trials, loaded.activation, loaded.keep) == (first.trials, first.activation, first.keep)


def test_the_named_designs_say_what_differs() -> None:
    from overcooked_game.bc.recipe import CARROLL_EPOCHS, DESIGNS, other_split

    carroll, first = DESIGNS["carroll"], DESIGNS["mindagent-v1"]
    assert (carroll.history, carroll.trials, carroll.activation, carroll.keep) == (0, "test", "tanh", "last")
    assert (first.history, first.trials, first.activation, first.keep) == (4, "train", "relu", "best")
    assert [carroll.epochs_for(name) for name in CARROLL_EPOCHS] == [100, 120, 120, 90, 110]
    assert first.epochs_for("forced_coordination") == 100
    assert other_split("test") == "train" and other_split("train") == "test"


@pytest.mark.parametrize(("kwargs", "words"), [({"trials": "dev"}, "trials"), ({"activation": "gelu"}, "activation"),
                                               ({"keep": "median"}, "keep")])
def test_an_unknown_choice_is_refused_before_any_work(kwargs: dict[str, str], words: str, tmp_path: Path) -> None:
    from overcooked_game.bc.train import train

    with pytest.raises(ValueError, match=words):
        train("cramped_room", tmp_path / "never", **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "never").exists()


def test_the_bc_pair_plays_a_whole_episode_reproducibly(tiny_policy) -> None:
    from overcooked_game.bc.errors import PolicyLoadError
    from overcooked_game.bc.pair import measure, play

    layout = tiny_policy.meta.layout
    rewards = [play(layout, tiny_policy.out, tiny_policy.out, seed) for seed in (4, 4, 5)]
    assert rewards[0] == rewards[1] and all(r % 20 == 0 and r >= 0 for r in rewards)
    # the episode `--partners bc:DIR` plays: one BCProxy per chef, each seeded with the episode's seed
    from overcooked_game.bc.proxy import BCProxy
    from overcooked_game.layouts import load_layout
    from overcooked_game.session import OvercookedSession

    session = OvercookedSession(load_layout(layout))
    session.engine.reset()
    proxies = [BCProxy(tiny_policy.out, 4), BCProxy(tiny_policy.out, 4)]
    for proxy in proxies:
        proxy.reset(session)
    while not session.done:
        session.step_now([proxy.act_for(session, [chef])[0] for chef, proxy in enumerate(proxies)])
    assert session.engine.reward == rewards[0]
    result = measure(layout, tiny_policy.out, tiny_policy.out, range(4, 5))
    assert result.first == (rewards[0],) and result.seeds == (4,)
    with pytest.raises(PolicyLoadError, match="trained on coordination_ring"):
        play("cramped_room", tiny_policy.out, tiny_policy.out, 0)
