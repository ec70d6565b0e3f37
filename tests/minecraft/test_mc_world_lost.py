"""A world lost for good still leaves a recording that ends with a line saying so (FakeBridge, no
Node): the steps played, then the ``error`` line naming `WorldLost`, its reason and the step. It is
not an ``end`` line on purpose: a sweep must not score a lost world as a finished game."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindagent.core.episode import run_episode
from mindagent.dispatch.brains import PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.recordings.recording import Recorder, read_recording
from minecraft import MinecraftPlanner, MinecraftSession, ServerAddress
from minecraft.session import MAX_SERVER_RESTARTS, WorldLost

pytestmark = pytest.mark.asyncio


class DeadServer:
    """An embedded server that died and was already restarted as often as allowed."""

    alive = False
    pid = None

    async def stop(self) -> None:
        return None


async def test_a_server_dead_after_its_restarts_ends_the_recording_with_world_lost(fakes, tmp_path: Path) -> None:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    session = MinecraftSession(n_agents=2, tau=1.0, seed=0, max_steps=10,
                               address=ServerAddress(port=1, kitchen_plugin=True), bridge=bridge)
    await session.reset()
    planner = PolicyBrain(MinecraftPlanner())
    planner.reset(session)
    recorder = Recorder(tmp_path / "lost.jsonl")
    recorder.header(domain="minecraft", **session.episode_header())


    steps_before = 3
    for _ in range(steps_before):
        await session.step(["noop(Alex)", "noop(Steve)"])
    session.server = DeadServer()  # type: ignore[assignment]
    session.server_restarts = MAX_SERVER_RESTARTS
    with pytest.raises(WorldLost):
        await run_episode(session, Dispatcher(planner), recorder)
    records = read_recording(tmp_path / "lost.jsonl")
    last = records[-1]
    assert last["type"] == "error" and last["kind"] == "WorldLost", last
    assert last["message"] == ("the embedded Minecraft server died again after 2 restarts; the episode cannot go on")
    assert last["step"] == steps_before
    assert not any(r["type"] == "end" for r in records)
