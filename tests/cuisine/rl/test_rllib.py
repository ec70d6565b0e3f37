"""`mindagent train --backend rllib`: masked PPO on a local Ray over the PettingZoo env, played like any policy."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

import torch
from gymnasium import spaces

from cuisineworld.adapter.rl import CuisineParallelEnv
from cuisineworld.adapter.rl.rllib_module import MASK_KEY, OBS_KEY, MaskedActorCritic
from cuisineworld.adapter.rl.rllib_train import load_modules
from mindagent.cli import app

runner = CliRunner()
# 4 envs x 128 steps: 512 joint steps per PPO iteration; one local Ray CPU, sampling in-process
TRAIN = ["train", "--backend", "rllib", "--level", "level_0", "--agents", "2", "--taus", "3.0", "--envs", "4",
         "--rollout", "128", "--seed", "0"]


def _module(actions: int = 7, size: int = 5) -> MaskedActorCritic:
    observation = spaces.Dict({OBS_KEY: spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32),
                               MASK_KEY: spaces.Box(0, 1, shape=(actions,), dtype=np.int8)})
    return MaskedActorCritic(observation_space=observation, action_space=spaces.Discrete(actions),
                             model_config={"hidden": [16]})


def test_masked_actions_get_no_probability():
    """Whatever the (untrained) weights say, sampling, the greedy pick and the train pass keep to the mask."""
    torch.manual_seed(0)
    module = _module()
    rng = np.random.default_rng(0)
    masks = (rng.random((64, 7)) < 0.3).astype(np.float32)
    masks[np.arange(64), rng.integers(0, 7, 64)] = 1.0  # at least one legal action per row
    vectors = torch.from_numpy(rng.random((64, 5), dtype=np.float32))
    legal = torch.from_numpy(masks)
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        picks = module.sample(vectors, legal, generator)
        assert bool(legal[torch.arange(64), picks].all())
    assert bool(legal[torch.arange(64), module.greedy(vectors, legal)].all())
    out = module.forward_train({"obs": {OBS_KEY: vectors, MASK_KEY: legal}})
    probs = torch.softmax(out["action_dist_inputs"], dim=-1)
    assert float(probs[legal == 0].max().detach()) == 0.0
    assert torch.isfinite(out["action_dist_inputs"]).all()
    assert module.compute_values({"obs": {OBS_KEY: vectors, MASK_KEY: legal}}).shape == (64,)


def test_rllib_options_are_refused_in_one_line(tmp_path: Path):
    result = runner.invoke(app, [*TRAIN, "--policies", "each", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--policies must be one of shared, per-agent" in result.output


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rllib")
    result = runner.invoke(app, [*TRAIN, "--steps", "1536", "--checkpoint-every", "1024", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.slow
def test_rllib_run_folder_matches_the_sb3_layout(trained: Path):
    with (trained / "progress.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [int(float(r["time/total_timesteps"])) for r in rows] == [512, 1024, 1536]  # three PPO iterations
    # finished episodes fill the completion column (RLlib reports an episode in the iteration whose
    # samples reach its end, which depends on how its env runner cut the fragments: not every row)
    assert rows[-1]["rollout/completion"] != "" and 0.0 <= float(rows[-1]["rollout/completion"]) <= 1.0
    meta = json.loads((trained / "policy.json").read_text())
    assert meta["backend"] == "rllib" and meta["trained_steps"] == 1536
    assert meta["modules"] == {"agent0": "shared", "agent1": "shared"}
    assert sorted(p.name for p in (trained / "checkpoints").iterdir()) == ["rllib_1024_steps"]
    assert (trained / "checkpoint").is_dir()
    assert any(p.name.startswith("events.out.tfevents") for p in trained.iterdir())  # TensorBoard logs


@pytest.mark.slow
def test_rllib_policy_is_evaluated_like_any_dispatcher(trained: Path, tmp_path: Path):
    for spec in (f"policy:{trained}", f"policy:{trained / 'checkpoints' / 'rllib_1024_steps'}?sample"):
        out = tmp_path / "eval.json"
        result = runner.invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--taus", "3.0", "--episodes", "2",
                                     "--model", spec, "--out", str(out)])
        assert result.exit_code == 0, result.output
        cells = json.loads(out.read_text())["cells"]
        assert [t["steps"] for t in cells[0]["taus"]] == [120]
        out.unlink()
    result = runner.invoke(app, ["run", "--level", "level_1", "--agents", "2", "--out-dir", str(tmp_path),
                                 "--model", f"policy:{trained}"])
    assert result.exit_code == 2 and "trained on level_0 with 2 agents, not level_1" in result.output


@pytest.mark.slow
def test_sampling_rllib_policy_is_seeded(trained: Path, tmp_path: Path):
    """Same seed, same episode: the sampled commands come from the dispatcher's seeded generator."""
    played = []
    for name in ("a", "b"):
        result = runner.invoke(app, ["run", "--level", "level_0", "--agents", "2", "--tau", "3.0", "--json", "--out-dir",
                                     str(tmp_path / name), "--model", f"policy:{trained}?sample"])
        assert result.exit_code == 0, result.output
        (recording,) = (tmp_path / name).glob("*.jsonl")
        steps = [json.loads(line) for line in recording.read_text().splitlines()]
        played.append([s["commands"] for s in steps if s.get("type") == "step"])
    assert len(played[0]) == 60 and played[0] == played[1]
    assert len({c for step in played[0] for c in step}) > 4  # it plays, not idles


@pytest.mark.slow
def test_trained_modules_only_pick_legal_commands(trained: Path):
    """Sampling from the trained network in the env: every pick is in the mask, agent0's is always accepted."""
    modules = load_modules(trained / "checkpoint")
    assert list(modules) == ["shared"]
    env = CuisineParallelEnv("level_0", n_agents=2, tau=3.0, obs_type="dict")
    obs, _ = env.reset(seed=3)
    generator = torch.Generator().manual_seed(0)
    while env.agents:
        vectors = torch.from_numpy(np.stack([obs[a][OBS_KEY] for a in env.agents]))
        masks = torch.from_numpy(np.stack([obs[a][MASK_KEY] for a in env.agents]).astype(np.float32))
        picks = modules["shared"].sample(vectors, masks, generator).tolist()
        assert all(masks[i, p] == 1 for i, p in enumerate(picks))
        obs, _, _, _, infos = env.step(dict(zip(env.agents, picks, strict=True)))
        assert all(info["accepted"] for agent, info in infos.items() if agent == "agent0")


@pytest.mark.slow
def test_per_agent_policies(tmp_path: Path):
    result = runner.invoke(app, [*TRAIN, "--policies", "per-agent", "--steps", "512", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "policy.json").read_text())
    assert meta["modules"] == {"agent0": "agent0", "agent1": "agent1"}
    assert sorted(load_modules(tmp_path / "checkpoint")) == ["agent0", "agent1"]
    result = runner.invoke(app, ["run", "--level", "level_0", "--agents", "2", "--tau", "3.0", "--json", "--out-dir",
                                 str(tmp_path / "rec"), "--model", f"policy:{tmp_path}?sample"])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "rec").glob("*.jsonl"))) == 1


@pytest.mark.slow
def test_rllib_loss_columns_use_the_sb3_names_and_signs(trained: Path):
    with (trained / "progress.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    last = rows[-1]
    for column in ("train/policy_gradient_loss", "train/value_loss", "train/entropy_loss"):
        assert last[column] != "", column
    assert float(last["train/entropy_loss"]) < 0  # SB3 logs minus the entropy; RLlib's own "entropy" is positive
    assert "train/policy_loss" not in last and "train/entropy" not in last
