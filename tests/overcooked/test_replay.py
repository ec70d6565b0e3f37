"""`mindagent run` plays the whole horizon on every classic layout and `mindagent replay`
re-executes each recording bit-identically (planner and random dispatchers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.recordings.recording import load_recording
from overcooked_game.layouts import CLASSIC

runner = CliRunner()


def run(tmp_path: Path, level: str, model: str = "planner", seed: int = 0) -> tuple[dict[str, object], Path]:
    result = runner.invoke(app, ["run", "--domain", "overcooked", "--level", level, "--agents", "2", "--model", model,
                                 "--seed", str(seed), "--json", "--out-dir", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    return summary, Path(str(summary["recording"]))


@pytest.mark.parametrize("level", list(CLASSIC))
def test_run_plays_400_timesteps_and_the_recording_replays_identically(tmp_path: Path, level: str) -> None:
    summary, path = run(tmp_path, level)
    assert summary["domain"] == "overcooked" and int(summary["completed"]) > 0  # type: ignore[call-overload]
    assert summary["score"] == 20 * int(summary["completed"])  # type: ignore[call-overload]  # the sparse reward
    steps = [r for r in load_recording(path).records if r["type"] == "step"]
    assert steps[-1]["feedback"][0].endswith("-400")  # the last decision's timesteps end at the horizon
    assert [int(s["feedback"][0].split()[1].split("-")[0]) for s in steps[:2]] == \
        [0, int(steps[0]["feedback"][0].split("-")[1])]  # each decision made where the last one ended
    replayed = runner.invoke(app, ["replay", str(path)], catch_exceptions=False)
    assert replayed.exit_code == 0 and f"replayed {len(steps)} steps identically" in replayed.output


def test_random_dispatcher_recordings_replay_and_a_tampered_one_diverges(tmp_path: Path) -> None:
    summary, path = run(tmp_path, "coordination_ring", "random", seed=3)
    assert runner.invoke(app, ["replay", str(path)], catch_exceptions=False).exit_code == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[1])
    first["commands"] = ["up(chef0)", "up(chef1)"]
    lines[1] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path)], catch_exceptions=False)
    assert result.exit_code == 1 and "differ" in result.output


def test_a_user_layout_runs_and_its_recording_replays(tmp_path: Path) -> None:
    layout = tmp_path / "wide.layout"
    layout.write_text('{"grid": """XXXPXXX\nO  1  S\nX  2  X\nXXDXXXX"""}', encoding="utf-8")
    summary, path = run(tmp_path, str(layout))
    assert summary["level"] == str(layout) and int(summary["completed"]) > 0  # type: ignore[call-overload]
    assert runner.invoke(app, ["replay", str(path)], catch_exceptions=False).exit_code == 0
    layout.write_text('{"grid": """XXXPXXX\nO  1 2S\nXXDXXXX"""}', encoding="utf-8")  # changed after recording
    result = runner.invoke(app, ["replay", str(path)], catch_exceptions=False)
    assert result.exit_code == 1 and "another grid" in result.output


def test_eval_prints_the_paper_reward_beside_classic_and_user_layouts(tmp_path: Path) -> None:
    layout = tmp_path / "wide.layout"
    layout.write_text('{"grid": """XXXPXXX\nO  1  S\nX  2  X\nXXDXXXX"""}', encoding="utf-8")
    result = runner.invoke(app, ["eval", "--domain", "overcooked", "--model", "planner", "--levels",
                                 f"cramped_room,{layout}", "--agents", "2", "--taus", "1.0", "--steps", "400",
                                 "--episodes", "1", "--compare", "paper", "--workers", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 3}
    assert "12/13" in rows["cramped_room"] and "0.917" in rows["cramped_room"]  # the paper's 220 = 11 soups: 11/12
    assert str(layout)[-20:] in "".join(rows) and rows[next(r for r in rows if r.endswith("wide.layout"))].rstrip(
        "│ ").endswith("-")
    refused = runner.invoke(app, ["eval", "--domain", "overcooked", "--model", "planner", "--levels", "cramped_room",
                                  "--agents", "2", "--taus", "1.0,2.0"], catch_exceptions=False)
    # every tau is checked before the sweep starts: one line from the domain, no unit run
    assert refused.exit_code == 2 and "--taus 1.0" in refused.output and "│" not in refused.output


def test_eval_defaults_to_the_papers_protocol(tmp_path: Path) -> None:
    """Without flags, eval runs LLM-Coordination's protocol: the five layouts, 2 chefs, 400 timesteps."""
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "--domain", "overcooked", "--model", "planner", "--episodes", "1",
                                 "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    config = json.loads(out.read_text())["config"]
    assert config["levels"] == list(CLASSIC) and config["agents"] == [2] and config["taus"] == [1.0]
    assert config["steps"] == 400
