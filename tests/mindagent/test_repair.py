"""The repair loop: on refusals the model is asked again within the same step, with the reasons."""

from __future__ import annotations

import asyncio

from fakes import ScriptedModel

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import Memory
from mindagent.dispatch.prompt import PromptConfig


def decide(answers, repair):
    session = CuisineSession(load_level("level_3"), n_agents=2)
    session.world.reset()
    model = ScriptedModel(answers)
    decision = asyncio.run(Dispatcher(LLMBrain(model), PromptConfig(demo="none"), repair=repair).decide(session, Memory(2), []))
    return decision, model


def test_refused_commands_are_sent_back_with_their_reasons():
    decision, model = decide(["get_agent0_rice_storage0\nnoop_agent1", "goto_agent0_storage0\nnoop_agent1"], repair=2)
    assert decision.commands == ["goto_agent0_storage0", "noop_agent1"]
    assert all(v.ok for v in decision.verdicts)
    assert len(decision.calls) == 2
    retry = model.sent[1]
    assert retry[-2].role == "assistant" and retry[-2].content.startswith("get_agent0_rice_storage0")
    assert "agent0 is not at storage0" in retry[-1].content


def test_no_repair_keeps_the_first_answer_and_repair_stops_after_n():
    decision, model = decide(["get_agent0_rice_storage0\nnoop_agent1"], repair=0)
    assert len(decision.calls) == 1 and not decision.verdicts[0].ok
    decision, model = decide(["get_agent0_rice_storage0\nnoop_agent1"], repair=2)
    assert len(decision.calls) == 3  # asked twice more, still refused: the last answer is used


def test_an_answer_without_commands_is_asked_again():
    decision, model = decide(["I am not sure.", "noop_agent0\nnoop_agent1"], repair=1)
    assert decision.commands == ["noop_agent0", "noop_agent1"]
    assert "No command could be read" in model.sent[1][-1].content
