"""`mindagent serve --domain minecraft`: episodes back to back on the embedded server (slow)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mindagent.cli import app


@pytest.mark.slow
def test_serve_minecraft_runs_an_episode_and_records_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["serve", "--domain", "minecraft", "--model", "planner", "--steps", "10",
                                      "--episodes", "1", "--cook-ticks", "20", "--mc-port", "0"], catch_exceptions=False)
    assert "join with a Minecraft client" in result.output and "episode 1:" in result.output
    lines = (tmp_path / "recordings" / "minecraft_serve_e1.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["domain"] == "minecraft" and json.loads(lines[-1])["type"] == "end"
