"""Faults on the real embedded server (marked slow): a paused server, a killed server, a killed
bridge, a server of another Minecraft version."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from mindagent.core.episode import Episode
from mindagent.dispatch.brains import PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.recordings.recording import Recorder, read_recording
from minecraft import EmbeddedServer, KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.kitchen import MOBS
from minecraft.session import WorldLost
from minecraft.transport import NODE_DIR, ActionFailed, BridgeTransport

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
AGENTS = ["Alex", "Steve"]


@pytest.fixture(autouse=True)
def node_ready() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        message = "needs Node and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


async def freeze(pid: int, seconds: float) -> None:
    """SIGSTOP the process for `seconds`, then SIGCONT: a server stalled by load or a debugger."""
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


async def test_pauses_of_the_server_lose_no_animal() -> None:
    # Real time is the hard case: flying-squid's physics integrates over the wall-clock gap.
    session = MinecraftSession(n_agents=2, tau=2.0, seed=2, max_steps=30,
                               kitchen=KitchenConfig(cook_ticks=40, mob_respawn_ms=1000, seed=2, clock="realtime"))
    rng = random.Random(11)
    try:
        await session.reset(2)
        assert session.server is not None
        for _ in range(5):
            pid = session.server.pid
            assert pid is not None
            pause = asyncio.create_task(freeze(pid, rng.uniform(0.5, 3.0)))
            await asyncio.sleep(rng.uniform(0.0, 0.4))
            step = await session.step([f"killMob(Alex, {rng.choice(MOBS)})", "noop(Steve)"])
            await pause
            assert step.verdicts[0].ok, step.verdicts[0].text
        await asyncio.sleep(1.5)  # every killed animal is back
        state = await session.server.admin("state")
        ground = min(m["pos"][1] for m in state["mobs"])
        assert all(m["pos"][1] == ground for m in state["mobs"]), state["mobs"]
        assert sorted(m["name"] for m in state["mobs"]) == sorted(MOBS * 2)
        for mob in MOBS:  # two of each: both bots kill one
            step = await session.step([f"killMob(Alex, {mob})", f"killMob(Steve, {mob})"])
            assert all(v.ok for v in step.verdicts), [v.text for v in step.verdicts]
    finally:
        await session.aclose()


def planner_episode(session: MinecraftSession, path: Path) -> Episode:
    planner = MinecraftPlanner()
    recorder = Recorder(path)
    recorder.header(domain="minecraft", **session.episode_header())
    brain = PolicyBrain(planner)
    brain.reset(session)
    return Episode(session, Dispatcher(brain), recorder)


async def test_a_killed_server_is_restarted_and_the_recording_says_so(tmp_path: Path) -> None:
    session = MinecraftSession(n_agents=2, tau=1.0, seed=3, max_steps=20,
                               kitchen=KitchenConfig(cook_ticks=40, mob_respawn_ms=1000, seed=3))
    try:
        await session.reset(3)
        assert session.server is not None and session.address is not None
        port = session.address.port
        episode = planner_episode(session, tmp_path / "killed.jsonl")
        await episode.advance(await episode.decide())
        await session.server.kill()
        started = time.monotonic()
        step = await episode.advance(await episode.decide())
        assert time.monotonic() - started < 45
        assert any("game server stopped and was restarted (restart 1)" in n for n in step.notes), step.notes
        assert session.address.port == port, "people keep their address"
        step = await episode.advance(await episode.decide())
        assert all(v.ok for v in step.verdicts), [v.text for v in step.verdicts]
        episode.finish()
        steps = [r for r in read_recording(tmp_path / "killed.jsonl") if r["type"] == "step"]
        assert any("restarted" in line for line in steps[1]["feedback"])
        # a server that keeps dying ends the episode with one clear error, not endless refusals
        for _ in range(2):
            await session.server.kill()
            with contextlib.suppress(WorldLost):
                await session.step(["noop(Alex)", "noop(Steve)"])
        assert session.server_restarts == 2
        started = time.monotonic()
        with pytest.raises(WorldLost, match="died again after 2 restarts"):
            await session.step(["noop(Alex)", "noop(Steve)"])
        assert time.monotonic() - started < 5
    finally:
        await session.aclose()


async def test_a_killed_bridge_is_restarted_and_the_recording_says_so(tmp_path: Path) -> None:
    session = MinecraftSession(n_agents=2, tau=1.0, seed=4, max_steps=20,
                               kitchen=KitchenConfig(cook_ticks=40, mob_respawn_ms=1000, seed=4))
    try:
        await session.reset(4)
        episode = planner_episode(session, tmp_path / "bridge.jsonl")
        await episode.advance(await episode.decide())
        bridge = session.bridge
        assert isinstance(bridge, BridgeTransport) and bridge.pid is not None
        os.kill(bridge.pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        notes = (await episode.advance(await episode.decide())).notes
        notes += (await episode.advance(await episode.decide())).notes
        assert any("bot bridge stopped and was restarted (restart 1)" in n for n in notes), notes
        step = await episode.advance(await episode.decide())
        assert all(v.ok for v in step.verdicts), [v.text for v in step.verdicts]
        episode.finish()
        feedback = [line for r in read_recording(tmp_path / "bridge.jsonl") if r["type"] == "step" for line in r["feedback"]]
        assert any("bridge stopped and was restarted" in line for line in feedback)
    finally:
        await session.aclose()


async def test_a_server_of_another_version_is_named_in_one_line() -> None:
    """By the bridge (a typed error) and by a session (one line saying what to pass); one server
    of the other version serves both, since starting one costs seconds of the slow tier."""
    server = EmbeddedServer(KitchenConfig(seed=0), version="1.18.2")
    address = await server.start()
    bridge = BridgeTransport()
    await bridge.start()
    try:
        with pytest.raises(ActionFailed) as caught:
            await bridge.request("connect", {"names": ["Alex"], "port": address.port, "version": "1.19.2"}, timeout=30)
        message = str(caught.value)
        assert caught.value.code == "version_mismatch", message
        assert "1.18.2" in message and "1.19.2" in message and "\n" not in message

        session = MinecraftSession(n_agents=2, address=dataclasses.replace(address, version="1.19.2"))
        with pytest.raises(WorldLost) as lost:
            await session.reset(0)
        assert str(lost.value) == (f"the server at 127.0.0.1:{address.port} speaks Minecraft 1.18.2 but the bots "
                                   "were started for 1.19.2 (use --mc-version 1.18.2)")
    finally:
        await bridge.close()
        await server.stop()
