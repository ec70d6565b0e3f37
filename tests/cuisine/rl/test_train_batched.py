"""`mindagent train --vec batched` trains on the batched kitchens and writes what the default path writes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("sb3_contrib")

from mindagent.cli import app

runner = CliRunner()
TRAIN = ["train", "--level", "level_0", "--agents", "2", "--taus", "1.0,3.0", "--envs", "64", "--rollout", "32",
         "--seed", "0", "--steps", "4096", "--checkpoint-every", "2048"]


def _run(out: Path, *extra: str) -> None:
    result = runner.invoke(app, [*TRAIN, "--out", str(out), *extra])
    assert result.exit_code == 0, result.output


def test_batched_training_writes_the_default_paths_outputs(tmp_path: Path) -> None:
    single, batched = tmp_path / "single", tmp_path / "batched"
    _run(single)
    _run(batched, "--vec", "batched")
    for run in (single, batched):
        assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["model_2048_steps.zip", "model_4096_steps.zip"]
        assert (run / "model.zip").is_file()
    with (single / "progress.csv").open() as a, (batched / "progress.csv").open() as b:
        one, other = list(csv.DictReader(a)), list(csv.DictReader(b))
    assert set(one[0]) == set(other[0]) and "rollout/completion" in other[0]  # the same columns
    assert len(one) == len(other) == 2  # one row per PPO update: 64 envs x 32 steps
    assert any(row["rollout/completion"] for row in other)  # episodes ended and were counted
    meta = json.loads((batched / "policy.json").read_text())
    assert meta["vec"] == "batched" and meta["trained_steps"] == 4096
    assert {k: v for k, v in meta.items() if k not in ("vec", "seconds", "out")} == {
        k: v for k, v in json.loads((single / "policy.json").read_text()).items() if k not in ("vec", "seconds", "out")}


def test_batched_training_is_deterministic_with_the_shuffled_order(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _run(first, "--vec", "batched", "--order", "shuffle")
    _run(second, "--vec", "batched", "--order", "shuffle")
    rows = [[{k: v for k, v in row.items() if not k.startswith("time/")} for row in csv.DictReader(p.open())]
            for p in (first / "progress.csv", second / "progress.csv")]
    assert rows[0] == rows[1]


@pytest.mark.parametrize(("extra", "reason"), [
    (["--reward", "dense-v1"], "--vec batched computes the rewards sparse, potential, dense, not 'dense-v1'"),
    (["--level", "pass_sushi"], "counters or per-agent reach"),
    (["--backend", "rllib"], "--vec batched trains with the sb3 backend"),
    (["--vec", "threads"], "--vec must be one of single, batched"),
])
def test_what_batched_cannot_train_is_refused_in_one_line(tmp_path: Path, extra: list[str], reason: str) -> None:
    args = [*TRAIN, "--out", str(tmp_path / "x"), "--vec", "batched", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert reason in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x").exists()


def test_many_envs_need_the_batched_kitchens(tmp_path: Path) -> None:
    result = runner.invoke(app, [*TRAIN, "--envs", "1024", "--out", str(tmp_path / "x")])
    assert result.exit_code != 0 and "--envs above 256 needs --vec batched" in result.output
