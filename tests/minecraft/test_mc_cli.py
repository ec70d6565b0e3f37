"""`mindagent run --domain minecraft`: the dispatcher loop with the built-in planner on the real
embedded server and bots (slow; CI runs it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

NODE_MODULES = Path(__file__).resolve().parents[2] / "minecraft" / "node" / "node_modules"


@pytest.mark.slow
def test_run_minecraft_planner_json(tmp_path):
    if shutil.which("node") is None or not NODE_MODULES.exists():
        pytest.fail("Node and `npm ci` in minecraft/node are needed for this test")
    result = CliRunner().invoke(app, ["run", "--domain", "minecraft", "--model", "planner", "--steps", "24", "--tau", "2.0",
                                      "--cook-ticks", "20", "--json", "--out-dir", str(tmp_path)], catch_exceptions=False)
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["steps"] == 24 and summary["completed"] >= 1
    records = [json.loads(line) for line in Path(summary["recording"]).read_text().splitlines()]
    assert records[0]["domain"] == "minecraft" and records[-1]["type"] == "end"
    assert all(r["commands"] for r in records if r["type"] == "step")


@pytest.mark.slow
def test_eval_minecraft_honours_agents_taus_episodes_and_record(tmp_path):
    """`eval --domain minecraft` goes through the same sweep as the kitchen: every flag counts."""
    if shutil.which("node") is None or not NODE_MODULES.exists():
        pytest.fail("Node and `npm ci` in minecraft/node are needed for this test")
    out, record = tmp_path / "mc.json", tmp_path / "rec"
    result = CliRunner().invoke(app, ["eval", "--domain", "minecraft", "--model", "planner", "--agents", "2,3",
                                      "--taus", "1.0,2.0", "--episodes", "1", "--steps", "6", "--cook-ticks", "20",
                                      "--record", str(record), "--out", str(out), "--compare", "paper"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["config"]["domain"] == "minecraft" and data["config"]["options"] == {"cook_ticks": 20}
    assert [(c["level"], c["agents"]) for c in data["cells"]] == [("minecraft", 2), ("minecraft", 3)]
    assert all([t["tau"] for t in c["taus"]] == [1.0, 2.0] for c in data["cells"])
    headers = sorted((h["agents"], h["tau"], h["episode"], h["run_steps"]) for h in
                     (json.loads(p.read_text().splitlines()[0]) for p in record.glob("*.jsonl")))
    assert headers == [(2, 1.0, 1, 6), (2, 2.0, 1, 6), (3, 1.0, 1, 6), (3, 2.0, 1, 6)]
    for path in record.glob("*.jsonl"):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert records[0]["domain"] == "minecraft" and records[0]["kitchen"]["cook_ticks"] == 20
        assert sum(r["type"] == "step" for r in records) == 6 and records[-1]["type"] == "end"
    assert "GPT-4" in result.output and "0.581" in result.output  # the paper's Table 5 beside a 2-bot run
