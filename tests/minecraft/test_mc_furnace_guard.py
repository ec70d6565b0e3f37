"""The kitchen furnace is the crew's (marked slow): a visitor who is no operator keeps reaching into
it with mineflayer to take what cooks there, its fuel and its input. On the guarded embedded
kitchen the furnace never opens for them, each try is refused and recorded, and the planner's
episode scores what an undisturbed one with the same seed scores. With the guard off (stock
rights, as on someone else's server) the same visitor does get in: the test's thief is real.
"""

from __future__ import annotations

import asyncio
import json
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
THIEF = Path(__file__).with_name("furnace_thief.js")
STEPS = 12
SEED = 5


@pytest.fixture
def node_ready() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        pytest.skip("needs Node and `npm ci` in minecraft/node")


async def play(path: Path, thief: bool, guard: bool = True) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One planner episode on a fresh embedded kitchen, with or without the thief; the recording
    and the thief's report ({} without one)."""
    kitchen = KitchenConfig(cook_ticks=40, mob_respawn_ms=1500, block_respawn_ms=2000, seed=SEED, step_ticks=40,
                            guard=guard)
    session = MinecraftSession(n_agents=2, tau=1.0, seed=SEED, max_steps=STEPS, kitchen=kitchen)
    proc: asyncio.subprocess.Process | None = None
    report: dict[str, Any] = {}
    try:
        await session.reset(SEED)
        assert session.address is not None
        if thief:
            proc = await asyncio.create_subprocess_exec(
                "node", str(THIEF), str(session.address.port), session.address.version,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert proc.stdout is not None
            assert json.loads(await asyncio.wait_for(proc.stdout.readline(), 60)) == {"ready": True}
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
    return read_recording(path), report


def _end(records: list[dict[str, Any]]) -> tuple[int, int]:
    end = next(r for r in records if r["type"] == "end")
    return int(end["completed"]), int(end["failed"])


async def test_a_visitor_cannot_take_from_the_kitchen_furnace(node_ready: None, tmp_path: Path) -> None:
    calm, _ = await play(tmp_path / "calm.jsonl", thief=False)
    raided, report = await play(tmp_path / "raided.jsonl", thief=True)
    assert _end(calm)[0] >= 1, "the undisturbed episode should deliver"
    assert _end(raided) == _end(calm)
    assert report["tries"] >= 3 and report["opened"] == 0 and report["took"] == {}, report
    feedback = [line for r in raided if r["type"] == "step" for line in r["feedback"]]
    assert any(line.startswith("Visitor tried to open the furnace at") and line.endswith(": refused.")
               for line in feedback), feedback
    assert any("for the crew" in m for m in report["messages"]), report["messages"]


async def test_without_the_guard_the_same_visitor_gets_in(node_ready: None, tmp_path: Path) -> None:
    _, report = await play(tmp_path / "open.jsonl", thief=True, guard=False)
    assert report["opened"] >= 1, report
