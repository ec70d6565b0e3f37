"""Prompt assembly: a byte-stable static prefix, and each ablation removing exactly its part."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from fakes import ScriptedModel

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.core.episode import run_episode
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig


def session_for(level="level_3", agents=2, rules="reference", **kw) -> CuisineSession:
    s = CuisineSession(load_level(level, rules=rules), n_agents=agents, **kw)
    s.world.reset()
    return s


def play(config: PromptConfig, answers, steps=4, level="level_3", agents=2):
    session = session_for(level, agents, max_steps=steps)
    model = ScriptedModel(answers)
    dispatcher = Dispatcher.for_session(session, LLMBrain(model), config)
    asyncio.run(run_episode(session, dispatcher))
    return model.sent


def static_prefix(messages):
    end = next(i for i, m in enumerate(messages) if m.cache_prefix)
    return messages[: end + 1]


@pytest.mark.parametrize("demo", ["full", "few-step", "none"])
def test_static_prefix_is_byte_identical_across_steps(demo):
    sent = play(PromptConfig(demo=demo), ["goto_agent0_storage0\ngoto_agent1_storage0", "get_agent0_rice_storage0\nnoop_agent1"])
    prefixes = [static_prefix(m) for m in sent]
    assert all(p == prefixes[0] for p in prefixes)
    assert all(m[len(prefixes[0])].role == "user" for m in sent)  # dynamic part follows the prefix
    assert sent[0][-1].content != sent[1][-1].content


def test_demo_uses_a_dish_not_in_the_level_and_the_current_state_format():
    sent = play(PromptConfig(), ["noop_agent0\nnoop_agent1"], steps=1)
    system = sent[0][0].content
    assert "porkMeatcake" in system and "porkMeatcake <- blender: pork, flour" in system
    demo_turns = static_prefix(sent[0])[1:]
    assert demo_turns and demo_turns[0].role == "user" and "at(agent0, servingtable0)" in demo_turns[0].content
    assert "inside(blender0, None)" in demo_turns[0].content


ABLATIONS = {
    "knowledge": (replace(PromptConfig(), knowledge=False), "Hints:"),
    "recipes": (replace(PromptConfig(), recipes=False), "Recipes (product"),
    "instructions": (replace(PromptConfig(), instructions=False), "Commands (write them"),
    "feedback": (replace(PromptConfig(), feedback=False), "Feedback:"),
}


@pytest.mark.parametrize("name", sorted(ABLATIONS))
def test_each_ablation_removes_exactly_its_component(name):
    config, marker = ABLATIONS[name]
    full = play(PromptConfig(), ["goto_agent0_moon0\nnoop_agent1"], steps=2)[1]
    cut = play(config, ["goto_agent0_moon0\nnoop_agent1"], steps=2)[1]
    full_text = "\n".join(m.content for m in full)
    cut_text = "\n".join(m.content for m in cut)
    assert marker in full_text and marker not in cut_text
    others = [m for k, (c, m) in ABLATIONS.items() if k != name]
    for other in others:
        assert (other in full_text) == (other in cut_text), other


def test_demo_modes_and_memory_window():
    full = play(PromptConfig(), ["noop_agent0\nnoop_agent1"], steps=1)[0]
    few = play(PromptConfig(demo="few-step"), ["noop_agent0\nnoop_agent1"], steps=1)[0]
    none = play(PromptConfig(demo="none"), ["noop_agent0\nnoop_agent1"], steps=1)[0]
    assert len(none) == 2  # system + the current turn
    assert len(few) == 2 + 2 * 2
    assert len(full) > len(few)
    sent = play(PromptConfig(demo="none", memory=2, memory_budget=0), ["noop_agent0\nnoop_agent1"], steps=5)
    assert [len(m) for m in sent] == [2, 4, 6, 6, 6]  # the paper's sliding window
    sent = play(PromptConfig(demo="none", memory=2), ["noop_agent0\nnoop_agent1"], steps=5)
    assert [len(m) for m in sent] == [2, 4, 6, 8, 10]  # the growing window (under its budget)
    sent = play(PromptConfig(demo="none", memory=0), ["noop_agent0\nnoop_agent1"], steps=3)
    assert [len(m) for m in sent] == [2, 2, 2]


def test_demo_agents_flag_picks_that_demo():
    sent = play(PromptConfig(demo_agents=4), ["noop_agent0\nnoop_agent1"], steps=1)[0]
    assert "4 agents cook porkMeatcake" in sent[0].content
    assert "agent3" in static_prefix(sent)[1].content


def test_refused_command_reason_reaches_the_next_prompt():
    sent = play(PromptConfig(demo="none", memory=0), ["get_agent0_rice_storage0\nnoop_agent1", "noop_agent0\nnoop_agent1"], steps=2)
    assert "agent0 is not at storage0" in sent[1][-1].content
    assert "agent0 is not at storage0" not in sent[0][-1].content


def test_head_chef_instructions_are_shown_at_every_step():
    session = session_for(max_steps=3)
    session.add_instruction("make tunaSushi first")
    model = ScriptedModel(["noop_agent0\nnoop_agent1"])
    asyncio.run(run_episode(session, Dispatcher(LLMBrain(model), PromptConfig(demo="none"))))
    assert all("The head chef says:\n- make tunaSushi first" in sent[-1].content for sent in model.sent)
    for n in range(5):
        session.add_instruction(f"order {n}")
    assert session.pending_instructions() == ["order 2", "order 3", "order 4"]
