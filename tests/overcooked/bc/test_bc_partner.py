"""The human proxy where people would use it: `mindagent train --domain overcooked --algo bc`, then
``--partners bc:DIR`` beside a dispatcher and ``--model bc:DIR`` for both chefs, recorded and
replayed identically (the proxy's draws come from the run's seed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from mindagent.cli import build_app

runner = CliRunner()


def _run(tmp_path: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(build_app(), ["run", "--domain", "overcooked", "--level", "coordination_ring", "--steps", "120",
                                         "--json", "--out-dir", str(tmp_path), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads(result.output.strip().splitlines()[-1])
    return summary


def test_train_through_the_core_command(trials: Any, tmp_path: Path) -> None:
    out = tmp_path / "proxy"
    result = runner.invoke(build_app(), ["train", "--domain", "overcooked", "--algo", "bc", "--layout", "cramped_room",
                                         "--out", str(out), "--epochs", "2", "--limit", "1500"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "held-out action accuracy" in result.output and (out / "policy.pt").is_file()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["command"].startswith("mindagent train --domain overcooked")
    wrong = runner.invoke(build_app(), ["train", "--domain", "overcooked", "--algo", "ppo", "--layout", "cramped_room"])
    assert wrong.exit_code == 2 and "--algo must be bc" in wrong.output


def test_the_proxy_as_partner_and_as_both_chefs(tiny_policy: Any, tmp_path: Path) -> None:
    proxy = f"bc:{tiny_policy.out}"
    beside = _run(tmp_path / "a", "--model", "planner", "--control", "1", "--partners", proxy, "--seed", "3")
    assert beside["steps"] > 0 and beside["score"] == 20 * beside["completed"]
    alone = _run(tmp_path / "b", "--model", proxy, "--seed", "3")
    again = _run(tmp_path / "c", "--model", proxy, "--seed", "3")
    assert alone["steps"] == 120  # every proxy command is a primitive: one timestep a step
    assert Path(alone["recording"]).read_text().splitlines()[1:] == Path(again["recording"]).read_text().splitlines()[1:]
    replayed = runner.invoke(build_app(), ["replay", beside["recording"]], catch_exceptions=False)
    assert replayed.exit_code == 0 and "identically" in replayed.output


def test_a_missing_proxy_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(build_app(), ["run", "--domain", "overcooked", "--model", "planner", "--control", "1",
                                         "--partners", f"bc:{tmp_path / 'none'}"])
    assert result.exit_code == 2 and "no such folder" in result.output and "Traceback" not in result.output
