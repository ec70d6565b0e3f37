"""Crafting and the multi-stage dish (mushroom stew): the verb, its checks and words, the order
pool, and the planner taking a stew order from nothing to the chest.

The planner test runs over the in-memory fake bridge (no Node, no Minecraft): the test plays the
world, applying each accepted command's effect to the observation the way the bridge would
report it. The real server does the same chain in test_mc_live.py (slow).
"""

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minecraft import MinecraftPlanner, MinecraftSession, ServerAddress
from minecraft.check import check_one
from minecraft.commands import Command, Verb, parse_command
from minecraft.feedback import line
from minecraft.kitchen import CRAFTING, DROP_OF_BLOCK, ORDER_DISHES
from minecraft.orders import Order, OrderBook
from minecraft.protocol import Observation
from minecraft.results import ActionDone

AGENTS = ["Alex", "Steve"]


def obs_with(fakes, alex: dict[str, int]) -> Observation:
    return Observation.model_validate(fakes.observation(Alex=fakes.bot_view(alex), Steve=fakes.bot_view()))


def test_craft_parses_and_checks_its_ingredients(fakes) -> None:
    assert parse_command("craft(alex, minecraft:Bowl)", AGENTS) == Command(Verb.CRAFT, "Alex", "bowl")
    enough = obs_with(fakes, {"oak_planks": 3})
    assert check_one(Command(Verb.CRAFT, "Alex", "bowl"), enough) is None
    short = check_one(Command(Verb.CRAFT, "Alex", "mushroom_stew"), obs_with(fakes, {"bowl": 1, "red_mushroom": 1}))
    assert short is not None and (short.code, short.detail) == ("missing_ingredients", "1 brown_mushroom")
    unknown = check_one(Command(Verb.CRAFT, "Alex", "cooked_beef"), enough)
    assert unknown is not None and unknown.code == "not_craftable"
    assert line(unknown) == "Alex could not craft(Alex, cooked_beef): the crafting table has no recipe for that (cooked_beef)."
    assert line(short) == ("Alex could not craft(Alex, mushroom_stew): it lacks ingredients (1 brown_mushroom).")
    done = ActionDone("craft(Alex, bowl)", "Alex", "craft", {"crafted": "bowl", "count": 4, "used": {"oak_planks": 3}})
    assert line(done) == "Alex crafted 4 bowl from 3 oak_planks."


def test_prompt_grammar_and_legal_commands_know_the_crafting_table(fakes) -> None:
    from minecraft.prompt import prompt_parts

    parts = prompt_parts(AGENTS)
    assert "1 bowl + 1 brown_mushroom + 1 red_mushroom -> 1 mushroom_stew" in parts.recipes
    assert "craft(Alex, item)" in parts.instructions
    session = MinecraftSession(n_agents=2, address=ServerAddress(port=1, kitchen_plugin=True),
                               bridge=fakes.FakeBridge(fakes.observation()))
    grammar = session.grammar()
    assert grammar and '"craft(Alex, " item ")"' in grammar and '"mushroom_stew"' in grammar


def meat_stream(book: OrderBook, steps: int = 300) -> list[str]:
    book.reset(0, {})
    for step in range(1, steps + 1):
        book.advance(step, {})
    return [o.dish for o in book.failed + book.active]


@given(tau=st.sampled_from([1.0, 2.0, 3.0]), seed=st.integers(0, 10_000))
def test_crafted_orders_replace_some_meat_orders_and_leave_the_rest_alone(tau: float, seed: int) -> None:
    with_stew = meat_stream(OrderBook(tau=tau, seed=seed))
    meat_only = meat_stream(OrderBook(tau=tau, seed=seed, crafted=()))
    assert with_stew == meat_stream(OrderBook(tau=tau, seed=seed))  # deterministic per (tau, seed)
    assert len(with_stew) == len(meat_only)
    assert all(a == b for a, b in zip(with_stew, meat_only, strict=True) if a != "mushroom_stew")
    assert set(with_stew) <= set(ORDER_DISHES) and "mushroom_stew" not in meat_only


def test_about_a_fifth_of_orders_are_stew() -> None:
    dishes = [d for seed in range(40) for d in meat_stream(OrderBook(tau=1.0, seed=seed))]
    share = dishes.count("mushroom_stew") / len(dishes)
    assert 0.15 < share < 0.25


def play(obs: dict[str, Any], op: str, args: dict[str, str]) -> dict[str, Any]:
    """What the world does for one accepted command (the parts the stew needs)."""
    inv = obs["bots"][args.get("bot", "")]["inventory"] if args.get("bot") in obs["bots"] else {}
    if op == "mineBlock":
        drop = DROP_OF_BLOCK[args["block"]]
        inv[drop] = inv.get(drop, 0) + 1
        return {"mined": args["block"], "collected": {drop: 1}}
    if op == "craft":
        needs, makes = CRAFTING[args["item"]]
        for item, n in needs.items():
            inv[item] -= n
            if inv[item] == 0:
                del inv[item]
        inv[args["item"]] = inv.get(args["item"], 0) + makes
        return {"crafted": args["item"], "count": makes, "used": dict(needs)}
    if op == "putInChest":
        chest = obs["kitchen"]["chests"][0]["items"]
        n = inv.pop(args["item"])
        chest[args["item"]] = chest.get(args["item"], 0) + n
        return {"put": args["item"], "count": n}
    raise AssertionError(f"the planner did not need {op} for a stew")


@pytest.mark.asyncio
async def test_planner_gathers_crafts_and_delivers_a_stew(fakes) -> None:
    class WorldBridge(fakes.FakeBridge):  # type: ignore[misc,name-defined]
        async def request(self, op: str, args: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
            if op in ("mineBlock", "craft", "putInChest", "killMob", "putItemFurnace"):
                self.calls.append((op, args or {}))
                return play(self.obs, op, args or {})
            return await super().request(op, args, timeout)

    obs = fakes.observation(Alex=fakes.bot_view(), Steve=fakes.bot_view())
    obs["kitchen"]["blocks"] += [{"name": "red_mushroom", "pos": [3, 5, -4], "present": True},
                                 {"name": "brown_mushroom", "pos": [-3, 5, -4], "present": True}]
    bridge = WorldBridge(obs)
    session = MinecraftSession(n_agents=2, tau=2.0, seed=0, address=ServerAddress(port=1, kitchen_plugin=True),
                               bridge=bridge)
    await session.reset()
    session.orders.active = [Order("mushroom_stew", 0, session.orders.lifetime)]
    planner = MinecraftPlanner()
    planner.reset(session)
    alex: list[str] = []
    for _ in range(9):
        commands = planner.act(session)
        alex.append(commands[0])
        assert commands[1] == "noop(Steve)"  # one stew, one cook; no fuel is fetched for it
        step = await session.step(commands)
        assert all(v.ok for v in step.verdicts)
        if step.completed:
            break
    assert step.completed == ["mushroom_stew"]
    assert alex == ["mineBlock(Alex, red_mushroom)", "mineBlock(Alex, brown_mushroom)", "mineBlock(Alex, oak_log)",
                    "craft(Alex, oak_planks)", "craft(Alex, bowl)", "craft(Alex, mushroom_stew)",
                    "putInChest(Alex, mushroom_stew)"]
    assert bridge.obs["bots"]["Alex"]["inventory"]["bowl"] == 3  # the rest of the batch is kept


@pytest.mark.asyncio
async def test_logs_kept_for_a_stew_are_not_burnt(fakes) -> None:
    bridge = fakes.FakeBridge(fakes.observation(Alex=fakes.bot_view({"oak_log": 1}), Steve=fakes.bot_view()))
    session = MinecraftSession(n_agents=2, address=ServerAddress(port=1, kitchen_plugin=True), bridge=bridge)
    await session.reset()
    session.orders.active = [Order("mushroom_stew", 0, 15)]
    assert MinecraftPlanner().act(session)[0] == "craft(Alex, oak_planks)"
    session.orders.active = [Order("cooked_beef", 0, 15)]
    assert MinecraftPlanner().act(session)[0] == "putFuelFurnace(Alex, oak_log)"


def test_the_page_shows_the_crafting_table_and_its_recipes(fakes) -> None:
    from minecraft.view import kitchen_view, level_view

    view = kitchen_view(obs_with(fakes, {}), AGENTS, [], {})
    assert "crafting_table" in [p["name"] for p in view["locations"]]
    static = level_view(AGENTS, 60, None)
    assert "mushroom_stew" in static["dishes"]
    stew = next(r for r in static["recipes"] if r["product"] == "mushroom_stew")
    assert stew == {"product": "mushroom_stew", "tool": "crafting_table",
                    "ingredients": ["bowl", "brown_mushroom", "red_mushroom"]}
