"""The memory layouts: the paper's sliding window and the growing window that restarts at a step
boundary, both keeping the last K turns; memory 0 keeps nothing in either."""

from __future__ import annotations

import asyncio

import pytest
from fakes import ScriptedModel
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.core.episode import run_episode
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import CHARS_PER_TOKEN, Memory
from mindagent.dispatch.prompt import PromptConfig


def test_sliding_keeps_exactly_the_last_k() -> None:
    memory = Memory(2)
    for n in range(5):
        memory.push(f"s{n}", f"a{n}")
    assert [t.shown for t in memory.turns()] == ["s3", "s4"]


def test_growing_appends_until_the_budget_then_restarts_with_the_last_k() -> None:
    turn = "x" * (10 * CHARS_PER_TOKEN - 1)  # 10 tokens with its one-character answer
    memory = Memory(2, budget_tokens=45)
    seen = []
    for n in range(9):
        memory.push(turn, str(n))
        seen.append([t.answered for t in memory.turns()])
    assert seen[:4] == [["0"], ["0", "1"], ["0", "1", "2"], ["0", "1", "2", "3"]]
    assert seen[4] == ["3", "4"]  # 50 tokens > 45: restarted at this step with the last two
    assert seen[5:] == [["3", "4", "5"], ["3", "4", "5", "6"], ["6", "7"], ["6", "7", "8"]]
    assert memory.restarts == 2


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 4), budget=st.integers(0, 300), lengths=st.lists(st.integers(0, 400), max_size=30))
def test_every_layout_shows_at_least_the_last_k_and_only_appends_between_restarts(size: int, budget: int,
                                                                                   lengths: list[int]) -> None:
    memory = Memory(size, budget_tokens=budget)
    pushed: list[str] = []
    before: list[str] = []
    for n, length in enumerate(lengths):
        memory.push("s" * length, str(n))
        pushed.append(str(n))
        now = [t.answered for t in memory.turns()]
        assert now[-size:] if size else not now  # nothing at all for memory 0
        assert now == pushed[-len(now):] if now else True  # the most recent turns, in order
        assert len(now) >= min(size, len(pushed))
        if budget == 0:
            assert len(now) == min(size, len(pushed))
        elif now[: len(before)] != before:  # not an extension of the last window: a restart to K turns
            assert len(now) == min(size, len(pushed))
        before = now


def test_negative_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Memory(-1)
    with pytest.raises(ValueError):
        Memory(2, budget_tokens=-5)


def test_each_prompt_extends_the_one_before_in_the_growing_layout() -> None:
    """What makes the prefix cache grow: the messages of step t are a prefix of step t+1's (but the
    current turn, which becomes a memory turn with the answer after it)."""
    session = CuisineSession(load_level("level_3"), n_agents=2, max_steps=6)
    session.world.reset()
    model = ScriptedModel(["noop_agent0\nnoop_agent1"])
    asyncio.run(run_episode(session, Dispatcher.for_session(session, LLMBrain(model), PromptConfig())))
    texts = [[(m.role, m.content) for m in sent] for sent in model.sent]
    for before, after in zip(texts, texts[1:], strict=False):
        assert after[: len(before)] == before
    marked = [[k for k, m in enumerate(sent) if m.cache_prefix] for sent in model.sent]
    assert len(marked[0]) == 1 and all(len(m) == 2 and m[1] == len(s) - 2 for m, s in zip(marked[1:], model.sent[1:],
                                                                                           strict=True))
    sliding = ScriptedModel(["noop_agent0\nnoop_agent1"])
    session = CuisineSession(load_level("level_3"), n_agents=2, max_steps=6)
    session.world.reset()
    asyncio.run(run_episode(session, Dispatcher.for_session(session, LLMBrain(sliding), PromptConfig(memory_budget=0))))
    assert sliding.sent[4][: len(sliding.sent[3])] != sliding.sent[3]  # the window slid: the prefix broke
    assert all(sum(m.cache_prefix for m in sent) == 1 for sent in sliding.sent)  # no mark on a sliding window


def test_the_layout_is_written_only_when_it_is_not_the_papers() -> None:
    assert PromptConfig(memory_budget=0).to_dict() == {"recipes": True, "instructions": True, "knowledge": True,
                                                       "demo": "full", "demo_agents": None, "feedback": True,
                                                       "memory": 2}
    assert PromptConfig().to_dict()["memory_budget"] == 2048
