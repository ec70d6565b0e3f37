"""`train-bc` as a person runs it: a progress bar, the held-out accuracy at the end, one line on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from overcooked_game.bc.command import register


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.callback()
    def _group() -> None:  # keeps `train-bc` a named sub-command, as in the main CLI
        return None

    return app


def test_train_bc_prints_the_held_out_accuracy_and_writes_the_policy(trials: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "fc"
    result = CliRunner().invoke(_app(), ["train-bc", "--layout", "random0", "--out", str(out), "--epochs", "2",
                                         "--seed", "1", "--limit", "300"])
    assert result.exit_code == 0, result.output
    assert "forced_coordination: held-out action accuracy 0." in result.stdout
    meta = json.loads((out / "meta.json").read_text())
    assert meta["layout"] == "forced_coordination" and meta["limit"] == 300 and meta["epochs"] == 2
    assert meta["command"].endswith(f" train-bc --layout random0 --out {out} --epochs 2 --seed 1 --history {meta['history']} "
                                    f"--trials {meta['trials']} --activation {meta['activation']} --keep {meta['keep']} "
                                    "--limit 300")
    assert (out / "policy.pt").is_file()


def test_the_design_options_are_recorded_and_an_unknown_one_is_one_red_line(trials: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "cr"
    result = CliRunner().invoke(_app(), ["train-bc", "--layout", "cramped_room", "--out", str(out), "--limit", "300",
                                         "--history", "0", "--trials", "test", "--activation", "tanh", "--keep", "last"])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["history"], meta["trials"], meta["activation"], meta["keep"]) == (0, "test", "tanh", "last")
    assert " --epochs " in meta["command"] and meta["epochs"] >= 1  # the default count is spelled out
    bad = CliRunner().invoke(_app(), ["train-bc", "--layout", "cramped_room", "--out", str(tmp_path / "x"),
                                      "--trials", "dev"])
    assert bad.exit_code == 2 and "--trials is train or test" in bad.stderr and not (tmp_path / "x").exists()


def test_an_unknown_layout_is_one_red_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(_app(), ["train-bc", "--layout", "large_room", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no human trials for layout 'large_room'" in lines[0]
    assert "Traceback" not in result.output and not (tmp_path / "x").exists()


def test_a_too_small_limit_is_refused_by_the_option_itself(tmp_path: Path) -> None:
    result = CliRunner().invoke(_app(), ["train-bc", "--layout", "cramped_room", "--limit", "2", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--limit" in result.output
