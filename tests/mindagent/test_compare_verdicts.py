"""`compare` that can reject at five seeds and says what it needs: planner against random on
seeds 20-24 differs in every cell after Holm's correction, planner against itself in none, and the
exact sign-flip test is kept, with the seeds it would need printed up front."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

runner = CliRunner()
SEEDS = "20-24"
FAST = ["--levels", "level_1,level_3", "--agents", "2", "--taus", "1.0,2.0", "--episodes", "1", "--steps", "30"]


def run(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sweeps")
    out = {}
    for model in ("planner", "random"):
        out[model] = folder / f"{model}.json"
        run("eval", *FAST, "--model", model, "--seeds", SEEDS, "--workers", "1", "--out", str(out[model]))
    return out


def test_planner_against_random_differs_in_every_cell_with_holm(sweeps: dict[str, Path]) -> None:
    text = run("compare", str(sweeps["random"]), str(sweeps["planner"]))
    assert "paired t-test" in text and "Holm's correction over 2 cells" in text
    assert "the exact sign-flip test can reject here only from 7 seeds" in text
    assert "2 of 2 cells differ significantly (paired t-test, Holm-corrected over 2 cells, alpha 0.05)" in text


def test_planner_against_itself_differs_nowhere(sweeps: dict[str, Path]) -> None:
    text = run("compare", str(sweeps["planner"]), str(sweeps["planner"]))
    assert "0 of 2 cells differ significantly" in text


def test_the_exact_test_is_kept_and_cannot_reject_at_five_seeds(sweeps: dict[str, Path]) -> None:
    text = run("compare", str(sweeps["random"]), str(sweeps["planner"]), "--test", "sign-flip")
    assert "exact sign-flip permutation test" in text and "0 of 2 cells differ significantly" in text
    assert "the t-test can reject from 2 seeds" in text


def test_the_summary_holds_n_spread_and_both_intervals(sweeps: dict[str, Path]) -> None:
    summary = json.loads(sweeps["planner"].read_text())
    for cell in summary["cells"]:
        assert cell["n"] == 5 and cell["sd"] >= 0
        lo, hi = cell["t_interval"]
        assert lo <= cell["mean"] <= hi
    assert summary["provenance"]["mindagent_version"]


def write_summary(path: Path, cells: dict[str, list[float]]) -> Path:
    payload = {"schema": "mindagent/seed-sweep@1", "config": {"domain": "cuisineworld"}, "seeds": [0, 1, 2, 3, 4],
               "cells": [{"level": level, "agents": 2, "mean": 0.0, "interval": [0.0, 0.0],
                          "values": {str(s): v for s, v in enumerate(values)}} for level, values in cells.items()]}
    path.write_text(json.dumps(payload))
    return path


def test_zero_spread_cells_are_marked_not_silently_decided(tmp_path: Path) -> None:
    a = write_summary(tmp_path / "a.json", {"level_1": [0.5] * 5, "level_2": [0.2, 0.3, 0.4, 0.3, 0.2]})
    b = write_summary(tmp_path / "b.json", {"level_1": [0.6] * 5, "level_2": [0.3, 0.3, 0.4, 0.4, 0.2]})
    text = run("compare", str(a), str(b))
    assert "no spread" in text and "1 cell(s) had no spread in B - A" in text


def test_without_correction_and_bad_choices(tmp_path: Path) -> None:
    a = write_summary(tmp_path / "a.json", {"level_1": [0.50, 0.52, 0.49, 0.51, 0.50]})
    b = write_summary(tmp_path / "b.json", {"level_1": [0.55, 0.58, 0.53, 0.57, 0.54]})
    text = run("compare", str(a), str(b), "--correction", "none")
    assert "no correction over cells" in text and "1 of 1 cells differ significantly" in text
    bad = runner.invoke(app, ["compare", str(a), str(b), "--test", "z"])
    assert bad.exit_code == 2 and "--test takes one of: t, sign-flip" in bad.output


def test_eval_tables_say_which_interval_they_print(tmp_path: Path) -> None:
    args = ["eval", *FAST, "--model", "planner", "--seeds", "0-2", "--workers", "1", "--out", str(tmp_path / "p.json")]
    assert "95 % t interval of the mean" in run(*args)
    assert "percentile bootstrap interval (under-covers at small n)" in run(*args, "--interval", "bootstrap")
    bad = runner.invoke(app, [*args, "--interval", "bca"])
    assert bad.exit_code == 2 and "--interval takes one of: t, bootstrap" in bad.output
