"""A server of someone else's, honestly (marked slow): a second embedded server started the way
such a server runs (its own real-time clock, no admin token, so the bots are no operators and we
cannot reset or advance it) is joined through `--mc-host` like any other. Its orders live by its
own world ticks, read from its time updates, so it completes as many orders as the same seed at
home (lockstep) within one, and the recording says which clock ran.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.recordings.recording import Recorder, read_recording
from minecraft import KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.domain import DOMAIN
from minecraft.server_process import EmbeddedServer
from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
STEPS = 12
SEED = 5
TIMING = {"cook_ticks": 40, "mob_respawn_ms": 1500, "block_respawn_ms": 2000}


@pytest.fixture
def node_ready() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        pytest.skip("needs Node and `npm ci` in minecraft/node")


async def play(session: MinecraftSession, path: Path) -> list[dict[str, Any]]:
    try:
        await session.reset(SEED)
        planner = PolicyBrain(MinecraftPlanner())
        planner.reset(session)
        recorder = Recorder(path)
        recorder.header(domain="minecraft", seed=SEED, **session.episode_header())
        await run_episode(session, Dispatcher(planner), recorder)
        recorder.close()
    finally:
        await session.aclose()
    return read_recording(path)


async def test_a_foreign_server_scores_by_its_own_clock(node_ready: None, tmp_path: Path) -> None:
    home = await play(MinecraftSession(n_agents=2, tau=1.0, seed=SEED, max_steps=STEPS,
                                       kitchen=KitchenConfig(seed=SEED, **TIMING)), tmp_path / "home.jsonl")
    theirs = EmbeddedServer(KitchenConfig(seed=SEED, clock="realtime", guard=False, **TIMING))
    address = await theirs.start()
    try:
        spec = DOMAIN.validate(GameSpec("minecraft", agents=2, tau=1.0, seed=SEED, steps=STEPS,
                                        options={"mc_host": address.host, "mc_port": address.port}))
        session = DOMAIN.make_session(spec)
        assert session.world_clock and session.server is None
        away = await play(session, tmp_path / "away.jsonl")
    finally:
        await theirs.stop()
    home_end = next(r for r in home if r["type"] == "end")
    away_end = next(r for r in away if r["type"] == "end")
    assert home_end["completed"] >= 1
    assert abs(away_end["completed"] - home_end["completed"]) <= 1, (home_end, away_end)
    clock = away[0]["clock"]
    assert clock["mode"] == "realtime" and clock["orders"] == "world ticks"
    assert isinstance(clock["world_age_at_reset"], int) and clock["world_age_at_reset"] > 0
    steps = [r for r in away if r["type"] == "step"]
    ticks = [int(r["state"].split("Server clock: world tick ")[1].split(" ")[0]) for r in steps]
    assert ticks == sorted(ticks) and ticks[-1] > ticks[0], "each step's state records the server's tick"
