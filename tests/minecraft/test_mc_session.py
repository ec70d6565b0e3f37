"""MinecraftSession and MinecraftPlanner over the in-memory FakeBridge (see mc_fakes.py): the
protocol's behaviour without Node, Minecraft or timing."""

import pytest

from mindagent.core.domain import DomainSession
from minecraft import MinecraftPlanner, MinecraftSession, ServerAddress
from minecraft.transport import ActionFailed

pytestmark = pytest.mark.asyncio


async def make(fakes, alex: dict[str, int] | None = None, steve: dict[str, int] | None = None) -> tuple[MinecraftSession, object]:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(alex), Steve=fakes.bot_view(steve)))
    session = MinecraftSession(n_agents=2, tau=2.0, seed=0, address=ServerAddress(port=1, kitchen_plugin=True),
                               bridge=bridge)
    await session.reset()
    return session, bridge


async def test_is_a_domain_session_and_resets(fakes) -> None:
    session, bridge = await make(fakes)
    assert isinstance(session, DomainSession)
    assert ("reset", {"seed": 0}) in bridge.calls
    assert session.step_index == 0 and not session.done
    assert session.counts.active == 1
    assert session.state_text().startswith("Step 0 of 60.")


async def test_step_runs_accepted_commands_and_refuses_the_rest(fakes) -> None:
    session, bridge = await make(fakes, alex={"beef": 1})
    bridge.actions[("putItemFurnace", "Alex")] = {"put": "beef", "count": 1}
    step = await session.step(["putItemFurnace(Alex, beef)", "putInChest(Steve, cooked_beef)", "noop(Alex)", "fly(Steve)"])
    assert [v.ok for v in step.verdicts] == [True, False, False, False]
    assert [getattr(v.reason, "code", None) for v in step.verdicts] == [None, "missing_item", "duplicate_agent", "syntax"]
    assert step.verdicts[0].text == "Alex put 1 beef into the furnace to cook."
    assert bridge.action_calls() == [("putItemFurnace", {"bot": "Alex", "item": "beef"})]
    assert session.step_index == 1


async def test_bridge_failure_becomes_a_verdict(fakes) -> None:
    session, bridge = await make(fakes)
    bridge.actions[("killMob", "Alex")] = ActionFailed("not_found", "found no cow nearby")
    step = await session.step(["killMob(Alex, cow)", "noop(Steve)"])
    assert not step.verdicts[0].ok
    assert step.verdicts[0].text == "Alex could not killMob(Alex, cow): there is none nearby right now."


async def test_order_completes_when_the_chest_gets_the_dish(fakes) -> None:
    session, bridge = await make(fakes)
    dish = session.orders.active[0].dish
    bridge.obs["kitchen"]["chests"][0]["items"] = {dish: 1}
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert step.completed == [dish]
    assert session.counts.completed == 1
    assert f"Order for {dish} completed." in step.notes


async def test_disconnected_bot_rejoins_and_its_command_is_refused(fakes) -> None:
    session, bridge = await make(fakes)
    bridge.emit(event="end", bot="Steve", reason="kicked")
    step = await session.step(["noop(Alex)", "killMob(Steve, cow)"])
    assert step.verdicts[1].reason.code == "rejoining"
    assert ("connect", {"names": ["Steve"], "host": "127.0.0.1", "port": 1, "version": "1.19.2"}) in bridge.calls
    assert "Steve rejoined the server." in step.notes
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert all(v.ok for v in step.verdicts)


async def test_action_lost_to_disconnect_triggers_a_rejoin(fakes) -> None:
    session, bridge = await make(fakes)
    bridge.actions[("killMob", "Alex")] = ActionFailed("disconnected", "Alex left the server")
    await session.step(["killMob(Alex, cow)", "noop(Steve)"])
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert step.verdicts[0].reason.code == "rejoining"


async def test_dead_bot_loses_one_command(fakes) -> None:
    session, bridge = await make(fakes)
    bridge.emit(event="death", bot="Alex")
    step = await session.step(["killMob(Alex, cow)", "noop(Steve)"])
    assert step.verdicts[0].reason.code == "died"
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert step.verdicts[0].ok


async def test_human_chat_becomes_standing_instructions(fakes) -> None:
    session, bridge = await make(fakes)
    bridge.emit(event="chat", **{"from": "Chef"}, message="cook chicken first")
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert session.pending_instructions() == ["Chef: cook chicken first"]
    assert session.pending_instructions() == ["Chef: cook chicken first"]  # it stands, like a page's line
    session.add_instruction("go on")
    assert session.pending_instructions() == ["Chef: cook chicken first", "go on"]


async def test_check_and_legal_commands_follow_the_observation(fakes) -> None:
    session, _ = await make(fakes, alex={"coal": 1})
    verdicts = session.check(["putFuelFurnace(Alex, coal)", "takeOutFurnace(Steve)"])
    assert [v.ok for v in verdicts] == [True, False]
    legal = session.legal_commands(0)
    assert "putFuelFurnace(Alex, coal)" in legal and "killMob(Alex, cow)" in legal
    assert "takeOutFurnace(Alex)" not in legal and "noop(Alex)" in legal
    assert session.extract_commands("do killMob(steve, pig) and noop(Alex)") == ["noop(Alex)", "killMob(Steve, pig)"]
    grammar = session.grammar()
    assert grammar and "killMob(" in grammar
    assert "Smelting recipes" in session.prompt_parts().recipes


async def test_the_legal_move_grammar_offers_exactly_the_legal_commands(fakes) -> None:
    import re

    from gbnf_regex import gbnf_to_regex

    session, _ = await make(fakes, alex={"coal": 1})
    team = re.compile(gbnf_to_regex(session.legal_grammar()))
    alex = re.compile(gbnf_to_regex(session.legal_agent_grammar(0)))
    for command in session.legal_commands(0):
        assert alex.fullmatch(command) and team.fullmatch(f"{command}\nnoop(Steve)")
    assert not alex.fullmatch("takeOutFurnace(Alex)")  # well-formed, but the furnace is empty
    assert not team.fullmatch("noop(Alex)\ntakeOutFurnace(Steve)")


async def test_planner_walks_an_order_through_the_pipeline(fakes) -> None:
    session, bridge = await make(fakes)
    planner = MinecraftPlanner()
    planner.reset(session)
    dish = session.orders.active[0].dish
    mob = {"cooked_beef": "cow", "cooked_porkchop": "pig", "cooked_mutton": "sheep", "cooked_chicken": "chicken"}[dish]
    raw = {"cow": "beef", "pig": "porkchop", "sheep": "mutton", "chicken": "chicken"}[mob]
    assert planner.act(session) == [f"killMob(Alex, {mob})", "mineBlock(Steve, coal_ore)"]

    bridge.obs["bots"]["Alex"]["inventory"][raw] = 1
    bridge.obs["bots"]["Steve"]["inventory"]["coal"] = 1
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert planner.act(session) == [f"putItemFurnace(Alex, {raw})", "putFuelFurnace(Steve, coal)"]

    del bridge.obs["bots"]["Alex"]["inventory"][raw]
    del bridge.obs["bots"]["Steve"]["inventory"]["coal"]
    bridge.obs["kitchen"]["furnaces"][0].update(output={"name": dish, "count": 1}, burn_ticks_left=200)
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert planner.act(session) == ["noop(Alex)", "takeOutFurnace(Steve)"]

    bridge.obs["kitchen"]["furnaces"][0]["output"] = None
    bridge.obs["bots"]["Steve"]["inventory"][dish] = 1
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert planner.act(session) == ["noop(Alex)", f"putInChest(Steve, {dish})"]


async def test_the_3d_view_is_asked_of_the_bridge_and_named_in_the_static_view(fakes) -> None:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    bridge.actions[("viewer", "")] = {"port": 43210}
    session = MinecraftSession(n_agents=2, address=ServerAddress(port=1, kitchen_plugin=True), bridge=bridge)
    session.serve_live_view("127.0.0.1", frozenset({"localhost", "127.0.0.1"}))
    await session.reset()
    assert ("viewer", {"bind": "127.0.0.1", "port": 0, "allowed": ["127.0.0.1", "localhost"]}) in bridge.calls
    assert session.static_view()["view3d"] == {"port": 43210}
    for hook in bridge.on_restart:  # what a restarted bridge runs: the bots rejoin, the view comes back on its port
        await hook()
    assert bridge.calls[-1] == ("viewer", {"bind": "127.0.0.1", "port": 43210, "allowed": ["127.0.0.1", "localhost"]})


async def test_a_3d_view_that_cannot_start_leaves_the_game_alone(fakes) -> None:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    bridge.actions[("viewer", "")] = ActionFailed("internal", "Cannot find module 'prismarine-viewer'")
    session = MinecraftSession(n_agents=2, address=ServerAddress(port=1, kitchen_plugin=True), bridge=bridge)
    session.serve_live_view("127.0.0.1", None)
    await session.reset()
    assert session.static_view()["view3d"] is None
    step = await session.step(["noop(Alex)", "noop(Steve)"])
    assert "Alex waited." in step.notes


async def test_without_a_game_server_there_is_no_3d_view(fakes) -> None:
    session, bridge = await make(fakes)
    assert session.static_view()["view3d"] is None
    assert not [op for op, _ in bridge.calls if op == "viewer"]
