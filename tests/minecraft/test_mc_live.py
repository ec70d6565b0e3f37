"""Real flying-squid with our kitchen plugins and real mineflayer bots (marked slow).

One server and one bridge serve the whole module (module-scoped fixtures): starting them costs
about two seconds, every scenario after that a few. Short cook and respawn times keep the whole
module around a minute. Needs Node and `npm ci` in minecraft/node.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio

from minecraft import EmbeddedServer, KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.orders import Order
from minecraft.transport import NODE_DIR, ActionFailed, BridgeTransport

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
]
AGENTS = ["Alex", "Steve"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[EmbeddedServer]:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        # Skip on a developer machine without Node; under CI a missing install must fail loudly.
        message = "needs Node 18+ and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    srv = EmbeddedServer(KitchenConfig(cook_ticks=20, mob_respawn_ms=1500, block_respawn_ms=2000, seed=1))
    await srv.start()
    yield srv
    await srv.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bridge(server: EmbeddedServer) -> AsyncIterator[BridgeTransport]:
    transport = BridgeTransport()
    await transport.start()
    assert server.address is not None
    await transport.request("connect", {"names": AGENTS, "port": server.address.port, "version": server.address.version,
                                        "token": server.address.admin_token}, timeout=30)
    yield transport
    await transport.close()


@pytest_asyncio.fixture(loop_scope="module")
async def kitchen(server: EmbeddedServer, bridge: BridgeTransport) -> EmbeddedServer:
    """A fresh kitchen for each test: containers emptied, mobs and blocks back, inventories cleared,
    the clock in lockstep (nothing changes until `advance`)."""
    await server.admin("clock lockstep")
    await server.admin("reset 1")
    while not bridge.events.empty():
        bridge.events.get_nowait()
    return server


async def until(probe: Callable[[], Awaitable[Any]], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.25)


def player(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in state["players"] if p["name"] == name)


async def test_furnace_cooks_the_meat_a_bot_put_in_in_real_time(kitchen: EmbeddedServer,
                                                                  bridge: BridgeTransport) -> None:
    assert (await kitchen.admin("clock realtime"))["mode"] == "realtime"
    await kitchen.admin("give Alex beef 2")
    await kitchen.admin("give Alex coal 1")
    await until(lambda: bridge.request("observe"), 5)
    fuel = await bridge.request("putFuelFurnace", {"bot": "Alex", "item": "coal"})
    food = await bridge.request("putItemFurnace", {"bot": "Alex", "item": "beef"})
    assert (fuel["count"], food["count"]) == (1, 2)

    async def cooked() -> bool:
        furnace = (await kitchen.admin("state"))["furnaces"][0]
        return furnace["output"] == {"name": "cooked_beef", "count": 2}

    await until(cooked, 10)
    took = await bridge.request("takeOutFurnace", {"bot": "Alex"})
    assert (took["took"], took["count"]) == ("cooked_beef", 2)
    assert player(await kitchen.admin("state"), "Alex")["inventory"].get("cooked_beef") == 2


async def test_kill_picks_up_the_drop_and_the_mob_respawns(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    def chickens(state: dict[str, Any]) -> list[dict[str, Any]]:
        return [m for m in state["mobs"] if m["name"] == "chicken"]

    before = len(chickens(await kitchen.admin("state")))
    result = await bridge.request("killMob", {"bot": "Steve", "mob": "chicken"})
    assert result["collected"].get("chicken") == 1
    assert player(await kitchen.admin("state"), "Steve")["inventory"].get("chicken") == 1
    await asyncio.sleep(2.0)  # wall-clock time does not bring it back: the kitchen clock stands still
    assert len(chickens(await kitchen.admin("state"))) == before - 1
    await kitchen.admin("advance 29")  # mob_respawn_ms 1500 = 30 ticks
    assert len(chickens(await kitchen.admin("state"))) == before - 1
    await kitchen.admin("advance 1")
    assert len(chickens(await kitchen.admin("state"))) == before


async def test_mined_block_drops_fuel_and_comes_back(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    result = await bridge.request("mineBlock", {"bot": "Alex", "block": "coal_ore"})
    assert result["collected"].get("coal", 0) >= 1
    blocks = (await kitchen.admin("state"))["blocks"]
    assert any(b["name"] == "coal_ore" and not b["present"] for b in blocks)
    await kitchen.admin("advance 40")  # block_respawn_ms 2000 = 40 ticks
    assert all(b["present"] for b in (await kitchen.admin("state"))["blocks"])


async def shared_session(kitchen: EmbeddedServer, bridge: BridgeTransport, **kw: Any) -> MinecraftSession:
    session = MinecraftSession(n_agents=2, tau=2.0, seed=1, address=kitchen.address, bridge=bridge, **kw)
    await session.reset()
    return session


async def test_cooked_meat_in_the_chest_completes_the_order(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    session = await shared_session(kitchen, bridge)
    dish = session.orders.active[0].dish
    await kitchen.admin(f"give Alex {dish} 1")
    await session.step(["noop(Alex)", "noop(Steve)"])  # observe the gift
    step = await session.step([f"putInChest(Alex, {dish})", "noop(Steve)"])
    assert step.verdicts[0].ok, step.verdicts[0].text
    assert step.completed == [dish]
    assert session.counts.completed == 1
    assert (await kitchen.admin("state"))["chests"][0]["items"] == {dish: 1}


async def test_killed_and_disconnected_bots_come_back(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    session = await shared_session(kitchen, bridge)
    await kitchen.console("kill Alex")
    await until(lambda: asyncio.sleep(0.1, result=not bridge.events.empty()), 5)
    await bridge.request("disconnect", {"bot": "Steve"})
    await asyncio.sleep(0.5)
    step = await session.step(["killMob(Alex, cow)", "killMob(Steve, pig)"])
    codes = [v.reason.code if v.reason else None for v in step.verdicts]
    assert codes == ["died", "rejoining"], [v.text for v in step.verdicts]
    assert "Steve rejoined the server." in step.notes
    step = await session.step(["killMob(Alex, cow)", "killMob(Steve, pig)"])
    assert all(v.ok for v in step.verdicts), [v.text for v in step.verdicts]


async def test_planner_completes_an_order_end_to_end(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    session = await shared_session(kitchen, bridge, max_steps=12)
    planner = MinecraftPlanner()
    planner.reset(session)
    while not session.done and session.counts.completed == 0:
        await session.step(planner.act(session))
    assert session.counts.completed >= 1, session.state_text()


async def test_human_chat_and_inventory_reach_the_dispatcher(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    session = await shared_session(kitchen, bridge)
    human = BridgeTransport()  # a second bridge stands in for a human player's client
    await human.start()
    try:
        assert kitchen.address is not None
        await human.request("connect", {"names": ["Chef"], "port": kitchen.address.port}, timeout=30)
        await kitchen.admin("give Chef cooked_beef 1")
        await human.request("chat", {"bot": "Chef", "text": "cook chicken first"})
        await asyncio.sleep(0.5)
        await session.step(["noop(Alex)", "noop(Steve)"])
        assert session.pending_instructions() == ["Chef: cook chicken first"]
        assert "Human player Chef: inventory: 1 cooked_beef." in session.state_text()
    finally:
        await human.close()


async def test_crafting_at_the_table_swaps_the_inventory_or_says_why_not(kitchen: EmbeddedServer,
                                                                          bridge: BridgeTransport) -> None:
    await kitchen.admin("give Alex oak_planks 3")
    result = await bridge.request("craft", {"bot": "Alex", "item": "bowl"}, timeout=20)
    assert result["crafted"] == "bowl" and result["count"] == 4
    inventory = player(await kitchen.admin("state"), "Alex")["inventory"]
    assert inventory.get("bowl") == 4 and "oak_planks" not in inventory
    with pytest.raises(ActionFailed) as refused:
        await bridge.request("craft", {"bot": "Alex", "item": "mushroom_stew"}, timeout=20)
    assert refused.value.code == "missing_item"
    assert player(await kitchen.admin("state"), "Alex")["inventory"].get("bowl") == 4  # all or nothing


async def test_planner_completes_a_crafted_stew_order(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    session = await shared_session(kitchen, bridge, max_steps=14)
    session.orders.active = [Order("mushroom_stew", 0, 14)]  # the stew order, whatever seed 1 drew
    planner = MinecraftPlanner()
    planner.reset(session)
    done: list[str] = []
    while not session.done and "mushroom_stew" not in done:
        step = await session.step(planner.act(session))
        done += step.completed
    assert "mushroom_stew" in done, session.state_text()
    assert "mushroom_stew" in (await kitchen.admin("state"))["chests"][0]["items"]
