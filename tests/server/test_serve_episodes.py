"""`mindagent serve --autoplay --episodes N` is a batch job: once the start-up room has played its
N episodes the server stops as on Ctrl-C (every recording closed with its end line) and the
command returns 0, in one process and with the room in a worker process (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EPISODES, STEPS = 2, 6


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_serve_exits_zero_once_its_episodes_are_played(tmp_path: Path, workers: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("MINDAGENT_MODEL", None)
    rooms = tmp_path / "rooms"
    done = subprocess.run(
        [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--port", "0", "--model", "planner",
         "--level", "level_3", "--agents", "2", "--steps", str(STEPS), "--tick", "0.05", "--human-tick", "0",
         "--countdown", "0", "--autoplay", "--episodes", str(EPISODES), "--workers", str(workers),
         "--recordings", str(rooms)],
        capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"played {EPISODES} episode(s)" in done.stdout and "Traceback" not in done.stderr
    files = sorted(rooms.rglob("*.jsonl"))
    assert len(files) == EPISODES, files
    for path in files:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert records[-1]["type"] == "end" and records[-1]["steps"] == STEPS
