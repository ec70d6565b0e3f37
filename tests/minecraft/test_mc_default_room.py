"""The README's Minecraft room as a person starts it, ``mindagent serve --domain minecraft`` with no
model named (the embedded SmolLM2-135M): it plays in goal mode (the model picks the dish, the
planner carries it out) and completes at least one order in every episode on the embedded
flying-squid server (marked slow; about two minutes; needs Node, `npm ci` in minecraft/node and
the embedded model).

Only the episode length and the number of episodes are shortened; everything else is the default.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

EPISODES = 2
STEPS = 20


def need_node() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        message = "needs Node 18+ and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


def finished(recordings: Path) -> list[list[dict[str, object]]]:
    """The recordings that have their ``end`` line, oldest episode first."""
    done = []
    for path in sorted(recordings.glob("*_e*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if any(line["type"] == "end" for line in lines):
            done.append(lines)
    return done


async def test_the_default_minecraft_room_completes_an_order_every_episode(tmp_path: Path, smollm2_path: Path) -> None:
    need_node()
    recordings = tmp_path / "rooms"
    console = tmp_path / "console.txt"
    env = {k: v for k, v in os.environ.items() if k != "MINDAGENT_MODEL"}
    with console.open("w") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--domain", "minecraft",
            "--steps", str(STEPS), "--episodes", str(EPISODES), "--mc-port", "0", "--port", "0",
            "--recordings", str(recordings), stdout=out, stderr=asyncio.subprocess.STDOUT, cwd=tmp_path,
            env={**env, "COLUMNS": "250", "NO_COLOR": "1"})
    try:
        deadline = time.monotonic() + 420
        while len(finished(recordings) if recordings.is_dir() else []) < EPISODES:
            if proc.returncode is not None:
                pytest.fail(f"mindagent serve exited with {proc.returncode}:\n{console.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"the episodes did not end in time:\n{console.read_text()[-3000:]}")
            await asyncio.sleep(1.0)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    text = console.read_text()
    assert "embedded SmolLM2-135M" in text, text
    chosen: set[str] = set()
    for lines in finished(recordings):
        header, end = lines[0], next(line for line in lines if line["type"] == "end")
        steps = [line for line in lines if line["type"] == "step"]
        assert header["model"] == "local" and header["dispatch"] == {"mode": "goals", "goal_every": 5}, header
        assert len(steps) == STEPS
        assert isinstance(end["completed"], int) and end["completed"] >= 1, (header["episode"], end)
        chosen |= {str(step["plan"]["chosen_by"]) for step in steps if isinstance(step.get("plan"), dict)}
    assert "model" in chosen, chosen  # the model chose a dish whenever more than one was open
