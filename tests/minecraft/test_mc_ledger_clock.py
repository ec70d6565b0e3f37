"""Deliveries from the server's ledger, visitors' incidents in the notes, and the world clock of a
server of someone else's, over the in-memory FakeBridge (no Node)."""

from __future__ import annotations

import pytest

from minecraft import MinecraftSession, ServerAddress
from minecraft.orders import lifetime_for

pytestmark = pytest.mark.asyncio


async def home(fakes) -> tuple[MinecraftSession, object]:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    bridge.obs["kitchen"]["chest_ledger"] = {}
    session = MinecraftSession(n_agents=2, tau=2.0, seed=0, address=ServerAddress(port=1, kitchen_plugin=True),
                               bridge=bridge)
    await session.reset()
    return session, bridge


async def test_a_dish_taken_out_again_still_counts_and_a_visitors_does_not(fakes) -> None:
    session, bridge = await home(fakes)
    dish = session.orders.active[0].dish
    kitchen = bridge.obs["kitchen"]
    # Steve delivered, a visitor took it out at once: the chest is empty, the order is done
    kitchen["chest_ledger"] = {"Steve": {"put": {dish: 1}, "took": {}}, "Visitor": {"put": {}, "took": {dish: 1}}}
    kitchen["incidents"] = [{"n": 1, "tick": 40, "player": "Visitor", "what": f"took 1 {dish} from the chest",
                             "outcome": "recorded"}]
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert step.completed == [dish]
    assert (f"Visitor did this to the kitchen: took 1 {dish} from the chest (recorded; the score counts what the "
            "bots put in).") in step.notes
    # a dish the visitor puts in counts for nothing, and the chest's totals do not matter
    kitchen["chests"][0]["items"] = {dish: 5}
    kitchen["chest_ledger"]["Visitor"] = {"put": {dish: 5}, "took": {dish: 1}}
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert step.completed == [] and session.counts.completed == 1


async def test_repeated_refusals_are_one_line_and_each_is_said_once(fakes) -> None:
    session, bridge = await home(fakes)
    hit = {"tick": 0, "player": "Visitor", "what": "hit cow", "outcome": "refused"}
    bridge.obs["kitchen"]["incidents"] = [{"n": n, **hit} for n in (1, 2, 3)] + [
        {"n": 4, "tick": 0, "player": "Visitor", "what": "/effect Alex levitation 30 5", "outcome": "refused"}]
    notes = (await session.step(["noop(Alex)", "noop(Steve)"])).notes
    assert "Visitor tried to hit cow (3 times): refused." in notes
    assert "Visitor tried to /effect Alex levitation 30 5: refused." in notes
    notes = (await session.step(["noop(Alex)", "noop(Steve)"])).notes
    assert not any("Visitor" in n for n in notes)
    bridge.obs["kitchen"]["incidents"].append({"n": 5, "tick": 80, "player": "Visitor", "what": "took 1 cooked_beef "
                                               "from the furnace", "outcome": "recorded", "scores": True})
    notes = (await session.step(["noop(Alex)", "noop(Steve)"])).notes
    assert ("Visitor did this to the kitchen: took 1 cooked_beef from the furnace (recorded; it can change the "
            "score).") in notes


async def foreign(fakes, age: int, crafting: bool) -> tuple[MinecraftSession, object]:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    bridge.obs["world"] = {"age": age, "time_of_day": age % 24000}
    if crafting:
        bridge.obs["kitchen"]["crafting_tables"] = [{"pos": [3, 5, 3]}]
    session = MinecraftSession(n_agents=2, tau=1.0, seed=2, max_steps=30, address=ServerAddress(port=1), bridge=bridge)
    await session.reset()
    return session, bridge


async def test_on_a_foreign_server_orders_live_by_its_world_ticks(fakes) -> None:
    session, bridge = await foreign(fakes, age=1000, crafting=True)
    assert session.world_clock and session.orders.crafted, "a server with a crafting table keeps stews"
    header = session.episode_header()["clock"]
    assert header["orders"] == "world ticks" and header["world_age_at_reset"] == 1000
    first = session.orders.active[0]
    # one slow step: the world ran 3 steps of order time (120 ticks) while the bots acted once
    bridge.obs["world"]["age"] = 1000 + 3 * 40 + 7
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert session.order_time == 3 and session.step_index == 1
    assert session.orders_snapshot()[0]["lifetime"] == first.remaining(3) == lifetime_for(1.0) - 3
    assert "Server clock: world tick 1127 (order time 3)." in session.state_text()
    # a world clock that stands still does not move orders; the episode ends by world time
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert session.order_time == 3 and not session.done
    bridge.obs["world"]["age"] = 1000 + 30 * 40
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert session.order_time == 30 and session.done
    assert len(session.orders.failed) >= 1, "orders ran out of world time"


async def test_orders_the_server_cannot_make_are_left_out_with_a_note(fakes) -> None:
    session, _ = await foreign(fakes, age=0, crafting=False)
    assert session.orders.crafted == ()
    notes = (await session.step(["noop(Alex)", "noop(Steve)"])).notes
    assert any(n.startswith("Orders for mushroom_stew are left out: the server at 127.0.0.1:1 has no crafting table")
               for n in notes), notes
    assert session.episode_header()["clock"]["orders_left_out"]
