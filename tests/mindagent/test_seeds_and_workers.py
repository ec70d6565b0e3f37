"""`eval --seeds`, `--workers` and `compare` through the command line on a small sweep."""

from __future__ import annotations

import json

import pytest
from conftest import require_module
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.evaluation.seeds import per_seed_values

runner = CliRunner()
SMALL = ["eval", "--levels", "level_1,level_2", "--agents", "2", "--taus", "1.0,3.0", "--episodes", "1",
         "--steps", "30", "--model", "planner"]


def invoke(*args: str):
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_two_workers_write_the_same_bytes_as_one(tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    invoke(*SMALL, "--workers", "1", "--out", str(one))
    invoke(*SMALL, "--workers", "2", "--out", str(two))
    assert one.read_bytes() == two.read_bytes()
    assert one.with_suffix(".csv").read_bytes() == two.with_suffix(".csv").read_bytes()


def test_seeds_write_one_file_per_seed_and_a_summary_with_intervals(tmp_path):
    out = tmp_path / "planner.json"
    result = invoke(*SMALL, "--seeds", "0-2", "--workers", "2", "--out", str(out), "--compare", "paper")
    summary = json.loads(out.read_text())
    assert summary["seeds"] == [0, 1, 2]
    assert [(c["level"], c["agents"]) for c in summary["cells"]] == [("level_1", 2), ("level_2", 2)]
    for cell in summary["cells"]:
        lo, hi = cell["interval"]
        assert lo <= cell["mean"] <= hi and list(cell["values"]) == ["0", "1", "2"]
    for seed in (0, 1, 2):
        single = json.loads((tmp_path / f"planner.seed{seed}.json").read_text())
        assert single["config"]["seed"] == seed
        level_1 = next(c for c in single["cells"] if c["level"] == "level_1")
        assert summary["cells"][0]["values"][str(seed)] == level_1["cos"]
    assert "verdict" in result.output and ("inside" in result.output or "above" in result.output
                                           or "below" in result.output)
    _, values = per_seed_values(out)
    assert set(values[("level_2", 2)]) == {0, 1, 2}


def test_compare_pairs_by_seed(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    invoke(*SMALL, "--seeds", "0-3", "--out", str(a))
    invoke(*[x if x != "planner" else "random" for x in SMALL], "--seeds", "0-3", "--out", str(b))
    result = invoke("compare", str(a), str(b))
    assert "paired by seed" in result.output
    # random against the planner: lower in every pair, but 4 pairs give p >= 2/16: not significant
    # the paired t-test rejects at four seeds; the exact sign-flip test cannot (its smallest p is 2/2^4)
    assert "2 of 2 cells differ significantly" in result.output and "-0." in result.output
    exact = invoke("compare", str(a), str(b), "--test", "sign-flip")
    assert "0 of 2 cells differ significantly" in exact.output
    same = invoke("compare", str(a), str(a))
    assert "0 of 2 cells differ significantly" in same.output


@pytest.mark.slow  # starts a local Ray (tens of seconds)
def test_a_local_ray_writes_the_same_results_as_the_local_executor(tmp_path):
    require_module("ray", "pip install -e '.[ray]' (setup.sh --dev installs it)")
    local, ray_out = tmp_path / "local.json", tmp_path / "ray.json"
    invoke(*SMALL, "--workers", "1", "--out", str(local))
    invoke(*SMALL, "--executor", "ray", "--out", str(ray_out))
    assert local.read_bytes() == ray_out.read_bytes()


def test_ray_executor_without_ray_is_one_clear_error(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name: str, *args: object, **kwargs: object):
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_ray)
    result = runner.invoke(app, [*SMALL, "--executor", "ray", "--out", str(tmp_path / "x.json")])
    assert result.exit_code == 2 and "needs Ray" in result.output
