"""The first step of an episode is as long as the others (the clock, `clock.RoomClock.restart_schedule`).

A room's ticks keep the phase they were scheduled with; an episode started by a countdown that is
not a whole number of periods used to get a short first step (5 s countdown at a step every 3 s:
1 s). Here the countdown (0.5 s) leaves 0.3 s of a 0.8 s period; the first step must take the
whole period, and so must the next.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig

from .conftest import Client, tiny_brain

pytestmark = pytest.mark.asyncio
PERIOD = 0.8


async def _step_times(tmp_path: Path, countdown: float) -> list[float]:
    """Seconds from the episode's start to each of its first two steps."""
    config = ServerConfig(port=0, model="tiny", model_why="test", tick=0.2, human_tick=PERIOD, countdown=countdown,
                          recordings=tmp_path / "rooms", startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 50))
    async with GameServer(config, brain_factory=lambda model, domain: tiny_brain()) as server:
        room = server.startup_room
        assert room is not None
        async with connect(server.ws_url) as ws:
            c = Client(ws)
            await c.next("welcome")
            await c.request("join", room=room.id, role="player", agent=0)
            await c.next("state", lambda m: m["status"] == "running", timeout=10)
            started = time.monotonic()
            times = []
            for step in (1, 2):
                await c.next("state", lambda m, k=step: m["step"] == k, timeout=10)
                times.append(time.monotonic() - started)
            return times


async def test_the_first_step_after_a_countdown_lasts_a_full_period(tmp_path: Path) -> None:
    first, second = await _step_times(tmp_path, countdown=0.5)
    assert first == pytest.approx(PERIOD, abs=0.15), f"the first step took {first:.2f} s, not {PERIOD}"
    assert second - first == pytest.approx(PERIOD, abs=0.15)


async def test_the_first_step_without_a_countdown_lasts_a_full_period(tmp_path: Path) -> None:
    first, _ = await _step_times(tmp_path, countdown=0)
    assert first == pytest.approx(PERIOD, abs=0.15)
