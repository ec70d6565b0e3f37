"""The head chef's words, read once in the core (`mindagent.core.directions`): the forms, the
replies, holding any dispatcher's commands, the prompt's section and goal mode's menu."""

from __future__ import annotations

import asyncio

import pytest
from fakes import ScriptedModel
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.core.directions import answer, answer_standing, directions_of, hold, read_directions
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.memory import Memory
from mindagent.dispatch.prompt import PromptConfig, format_turn

KITCHEN = {"salmonSashimi": frozenset(), "tunaSashimi": frozenset(),
           "mixedSashimi": frozenset({"salmonSashimi", "tunaSashimi"})}
BOTS = {"cooked_beef": frozenset(), "mushroom_stew": frozenset()}


def test_each_form_in_a_kitchens_and_in_minecrafts_words() -> None:
    d = read_directions(["only mixed sashimi", "no salmon_sashimi", "agent1 do mixedSashimi", "make Mixed Sashimi."],
                        KITCHEN, ["agent0", "agent1"])
    assert d.allowed == frozenset({"mixedSashimi"}) and d.banned == {"salmonSashimi"}
    assert d.assigned == {1: "mixedSashimi"} and d.make == "mixedSashimi" and not d.replies
    bots = read_directions(["Steve, do mushroom stew", "Visitor: no cooked beef"], BOTS, ["Alex", "Steve"])
    assert bots.assigned == {1: "mushroom_stew"} and bots.banned == {"cooked_beef"} and not bots.replies
    assert read_directions(["only cooked_beef", "stop", "go on"], BOTS, ["Alex"]).neutral
    assert read_directions(["stop"], BOTS, ["Alex"]).stopped
    assert not read_directions(["stop", "make cooked_beef"], BOTS, ["Alex"]).stopped  # a new order resumes


def test_a_line_that_cannot_be_followed_gets_one_reply_saying_why() -> None:
    d = read_directions(["please hurry", "only pizza", "agent7 do tunaSashimi", "Kai do cooked_beef"], KITCHEN,
                        ["agent0", "agent1"])
    assert d.neutral and len(d.replies) == 4
    assert d.replies[0] == ('Cannot follow "please hurry": the words understood are make X, only X, no X, agentK do X, '
                            "stop, go on (X: one of salmonSashimi, tunaSashimi, mixedSashimi).")
    assert '"pizza" is not one of salmonSashimi' in d.replies[1]
    assert "there is no agent7 (the agents are agent0, agent1)" in d.replies[2]
    assert d.replies[3].startswith('Cannot follow "Kai do cooked_beef": the words understood')
    assert answer("no tunaSashimi", KITCHEN, ["agent0"]) == (True, "Understood: never make tunaSashimi.")
    assert answer("go on", KITCHEN, ["agent0"]) == (True, "Understood: earlier instructions are forgotten.")
    assert answer("sing", KITCHEN, ["agent0"])[0] is False


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=6))
def test_any_text_is_either_followed_or_answered(lines: list[str]) -> None:
    d = read_directions(lines, KITCHEN, ["agent0", "agent1"])
    assert (d.allowed or frozenset()) <= set(KITCHEN) and d.banned <= set(KITCHEN)
    assert set(d.assigned) <= {0, 1} and set(d.assigned.values()) <= set(KITCHEN)
    for line in lines:
        understood, reply = answer(line, KITCHEN, ["agent0", "agent1"])
        assert reply and understood == reply.startswith("Understood")


async def kitchen_with_salmon_on_the_board() -> CuisineSession:
    session = CuisineSession(load_level("level_2"), n_agents=2, tau=1.0, seed=0)
    await session.reset()
    for commands in (["goto_agent0_storage0"], ["get_agent0_salmon_storage0"], ["goto_agent0_chopboard0"],
                     ["put_agent0_chopboard0"]):
        assert all(v.ok for v in (await session.step([*commands, "noop_agent1"])).verdicts)
    return session


@pytest.mark.asyncio
async def test_commands_are_held_to_the_words_and_a_part_of_an_allowed_dish_is_allowed() -> None:
    session = await kitchen_with_salmon_on_the_board()
    chop = ["activate_agent0_chopboard0", "goto_agent1_storage0"]
    assert session.command_makes(chop[0]) == "salmonSashimi" and session.command_makes(chop[1]) is None
    for allowed in (["only mixedSashimi"], ["agent0 do mixedSashimi"], ["agent1 do tunaSashimi"], []):
        assert hold(session, directions_of(session, allowed), chop) == (chop, []), allowed
    held, replies = hold(session, directions_of(session, ["agent0 do tunaSashimi"]), chop)
    assert held == ["noop_agent0", "goto_agent1_storage0"]
    assert replies == ["activate_agent0_chopboard0 was not sent (it makes salmonSashimi, and agent0 is to work on "
                       "tunaSashimi only); agent0 waits."]
    held, replies = hold(session, directions_of(session, ["stop"]), chop)
    assert held == ["noop_agent0", "noop_agent1"] and len(replies) == 2
    held, _ = hold(session, directions_of(session, ["no salmonSashimi"]), chop)
    assert held[0] == "noop_agent0"


def test_the_prompt_tells_the_model_the_standing_orders() -> None:
    turn = format_turn(3, "State here", ["agent0 took tuna"], ["no tunaSushi"], held=["never make tunaSushi"])
    assert turn.splitlines()[3:6] == ["- no tunaSushi", "Standing orders (a command that breaks one is not carried out; "
                                      "that agent waits):", "- never make tunaSushi"]
    assert "Standing orders" not in format_turn(3, "State here", [], [])


def test_goal_mode_leaves_a_ruled_out_dish_off_the_menu_and_asks_nothing_under_stop() -> None:
    async def plan(lines: list[str]) -> tuple[object, ScriptedModel]:
        session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
        await session.reset()
        for _ in range(12):  # until both dishes are ordered
            await session.step(["noop_agent0", "noop_agent1"])
        assert len(session.goal_menu().options) == 2  # type: ignore[union-attr]
        for line in lines:
            session.add_instruction(line)
        model = ScriptedModel(["goal: salmonSushi"])
        dispatcher = Dispatcher.for_session(session, LLMBrain(model), PromptConfig(), dispatch=DispatchSettings("goals"))
        made, _, _ = await dispatcher.make_plan(session, Memory(0), [], session.pending_instructions())
        return made, model

    free, asked = asyncio.run(plan([]))
    assert free.goals == ["salmonSushi"] and len(asked.sent) == 1  # type: ignore[attr-defined]
    told, asked = asyncio.run(plan(["no salmonSushi"]))
    assert told.goals == ["tunaSushi"] and told.chosen_by == "forced" and not asked.sent  # type: ignore[attr-defined]
    stopped, asked = asyncio.run(plan(["stop"]))
    assert stopped.chosen_by == "stopped" and not asked.sent  # type: ignore[attr-defined]
    made, asked = asyncio.run(plan(["make tunaSushi"]))
    assert "Choose from: tunaSushi, salmonSushi" in asked.sent[0][-1].content
    assert "Standing orders: make tunaSushi ahead" in asked.sent[0][-1].content


@pytest.mark.asyncio
async def test_a_line_that_clashes_with_the_standing_ones_is_answered_so() -> None:
    session = CuisineSession(load_level("level_2"), n_agents=2, tau=1.0, seed=0)
    await session.reset()
    session.add_instruction("no tunaSashimi")
    assert answer_standing(session, "no tunaSashimi") == (True, "Understood: never make tunaSashimi.")
    session.add_instruction("agent1 do tuna sashimi")
    assert answer_standing(session, "agent1 do tuna sashimi") == (
        False, "agent1 cannot work on tunaSashimi: another instruction rules tunaSashimi out.")
