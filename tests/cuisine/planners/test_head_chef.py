"""The planner follows the head chef's small instruction language and says when it cannot."""

from __future__ import annotations

import asyncio
from collections import Counter

from cuisineworld import load_level
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.adapter.planners.head_chef import read_orders
from cuisineworld.adapter.session import CuisineSession

DISHES = ("salmonSushi", "tunaSushi")


def test_the_language_reads_each_form_and_later_lines_override() -> None:
    orders = read_orders(["only tuna sushi", "no salmon_sushi", "agent1 do tunaSushi", "make TunaSushi."], DISHES, 2)
    assert orders.allowed == frozenset({"tunaSushi"}) and orders.banned == {"salmonSushi"}
    assert orders.assigned == {1: "tunaSushi"} and orders.make == "tunaSushi" and not orders.replies
    assert read_orders(["stop"], DISHES, 2).stopped
    assert read_orders(["only tunaSushi", "stop", "go on"], DISHES, 2) == read_orders([], DISHES, 2)


def test_lines_it_cannot_follow_get_a_reply_naming_what_it_understands() -> None:
    orders = read_orders(["please hurry", "only pizza", "agent7 do tunaSushi"], DISHES, 2)
    assert len(orders.replies) == 3
    assert "the words understood are make X, only X, no X, agentK do X, stop" in orders.replies[0]
    assert '"pizza" is not one of salmonSushi, tunaSushi' in orders.replies[1]
    assert "there is no agent7" in orders.replies[2]
    assert orders.allowed is None and not orders.assigned


async def _play(instructions: dict[int, str], steps: int = 60) -> tuple[Counter[tuple[bool, str]], list[str], CuisineSession]:
    """Play level_3 with two planner agents; return what each activation made (before/after step 5)."""
    session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0, max_steps=steps)
    await session.reset()
    planner = CuisinePlanner()
    made: Counter[tuple[bool, str]] = Counter()
    replies: list[str] = []
    for t in range(steps):
        if t in instructions:
            session.add_instruction(instructions[t])
        result = await session.step(planner.act(session))
        replies += planner.take_replies()
        assert all(v.ok for v in result.verdicts), [v for v in result.verdicts if not v.ok]
        for v in result.verdicts:
            if v.command.startswith("activate"):
                made[(t >= 5, "+".join(session.world.location_content(v.command.split("_")[-1])))] += 1
    return made, replies, session


def test_only_tuna_sushi_means_only_tuna_sushi_is_made_afterwards() -> None:
    made, replies, session = asyncio.run(_play({5: "only tunaSushi"}))
    after = {item for (late, item), n in made.items() if late and n}
    assert after and after <= {"tunaSushi", "tunaSashimi", "cookedRice"}, made
    assert made[(True, "tunaSushi")] >= 3 and session.world.counts.completed >= 3
    assert not replies


def test_no_and_stop_are_followed_and_a_bad_line_is_answered_once() -> None:
    made, replies, _ = asyncio.run(_play({0: "no tunaSushi", 1: "dance!"}))
    assert not any("tuna" in item.lower() for (_, item) in made), made
    assert replies == ['Cannot follow "dance": the words understood are '
                       'make X, only X, no X, agentK do X, stop, go on (X: one of salmonSushi, tunaSushi).']
    session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
    asyncio.run(session.reset())
    session.add_instruction("stop")
    assert CuisinePlanner().act(session) == ["noop_agent0", "noop_agent1"]


def test_an_agent_given_a_dish_works_on_that_dish() -> None:
    made, replies, _ = asyncio.run(_play({0: "agent1 do salmonSushi", 1: "agent0 do tunaSushi"}))
    assert made[(True, "salmonSushi")] >= 1 and made[(True, "tunaSushi")] >= 1 and not replies
