"""Training a tiny proxy on a slice of the trials: it learns something, and the same seed gives the same weights."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_a_tiny_proxy_predicts_people_better_than_always_staying(tiny_policy) -> None:
    meta = tiny_policy.meta
    assert meta.limit is not None and meta.heldout_examples == 2 * meta.limit  # both people of every held-out row
    assert 0.0 < meta.heldout_majority_rate < 1.0
    assert meta.heldout_accuracy > meta.heldout_majority_rate + 0.02
    # and its probabilities fit people better than the keys' frequencies alone (what a sampling proxy plays by)
    assert meta.heldout_loss is not None and meta.heldout_prior_loss is not None
    assert meta.heldout_loss < meta.heldout_prior_loss - 0.05
    assert meta.trials == "test"  # the default design learns from the test trials, as Carroll et al.'s proxy did
    assert meta.train_examples + meta.validation_examples == 2 * meta.limit
    assert 1 <= meta.best_epoch <= meta.epochs


def test_the_folder_holds_small_weights_and_a_readable_description(tiny_policy) -> None:
    weights, meta_file = tiny_policy.out / "policy.pt", tiny_policy.out / "meta.json"
    assert weights.stat().st_size < 200_000
    written = json.loads(meta_file.read_text())
    assert written["layout"] == tiny_policy.meta.layout and written["seed"] == tiny_policy.meta.seed
    assert written["feature_size"] == tiny_policy.meta.feature_size
    assert {"overcooked", "torch", "numpy", "pandas"} <= set(written["versions"])
    assert written["versions"]["torch"] != "absent"
    assert written["heldout_accuracy"] == tiny_policy.meta.heldout_accuracy
    assert written["command"].startswith("train(")


def test_the_same_seed_trains_the_same_weights(trials: dict[str, Path], tmp_path: Path) -> None:
    import torch

    from overcooked_game.bc.train import train

    runs = [train("forced_coordination", tmp_path / name, epochs=2, seed=seed, limit=300) for name, seed in
            (("a", 5), ("b", 5), ("c", 6))]
    weights = [torch.load(run.out / "policy.pt", weights_only=True) for run in runs]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert runs[0].meta.heldout_accuracy == runs[1].meta.heldout_accuracy
    assert not all(torch.equal(weights[0][k], weights[2][k]) for k in weights[0])  # the seed matters


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"epochs": 0}, "epochs"), ({"limit": 3}, "--limit"), ({"history": -1}, "history"), ({"batch_size": 0}, "batch size")])
def test_bad_training_arguments_are_refused_before_any_work(kwargs: dict[str, int], words: str, tmp_path: Path) -> None:
    from overcooked_game.bc.train import train

    with pytest.raises(ValueError, match=words):
        train("cramped_room", tmp_path / "never", **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "never").exists()
