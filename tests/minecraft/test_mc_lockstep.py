"""Lockstep time on the real embedded server: the same seed and commands give the same episode,
however long the dispatcher takes to answer and however the server process is held up (marked slow).

Each run starts its own embedded flying-squid kitchen and bridge, plays a short episode through
the public episode loop with a model that answers the built-in planner's commands after an
artificial delay (none in one run, random delays of up to 1.5 s in the other), and records it.
The two recordings must be identical except for wall-clock fields. A second test pauses the
server process itself (SIGSTOP for 1 s every 3 s) for a whole episode.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mindagent.core.episode import run_episode
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.base import Completion, GenerationConfig, Message, Usage
from mindagent.recordings.recording import Recorder, read_recording
from minecraft import KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
STEPS = 14
WALL_CLOCK = {"latency_s"}


class SlowPlanner:
    """A 'model' that answers with the planner's commands after a delay drawn per step."""

    name = "slow-planner"

    def __init__(self, session: MinecraftSession, delays: Sequence[float]) -> None:
        self.session = session
        self.delays = list(delays)
        self.planner = MinecraftPlanner()
        self.planner.reset(session)
        self.prompts: list[str] = []

    async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                       grammar: str | None = None) -> Completion:
        self.prompts.append(messages[-1].content)
        await asyncio.sleep(self.delays[self.session.step_index])
        return Completion("\n".join(self.planner.act(self.session)), Usage(latency_s=0.0))

    async def aclose(self) -> None:
        return None


def without_wall_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


async def hold_up(pid: int, pauses: list[float], every: float = 3.0, hold: float = 1.0) -> None:
    """Stop the process `pid` for `hold` seconds every `every` seconds until cancelled."""
    try:
        while True:
            await asyncio.sleep(every - hold)
            os.kill(pid, signal.SIGSTOP)
            pauses.append(hold)
            try:
                await asyncio.sleep(hold)
            finally:
                os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        return


async def play(path: Path, delays: Sequence[float], pause_server: list[float] | None = None) -> list[str]:
    """One recorded episode; with `pause_server` (a list the pauses are appended to) the server
    process is stopped 1 s in every 3 s while the episode runs."""
    kitchen = KitchenConfig(cook_ticks=40, mob_respawn_ms=1500, block_respawn_ms=2000, seed=5, step_ticks=40)
    session = MinecraftSession(n_agents=2, tau=1.0, seed=5, max_steps=STEPS, kitchen=kitchen)
    pauser: asyncio.Task[None] | None = None
    try:
        await session.reset(5)
        model = SlowPlanner(session, delays)
        recorder = Recorder(path)
        recorder.header(domain="minecraft", seed=5, **session.episode_header())
        if pause_server is not None:
            assert session.server is not None and session.server.pid is not None
            pauser = asyncio.create_task(hold_up(session.server.pid, pause_server))
        await run_episode(session, Dispatcher(LLMBrain(model), PromptConfig()), recorder)
        recorder.close()
        return model.prompts
    finally:
        if pauser is not None:
            pauser.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pauser
        await session.aclose()


def same_recordings(a: Path, b: Path) -> list[dict[str, Any]]:
    """Assert the two recordings are identical but for wall-clock fields; return the first's steps."""
    first = [without_wall_clock(r) for r in read_recording(a)]
    second = [without_wall_clock(r) for r in read_recording(b)]
    assert len(first) == len(second)
    for mine, theirs in zip(first, second, strict=True):
        assert mine == theirs, f"{mine['type']} {mine.get('step')} differs"
    return [r for r in first if r["type"] == "step"]


@pytest.fixture
def node_ready() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        pytest.skip("needs Node and `npm ci` in minecraft/node")


async def test_same_seed_under_different_delays_gives_identical_recordings(node_ready: None, tmp_path: Path) -> None:
    tmp_path = Path(os.environ.get("MC_LOCKSTEP_DIR", str(tmp_path)))  # keep the two recordings to diff by hand
    rng = random.Random(7)
    prompts = await play(tmp_path / "quick.jsonl", [0.0] * STEPS)
    await play(tmp_path / "slow.jsonl", [rng.uniform(0.2, 1.5) for _ in range(STEPS)])
    quick = [without_wall_clock(r) for r in read_recording(tmp_path / "quick.jsonl")]
    slow = [without_wall_clock(r) for r in read_recording(tmp_path / "slow.jsonl")]
    assert quick[0]["clock"]["mode"] == "lockstep" and quick[0]["clock"]["step_ticks"] == 40
    steps = [r for r in quick if r["type"] == "step"]
    assert len(steps) == STEPS and len(quick) == len(slow)
    for mine, theirs in zip(quick, slow, strict=True):
        assert mine == theirs, f"{mine['type']} {mine.get('step')} differs"
    assert sum(len(r["completed"]) for r in steps) >= 1, "the episode should deliver at least one order"
    # what each command did reaches the next prompt, in words
    assert any("killed a" in line for r in steps for line in r["feedback"])
    assert any("Alex killed a" in p or "Steve killed a" in p for p in prompts)


async def test_a_server_paused_1s_every_3s_gives_the_same_recording(node_ready: None, tmp_path: Path) -> None:
    tmp_path = Path(os.environ.get("MC_LOCKSTEP_DIR", str(tmp_path)))
    await play(tmp_path / "calm.jsonl", [0.0] * STEPS)
    pauses: list[float] = []
    await play(tmp_path / "paused.jsonl", [0.0] * STEPS, pause_server=pauses)
    assert len(pauses) >= 3, "the episode should have run through several pauses"
    steps = same_recordings(tmp_path / "calm.jsonl", tmp_path / "paused.jsonl")
    assert len(steps) == STEPS
    assert sum(len(r["completed"]) for r in steps) >= 1, "the episode should deliver at least one order"
    # kills and digs happened, so the waits for their drops were exercised under the pauses
    assert any("picked up" in line for r in steps for line in r["feedback"])
