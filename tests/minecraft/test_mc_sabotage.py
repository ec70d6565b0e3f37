"""Worlds people cannot break (marked slow): a visitor who is no operator joins the real embedded
kitchen with mineflayer and tries `/effect` on Alex, digging the chest, the crafting table and the
furnace, hitting every animal, and empties the chest whenever a dish lies in it. Each attempt is
refused or recorded in the recording, and the planner's episode scores what an undisturbed one
with the same seed scores (deliveries count what the bots put in, not what is left in the chest).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from mindagent.core.episode import run_episode
from mindagent.dispatch.brains import PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.recordings.recording import Recorder, read_recording
from minecraft import KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
SABOTEUR = Path(__file__).with_name("saboteur.js")
STEPS = 12
SEED = 5


@pytest.fixture
def node_ready() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        pytest.skip("needs Node and `npm ci` in minecraft/node")


async def play(path: Path, sabotage: bool) -> tuple[list[dict[str, Any]], dict[str, Any], MinecraftSession]:
    """One planner episode on a fresh embedded kitchen, with or without the saboteur; returns the
    recording, the saboteur's report ({} without one) and the session (closed)."""
    kitchen = KitchenConfig(cook_ticks=40, mob_respawn_ms=1500, block_respawn_ms=2000, seed=SEED, step_ticks=40)
    session = MinecraftSession(n_agents=2, tau=1.0, seed=SEED, max_steps=STEPS, kitchen=kitchen)
    proc: asyncio.subprocess.Process | None = None
    report: dict[str, Any] = {}
    try:
        await session.reset(SEED)
        assert session.address is not None
        if sabotage:
            proc = await asyncio.create_subprocess_exec(
                "node", str(SABOTEUR), str(session.address.port), session.address.version,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert proc.stdout is not None and proc.stdin is not None
            ready = await asyncio.wait_for(proc.stdout.readline(), 60)
            assert json.loads(ready) == {"ready": True}
        planner = PolicyBrain(MinecraftPlanner())
        planner.reset(session)
        recorder = Recorder(path)
        recorder.header(domain="minecraft", seed=SEED, **session.episode_header())
        await run_episode(session, Dispatcher(planner), recorder)
        recorder.close()
    finally:
        if proc is not None and proc.stdin is not None and proc.stdout is not None:
            proc.stdin.close()
            out = await asyncio.wait_for(proc.stdout.read(), 30)
            await proc.wait()
            report = json.loads(out.decode().strip().splitlines()[-1])
        await session.aclose()
    return read_recording(path), report, session


async def test_a_visitor_cannot_change_the_score(node_ready: None, tmp_path: Path) -> None:
    tmp_path = Path(os.environ.get("MC_SABOTAGE_DIR", str(tmp_path)))  # keep the recordings to read by hand
    calm, _, _ = await play(tmp_path / "calm.jsonl", sabotage=False)
    stormy, report, session = await play(tmp_path / "stormy.jsonl", sabotage=True)
    calm_end = next(r for r in calm if r["type"] == "end")
    stormy_end = next(r for r in stormy if r["type"] == "end")
    assert calm_end["completed"] >= 1, "the undisturbed episode should deliver"
    assert (stormy_end["completed"], stormy_end["failed"]) == (calm_end["completed"], calm_end["failed"])
    feedback = [line for r in stormy if r["type"] == "step" for line in r["feedback"]]
    refused = [line for line in feedback if line.startswith("Visitor tried to") and line.endswith(": refused.")]
    assert any("/effect Alex levitation" in line for line in refused), feedback
    assert any("dig the chest" in line for line in refused), feedback
    assert any("dig the crafting_table" in line for line in refused), feedback
    assert any("hit cow" in line for line in refused), feedback
    # the visitor did empty the chest, and the recording says so
    assert sum(report["took"].values()) >= 1, report
    assert any(line.startswith("Visitor did this to the kitchen: took") for line in feedback), feedback
    assert any("no permission" in m for m in report["messages"]), report["messages"]
    # Alex never floated: he ends the episode standing on the kitchen floor
    assert session.obs.kitchen is not None
    floor = session.obs.kitchen.furnaces[0].pos
    alex = next(p for p in session.obs.kitchen.players if p.name == "Alex")
    assert floor is not None and alex.pos[1] is not None and abs(alex.pos[1] - floor[1]) < 1.5, alex
