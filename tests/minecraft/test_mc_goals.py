"""Minecraft rooms that play (issue 26): goal mode (the model picks the dish, the planner carries it
out), the head chef's words held for the bots, plain labels for every verb, places by name, and
the 3D view's port; over the in-memory FakeBridge (no Node, no Minecraft)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fakes import ScriptedModel

from mindagent.core.capabilities import Directable, GoalMode
from mindagent.core.directions import directions_of, hold
from mindagent.core.domain import SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain, PolicyBrain
from mindagent.dispatch.policy import RandomLegalPolicy
from mindagent.server.decisions import dispatch_for
from mindagent.server.settings import RoomSettings
from minecraft import MinecraftPlanner, MinecraftSession, ServerAddress
from minecraft.check import candidate_commands
from minecraft.domain import DOMAIN
from minecraft.goals import GoalExecutor
from minecraft.orders import Order
from minecraft.page import page_actions
from minecraft.protocol import Observation

pytestmark = pytest.mark.asyncio


async def make(fakes: Any, alex: dict[str, int] | None = None, steve: dict[str, int] | None = None,
               **options: Any) -> tuple[MinecraftSession, Any]:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(alex), Steve=fakes.bot_view(steve)))
    session = MinecraftSession(n_agents=2, tau=2.0, seed=0, address=ServerAddress(port=1, kitchen_plugin=True),
                               bridge=bridge, **options)
    await session.reset()
    return session, bridge


async def test_goal_menu_lists_the_open_dishes_most_urgent_first(fakes: Any) -> None:
    session, _ = await make(fakes)
    assert isinstance(session, GoalMode) and isinstance(session, Directable)
    session.orders.active = [Order("cooked_beef", 0, 15), Order("cooked_chicken", 0, 5), Order("cooked_beef", 0, 9)]
    menu = session.goal_menu()
    assert menu.options == ("cooked_chicken", "cooked_beef")
    assert menu.situation.splitlines()[1:4] == ["- cooked_chicken: 5", "- cooked_beef: 9", "- cooked_beef: 15"]
    session.orders.active = []
    assert session.goal_menu().options == ()


async def test_the_executor_works_on_the_chosen_dish_first(fakes: Any) -> None:
    session, _ = await make(fakes)
    session.orders.active = [Order("cooked_beef", 0, 5), Order("cooked_chicken", 0, 15)]
    by_urgency = GoalExecutor().act(session, [])
    chosen = GoalExecutor().act(session, ["cooked_chicken"])
    assert "killMob(Alex, cow)" in by_urgency and "killMob(Alex, chicken)" in chosen, (by_urgency, chosen)


async def test_a_local_model_room_on_minecraft_plays_in_goal_mode(fakes: Any) -> None:
    session, _ = await make(fakes)
    settings = RoomSettings(GameSpec("minecraft", "minecraft", 2, 1.0, 0), "local", "test")
    model = ScriptedModel(["goal: cooked_beef"])
    model.name = "local:smollm2-135m"  # type: ignore[misc]  # the embedded model's client name
    assert dispatch_for(settings, session, LLMBrain(model)).mode == "goals"  # type: ignore[arg-type]
    assert dispatch_for(settings, session, PolicyBrain(RandomLegalPolicy(0))).mode == "step"


async def test_the_planner_follows_no_stop_and_an_agent_given_a_dish(fakes: Any) -> None:
    session, _ = await make(fakes, alex={"cooked_beef": 1})
    session.orders.active = [Order("cooked_beef", 0, 5), Order("cooked_chicken", 0, 15)]
    planner = MinecraftPlanner()
    assert planner.act(session)[0] == "putInChest(Alex, cooked_beef)"
    session.add_instruction("no cooked beef")
    told = planner.act(session)
    assert not any(re.search(r"cow\b|cooked_beef", c) for c in told), told
    session.add_instruction("Visitor: stop")  # a game client's chat line stands like a page's line
    assert planner.act(session) == ["noop(Alex)", "noop(Steve)"]
    session.add_instruction("Steve do mushroom_stew")
    for _ in range(3):  # Steve does stew work or shared work (fuel), never another dish's
        steve = planner.act(session)[1]
        assert session.command_makes(steve) in (None, "mushroom_stew"), steve


async def test_any_dispatchers_commands_are_held_to_the_words(fakes: Any) -> None:
    session, _ = await make(fakes, alex={"cooked_beef": 1})
    session.add_instruction("only cooked_chicken")
    d = directions_of(session)
    commands, replies = hold(session, d, ["putInChest(Alex, cooked_beef)", "killMob(Steve, chicken)"])
    assert commands == ["noop(Alex)", "killMob(Steve, chicken)"]
    assert replies == ["putInChest(Alex, cooked_beef) was not sent (it makes cooked_beef, which an instruction rules "
                       "out); Alex waits."]
    d = directions_of(session, ["cook faster please"])
    assert d.neutral and d.replies[0].startswith('Cannot follow "cook faster please"')
    assert "mushroom_stew" in d.replies[0]


async def test_every_verb_has_plain_words_on_the_page() -> None:
    commands = [c.text for c in candidate_commands("Alex", Observation())]
    actions = {a["command"]: a for a in page_actions(["Alex", "Steve"], 0, commands)}
    assert set(actions) == set(commands)
    for action in actions.values():
        label = action["label"]
        assert "_" not in label and "(" not in label and not label.startswith(("take from", "put into")), label
    assert actions["killMob(Alex, chicken)"]["label"] == "hunt a chicken for its chicken"
    assert actions["killMob(Alex, cow)"]["label"] == "hunt a cow for its beef"
    assert actions["putInChest(Alex, feather)"]["label"] == "put feather in the chest"
    assert actions["goto(Alex, crafting_table)"]["label"] == "go to the crafting table"
    assert actions["takeOutFurnace(Alex)"]["label"] == "take what is cooked out of the furnace"


async def test_the_board_names_where_each_bot_is(fakes: Any) -> None:
    session, bridge = await make(fakes)
    bridge.obs["bots"]["Alex"]["blocks"]["chest"]["nearest"] = 4.0  # the furnace (3.2) is nearer
    bridge.obs["bots"]["Steve"]["blocks"] = {"coal_ore": {"count": 1, "nearest": 1.5},
                                             "furnace": {"count": 1, "nearest": 9.0}}
    await session.step(["noop(Alex)", "noop(Steve)"])
    view = session.view()
    places = {t["id"] for t in view["tiles"]}
    where = {a["name"]: a["location"] for a in view["agents"]}
    assert where == {"Alex": "furnace", "Steve": "coal_ore"} and set(where.values()) <= places


async def test_the_3d_view_port_is_a_flag(fakes: Any) -> None:
    spec = DOMAIN.validate(GameSpec("minecraft", None, 2, 2.0, 0, options={"mc_view_port": 8811}))
    assert DOMAIN.make_session(spec)._view_wanted == 8811
    with pytest.raises(SpecError, match="--mc-view-port 70000"):
        DOMAIN.validate(GameSpec("minecraft", None, 2, 2.0, 0, options={"mc_view_port": 70000}))
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view()))
    bridge.actions[("viewer", "")] = {"port": 8811}
    session = MinecraftSession(n_agents=2, seed=0, address=ServerAddress(port=1, kitchen_plugin=True), bridge=bridge,
                               view_port=8811)
    session.serve_live_view("127.0.0.1", None)
    await session.reset()
    assert ("viewer", {"bind": "127.0.0.1", "port": 8811, "allowed": []}) in bridge.calls
    assert session.static_view()["view3d"] == {"port": 8811}


async def test_the_plugin_offers_the_flag_on_serve() -> None:
    from minecraft.plugin import PLUGIN

    flag = next(o for o in PLUGIN.options if o.flag == "--mc-view-port")
    assert flag.name == "mc_view_port" and "serve" in flag.commands


async def test_a_chat_line_is_answered_in_the_game(fakes: Any) -> None:
    session, bridge = await make(fakes)
    bridge.emit(event="chat", **{"from": "Visitor"}, message="no cooked_beef")
    bridge.emit(event="chat", **{"from": "Visitor"}, message="dance for me")
    await session.step(["noop(Alex)", "noop(Steve)"])
    said = [args["text"] for op, args in bridge.calls if op == "chat"]
    assert said[0] == "Understood: never make cooked_beef."
    assert said[1].startswith('Cannot follow "Visitor: dance for me": the words understood are make X, only X')
    assert session.pending_instructions() == ["Visitor: no cooked_beef", "Visitor: dance for me"]
    await session.step(["noop(Alex)", "noop(Steve)"])
    assert len([op for op, _ in bridge.calls if op == "chat"]) == 2  # each line is answered once
