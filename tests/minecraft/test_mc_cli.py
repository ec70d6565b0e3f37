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
