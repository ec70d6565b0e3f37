"""`mindagent train --seeds`: one run per seed, each scored, a mean with its t interval; reruns reuse finished seeds."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("sb3_contrib")

from cuisineworld.adapter.rl.seeds import SeedRun, summary
from mindagent.cli import app
from mindagent.evaluation.inference import t_interval

runner = CliRunner()
TINY = ["train", "--level", "level_0", "--agents", "2", "--taus", "3.0", "--envs", "2", "--rollout", "64",
        "--steps", "256", "--checkpoint-every", "128"]


@pytest.fixture(scope="module")
def seeds_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("seeds")
    result = runner.invoke(app, [*TINY, "--seeds", "0-2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


@pytest.mark.slow
def test_one_scored_run_per_seed_and_the_interval(seeds_run: tuple[Path, str]):
    out, output = seeds_run
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["seed_0", "seed_1", "seed_2"]
    body = json.loads((out / "seeds.json").read_text())
    assert [r["seed"] for r in body["runs"]] == [0, 1, 2] and body["n"] == 3
    for run in body["runs"]:
        meta = json.loads((Path(run["folder"]) / "policy.json").read_text())
        assert meta["seed"] == run["seed"] and meta["trained_steps"] >= 256
        assert 0.0 <= run["cos"] <= 1.0 and len(run["rates"]) == 5  # the paper's five taus, whatever it trained on
    scores = [r["cos"] for r in body["runs"]]
    assert body["mean"] == pytest.approx(np.mean(scores))
    interval = t_interval(scores)
    assert body["interval"] == pytest.approx([interval.lo, interval.hi])
    assert f"mean CoS {np.mean(scores):.3f}" in output and "n 3" in output
    for seed in (0, 1, 2):
        assert f"seed {seed}: CoS" in output


@pytest.mark.slow
def test_a_rerun_reuses_finished_seeds_and_trains_the_new_one(seeds_run: tuple[Path, str]):
    out, first = seeds_run
    result = runner.invoke(app, [*TINY, "--seeds", "1,3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "seed 1: CoS" in result.output and "reused" in result.output.split("seed 3")[0]
    assert "seed 3: CoS" in result.output and (out / "seed_3" / "model.zip").is_file()
    runs = json.loads((out / "seeds.json").read_text())["runs"]
    first_seed1 = next(line for line in first.splitlines() if line.startswith("seed 1:"))
    assert f"CoS {runs[0]['cos']:.3f}" in first_seed1  # the same policy, the same figure


@pytest.mark.slow
def test_selection_scores_checkpoints_on_a_held_out_stream(tmp_path: Path):
    result = runner.invoke(app, [*TINY, "--seeds", "0", "--select-seed", "7", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    run = json.loads((tmp_path / "seeds.json").read_text())["runs"][0]
    assert run["selected_by"] is not None and Path(run["model"]).is_file()
    assert "chosen at" in result.output


@pytest.mark.parametrize("bad, words", [(["--seeds", "3-1"], "runs backwards"), (["--seeds", "a"], "--seeds takes a list like"),
                                        (["--seeds", "0", "--backend", "rllib"], "sb3 backend only")])
def test_bad_seed_lists_get_one_line(tmp_path: Path, bad: list[str], words: str):
    result = runner.invoke(app, [*TINY, *bad, "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert words in result.output and "Traceback" not in result.output


def test_summary_is_the_t_interval_of_the_seeds():
    runs = [SeedRun(s, f"r/seed_{s}", "m.zip", 100, 1.0, c, (c,)) for s, c in enumerate((0.55, 0.61, 0.58, 0.66))]
    interval = summary(runs)
    assert (interval.lo, interval.hi, interval.n) == pytest.approx((t_interval([0.55, 0.61, 0.58, 0.66]).lo,
                                                                    t_interval([0.55, 0.61, 0.58, 0.66]).hi, 4))
    assert interval.lo < 0.60 < interval.hi


@pytest.mark.slow
def test_a_slim_release_copy_plays_like_its_source(seeds_run: tuple[Path, str], tmp_path: Path):
    """The optimizer state is dropped, the weights kept: the same greedy actions, a smaller file."""
    from sb3_contrib import MaskablePPO

    from cuisineworld.adapter.rl.release import slim_copy

    source = seeds_run[0] / "seed_0" / "model.zip"
    target = tmp_path / "slim.zip"
    slim_copy(source, target)
    slim_copy(source, tmp_path / "again.zip")
    assert target.read_bytes() == (tmp_path / "again.zip").read_bytes()  # reproducible bytes
    assert target.stat().st_size < source.stat().st_size
    assert zipfile.ZipFile(target).testzip() is None
    a, b = MaskablePPO.load(str(source), device="cpu"), MaskablePPO.load(str(target), device="cpu")
    obs = np.random.default_rng(0).random((64, *a.observation_space.shape)).astype(np.float32)
    assert np.array_equal(a.predict(obs, deterministic=True)[0], b.predict(obs, deterministic=True)[0])
