"""PPO knobs on `mindagent train` (--lr-schedule, --ent-coef, --epochs, --batch-size, --net-arch) reach the trainer and policy.json."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("sb3_contrib")

from cuisineworld.adapter.rl.seeds import run_seed
from cuisineworld.adapter.rl.train import TrainConfig, learning_rate
from mindagent.cli import app

runner = CliRunner()
TINY = ["train", "--level", "level_0", "--agents", "2", "--taus", "3.0", "--envs", "2", "--rollout", "64",
        "--steps", "512", "--checkpoint-every", "256"]


def _rates(folder: Path) -> list[float]:
    with (folder / "progress.csv").open() as fh:
        return [float(row["train/learning_rate"]) for row in csv.DictReader(fh) if row.get("train/learning_rate")]


def test_linear_schedule_runs_down_to_zero_at_the_budget():
    config = TrainConfig(learning_rate=1e-3, lr_schedule="linear")
    schedule = learning_rate(config)
    assert callable(schedule)
    assert schedule(1.0) == pytest.approx(1e-3) and schedule(0.25) == pytest.approx(2.5e-4) and schedule(0.0) == 0.0
    assert learning_rate(TrainConfig(learning_rate=1e-3)) == 1e-3


@pytest.mark.parametrize("bad, words", [({"lr_schedule": "cosine"}, "--lr-schedule must be one of constant, linear"),
                                        ({"ent_coef": -0.1}, "--ent-coef not negative"),
                                        ({"n_epochs": 0}, "--epochs must be positive"),
                                        ({"batch_size": 1}, "--batch-size must be at least 2"),
                                        ({"lr_schedule": "linear", "backend": "rllib"}, "sb3 backend only")])
def test_bad_knobs_are_refused_in_one_line(bad: dict[str, object], words: str):
    with pytest.raises(ValueError, match=words):
        TrainConfig(level="level_0", **bad).check()  # type: ignore[arg-type]


def test_cli_refuses_a_bad_schedule(tmp_path: Path):
    result = runner.invoke(app, [*TINY, "--lr-schedule", "cosine", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--lr-schedule must be one of" in result.output


@pytest.mark.parametrize("widths", ["0,64", "wide", ""])
def test_cli_refuses_bad_layer_widths(tmp_path: Path, widths: str):
    result = runner.invoke(app, [*TINY, "--net-arch", widths, "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--net-arch takes positive layer widths" in result.output


@pytest.mark.slow
def test_knobs_reach_the_trainer_and_the_policy_file(tmp_path: Path):
    out = tmp_path / "run"
    result = runner.invoke(app, [*TINY, "--learning-rate", "1e-3", "--lr-schedule", "linear", "--ent-coef", "0.03",
                                 "--epochs", "2", "--batch-size", "32", "--net-arch", "16,16",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "policy.json").read_text())
    assert (meta["lr_schedule"], meta["ent_coef"], meta["n_epochs"], meta["batch_size"]) == ("linear", 0.03, 2, 32)
    assert meta["net_arch"] == [16, 16]
    rates = _rates(out)
    assert len(rates) >= 2 and rates == sorted(rates, reverse=True) and rates[-1] < rates[0] < 1e-3


@pytest.mark.slow
def test_a_run_from_before_a_knob_existed_is_reused_at_its_default(tmp_path: Path):
    """policy.json files written before lr_schedule existed ran at constant; --seeds must not retrain them."""
    config = TrainConfig(level="level_0", agents=2, taus=(3.0,), n_envs=2, n_steps=64, batch_size=64, steps=256,
                         checkpoint_every=128, out=tmp_path / "seed_0")
    first = run_seed(config)
    meta_path = tmp_path / "seed_0" / "policy.json"
    meta = json.loads(meta_path.read_text())
    assert meta["lr_schedule"] == asdict(config)["lr_schedule"] == "constant"
    del meta["lr_schedule"]
    meta_path.write_text(json.dumps(meta))
    again = run_seed(config)
    assert again.reused and again.cos == first.cos


@pytest.mark.slow
def test_scores_are_remembered_per_file_and_protocol(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Checkpoint selection plays each checkpoint once: a rerun reads scores.json, a changed file is played again."""
    from cuisineworld.adapter.rl import seeds

    config = TrainConfig(level="level_0", agents=2, taus=(3.0,), n_envs=2, n_steps=64, batch_size=64, steps=256,
                         checkpoint_every=128, out=tmp_path / "run")
    run = run_seed(config, select_seed=1)
    cache = json.loads((tmp_path / "run" / seeds.SCORES_FILE).read_text())
    assert {k.split("|")[-2] for k in cache} == {"seed 0", "seed 1"}
    played: list[str] = []
    real = seeds.evaluate_cos

    def counting(model: str, *args: object, **kwargs: object) -> tuple[float, tuple[float, ...]]:
        played.append(model)
        return real(model, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(seeds, "evaluate_cos", counting)
    again = run_seed(config, select_seed=1)
    assert played == [] and (again.cos, again.model, again.selected_by) == (run.cos, run.model, run.selected_by)
    model = Path(run.model)
    model.write_bytes(model.read_bytes() + b"\0")  # zip readers tolerate trailing bytes; the sha256 changes
    seeds.scored(model, "level_0", 2)
    assert played == [f"policy:{model}"]
