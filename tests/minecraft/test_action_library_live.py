"""Every action and query of the library on the real embedded server (flying-squid and mineflayer
bots), through the bridge's `act` request: each confirmed once, and a refusal or timeout for
place, dig, craft, take (and smelt's timeout under the lockstep clock).

Slow tier: one server and one bridge for the module, a fresh kitchen per test. Needs Node and
`npm ci` in minecraft/node.
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

from minecraft import EmbeddedServer, KitchenConfig
from minecraft.actions import parse_action, perform
from minecraft.transport import NODE_DIR, ActionFailed, BridgeTransport

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]
AGENTS = ["Alex", "Steve"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[EmbeddedServer]:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
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
                                        "token": server.address.admin_token, "seePlayers": True}, timeout=30)
    yield transport
    await transport.close()


@pytest_asyncio.fixture(loop_scope="module")
async def kitchen(server: EmbeddedServer, bridge: BridgeTransport) -> EmbeddedServer:
    await server.admin("clock lockstep")
    await server.admin("reset 1")
    return server


async def act(bridge: BridgeTransport, text: str, places: dict[str, tuple[int, int, int]] | None = None) -> Any:
    return await perform(bridge, parse_action(text, AGENTS), places)


async def refused(bridge: BridgeTransport, text: str) -> str:
    with pytest.raises(ActionFailed) as failure:
        await act(bridge, text)
    return failure.value.code


async def until(probe: Callable[[], Awaitable[Any]], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.2)


async def give(server: EmbeddedServer, bridge: BridgeTransport, bot: str, item: str, n: int) -> None:
    """An operator's gift, then wait until the bot's own inventory shows it."""
    had = (await act(bridge, f"inventory({bot})"))["items"].get(item, 0)
    await server.admin(f"give {bot} {item} {n}")
    await until(lambda: _has(bridge, bot, item, had + n))


async def _has(bridge: BridgeTransport, bot: str, item: str, n: int) -> bool:
    return bool((await act(bridge, f"inventory({bot})"))["items"].get(item, 0) >= n)


async def ground(server: EmbeddedServer) -> int:
    return int((await server.admin("state"))["chests"][0]["pos"][1])


async def test_place_and_dig_are_confirmed_and_refused_with_reasons(kitchen: EmbeddedServer,
                                                                     bridge: BridgeTransport) -> None:
    y = await ground(kitchen)
    assert await refused(bridge, f"placeBlock(Alex, oak_planks, -3, {y}, -3)") == "missing_item"
    await give(kitchen, bridge, "Alex", "oak_planks", 2)
    placed = await act(bridge, f"placeBlock(Alex, oak_planks, -3, {y}, -3)")
    assert placed == {"placed": "oak_planks", "position": [-3, y, -3]}
    assert await refused(bridge, f"placeBlock(Alex, oak_planks, -3, {y}, -3)") == "occupied"
    assert await refused(bridge, f"placeBlock(Alex, oak_planks, -3, {y + 3}, -3)") == "no_support"
    dug = await act(bridge, f"digBlock(Steve, -3, {y}, -3)")
    assert dug == {"dug": "oak_planks", "position": [-3, y, -3]}
    assert await refused(bridge, f"digBlock(Steve, -3, {y}, -3)") == "not_found"
    assert await refused(bridge, f"digBlock(Steve, -3, {y - 5}, -3)") == "unbreakable"  # the superflat bedrock (y 0)


async def test_craft_through_the_kitchen_table_and_its_refusals(kitchen: EmbeddedServer,
                                                                 bridge: BridgeTransport) -> None:
    assert await refused(bridge, "craft(Alex, oak_planks)") == "missing_item"
    assert await refused(bridge, "craft(Alex, diamond_block)") == "not_craftable"
    await give(kitchen, bridge, "Alex", "oak_log", 2)
    made = await act(bridge, "craft(Alex, oak_planks, 5)")
    assert made == {"crafted": "oak_planks", "count": 8}
    bowls = await act(bridge, "craft(Alex, bowl)")
    assert bowls["count"] == 4


async def test_smelt_waits_for_the_furnace_and_times_out_on_a_stopped_clock(kitchen: EmbeddedServer,
                                                                            bridge: BridgeTransport) -> None:
    await give(kitchen, bridge, "Alex", "beef", 3)
    await give(kitchen, bridge, "Alex", "coal", 3)
    await kitchen.admin("clock realtime")
    cooked = await act(bridge, "smelt(Alex, beef, 2)")
    assert (cooked["made"], cooked["count"]) == ("cooked_beef", 2)
    assert (await act(bridge, "inventory(Alex)"))["items"]["cooked_beef"] == 2
    # lockstep: the furnace does not cook between steps, so waiting for the output times out
    await kitchen.admin("clock lockstep")
    call = parse_action("smelt(Alex, beef)", AGENTS)
    with pytest.raises(ActionFailed) as failure:
        await bridge.request("act", {**call.bridge_args(), "timeout_ms": 3000}, timeout=8)
    assert failure.value.code == "timeout"
    assert (await kitchen.admin("state"))["furnaces"][0]["input"] == {"name": "beef", "count": 1}


async def test_containers_open_take_put_and_the_contents_query(kitchen: EmbeddedServer,
                                                              bridge: BridgeTransport) -> None:
    x, y, z = (await kitchen.admin("state"))["chests"][0]["pos"]
    assert await refused(bridge, f"containerContents(Steve, {x}, {y}, {z})") == "not_seen"
    await give(kitchen, bridge, "Alex", "oak_planks", 5)
    put = await act(bridge, f"putInContainer(Alex, oak_planks, {x}, {y}, {z}, 3)")
    assert (put["count"], put["items"]) == (3, {"oak_planks": 3})
    assert (await act(bridge, f"containerContents(Alex, {x}, {y}, {z})"))["items"] == {"oak_planks": 3}
    opened = await act(bridge, f"openContainer(Steve, {x}, {y}, {z})")
    assert (opened["container"], opened["items"]) == ("chest", {"oak_planks": 3})
    took = await act(bridge, f"takeFromContainer(Steve, oak_planks, {x}, {y}, {z}, 10)")
    assert (took["count"], took["items"]) == (3, {})
    assert await refused(bridge, f"takeFromContainer(Steve, oak_planks, {x}, {y}, {z})") == "missing_item"
    assert await refused(bridge, f"takeFromContainer(Steve, oak_planks, {x + 5}, {y}, {z})") == "not_found"
    assert (await kitchen.admin("state"))["chests"][0]["items"] == {}


async def test_walking_following_and_stopping(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    y = await ground(kitchen)
    there = await act(bridge, "goTo(Alex, corner)", places={"corner": (-4, y, -4)})
    assert there["kind"] == "place" and there["distance"] <= 2.5
    block = await act(bridge, "goTo(Alex, crafting_table)")
    assert block["kind"] == "block"
    walked = await act(bridge, f"goToPosition(Steve, 3, {y}, -4)")
    assert walked["distance"] <= 2.5
    met = await act(bridge, "goTo(Steve, alex)")
    assert met["kind"] == "player"
    assert await refused(bridge, "goTo(Steve, nowhere_at_all)") == "not_found"
    await act(bridge, f"goToPosition(Steve, 3, {y}, -4)")
    following = await act(bridge, "follow(Steve, Alex)")
    assert following["following"] == "Alex" and following["distance"] <= 3.5
    await act(bridge, f"goToPosition(Alex, -4, {y}, 4)")  # Steve keeps following on his own

    async def steve_seen_by_alex() -> dict[str, Any]:
        seen = (await act(bridge, "entities(Alex, 32)"))["entities"]
        return next(e for e in seen if e["name"] == "Steve")

    async def steve_close() -> bool:
        return bool((await steve_seen_by_alex())["distance"] <= 3.5)

    await until(steve_close, 15)
    stopped = await act(bridge, "stop(Steve)")
    await act(bridge, f"goToPosition(Alex, 4, {y}, -4)")  # now he stays
    assert (await steve_seen_by_alex())["distance"] > 6
    assert stopped["position"] == pytest.approx((await steve_seen_by_alex())["position"], abs=0.5)


async def test_attack_equip_use_drop_and_say(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    y = await ground(kitchen)
    assert await act(bridge, "equip(Alex, iron_sword)") == {"equipped": "iron_sword", "slot": "hand"}
    await give(kitchen, bridge, "Alex", "iron_helmet", 1)
    assert await act(bridge, "equip(Alex, iron_helmet, head)") == {"equipped": "iron_helmet", "slot": "head"}
    assert (await act(bridge, "inventory(Alex)"))["worn"] == {"head": "iron_helmet"}
    killed = await act(bridge, "attack(Alex, chicken)")
    assert killed["killed"] == "chicken" and killed["hits"] >= 1
    await give(kitchen, bridge, "Steve", "pig_spawn_egg", 1)
    used = await act(bridge, f"useItem(Steve, pig_spawn_egg, 2, {y - 1}, -4)")
    assert used["effect"] == {"spawned": "pig"}
    await give(kitchen, bridge, "Steve", "dirt", 3)
    assert await act(bridge, "drop(Steve, dirt, 2)") == {"dropped": "dirt", "count": 2}
    assert await act(bridge, 'say(Steve, "on my way, Alex")') == {"said": "on my way, Alex"}


async def test_queries_read_the_bots_view(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    inventory = await act(bridge, "inventory(Alex)")
    assert {"iron_sword", "iron_pickaxe", "iron_axe"} <= set(inventory["items"])
    blocks = {b["name"] for b in (await act(bridge, "nearbyBlocks(Alex, 8)"))["blocks"]}
    assert {"furnace", "chest", "crafting_table"} <= blocks
    seen = (await act(bridge, "entities(Alex, 32)"))["entities"]
    assert any(e["name"] == "Steve" and e["kind"] == "player" for e in seen)
    assert any(e["name"] == "cow" for e in seen)
    distances = [e["distance"] for e in seen]
    assert distances == sorted(distances)


async def test_kitchen_verbs_through_the_library(kitchen: EmbeddedServer, bridge: BridgeTransport) -> None:
    mined = await act(bridge, "mineBlock(Alex, coal_ore)")
    assert mined["collected"].get("coal", 0) >= 1
    killed = await act(bridge, "killMob(Steve, cow)")
    assert killed["collected"].get("beef", 0) >= 1
    assert (await act(bridge, "putFuelFurnace(Alex, coal)"))["slot"] == "fuel"
    assert (await act(bridge, "putItemFurnace(Steve, beef)"))["slot"] == "input"
    assert await refused(bridge, "takeOutFurnace(Alex)") == "empty_output"
    await kitchen.admin("advance 25")
    assert (await act(bridge, "takeOutFurnace(Alex)"))["took"] == "cooked_beef"
    assert (await act(bridge, "putInChest(Alex, cooked_beef)"))["count"] >= 1
