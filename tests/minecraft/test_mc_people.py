"""A person joins the kitchen with a Minecraft client (mineflayer) while the bots play (slow)."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from pathlib import Path

import pytest

from minecraft import KitchenConfig, MinecraftSession
from minecraft.server_process import warn_if_public
from minecraft.transport import NODE_DIR

pytestmark = pytest.mark.slow
VISITOR = Path(__file__).with_name("visitor.js")


@pytest.mark.asyncio
async def test_a_person_sees_the_bots_and_has_no_operator_rights() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        pytest.skip("needs Node and `npm ci` in minecraft/node")
    session = MinecraftSession(n_agents=2, seed=0, kitchen=KitchenConfig(seed=0))
    try:
        await session.reset(0)
        assert session.address is not None
        proc = await asyncio.create_subprocess_exec("node", str(VISITOR), str(session.address.port),
                                                    session.address.version, stdout=asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(proc.communicate(), 40)
        seen = json.loads(out.decode().strip().splitlines()[-1])
        assert {"Alex", "Steve"} <= set(seen["names"]), seen
        assert {"Alex", "Steve"} <= set(seen["entities"]), seen
        assert any("no permission: /kitchen give needs an operator" in m for m in seen["messages"]), seen
        assert any("no permission: /kill needs an operator" in m for m in seen["messages"]), seen
        step = await session.step(["noop(Alex)", "noop(Steve)"])
        assert "Alex waited." in step.notes, "Alex is alive and still ours"
    finally:
        await session.aclose()


def test_a_world_beyond_loopback_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert warn_if_public("0.0.0.0") and not warn_if_public("127.0.0.1") and not warn_if_public("localhost")
    assert "anyone who can reach it can join" in caplog.text


def test_the_world_address_and_clock_are_game_options() -> None:
    from mindagent.core.domain import SpecError
    from mindagent.core.spec import GameSpec
    from minecraft.domain import DOMAIN

    spec = DOMAIN.validate(GameSpec("minecraft", agents=2, options={"mc_bind": "0.0.0.0", "mc_clock": "realtime",
                                                                     "step_ticks": 20}))
    session = DOMAIN.make_session(spec)
    assert session.server is not None and session.server.host == "0.0.0.0"
    assert (session.kitchen.clock, session.kitchen.step_ticks) == ("realtime", 20)
    with pytest.raises(SpecError, match="lockstep or realtime"):
        DOMAIN.validate(GameSpec("minecraft", agents=2, options={"mc_clock": "fast"}))
