"""What a heterogeneous team is told: the dispatcher sees every agent's reach and knowledge; in
decentral mode each agent's own prompt holds only the recipes it knows.

A scripted model stands in for the language model: the test is about what is put in each prompt.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fakes import ScriptedModel

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.base import Message
from mindagent.recordings.recording import Recorder, read_recording


def test_the_dispatcher_is_told_every_agents_reach_and_knowledge():
    parts = CuisineSession(load_level("secret_salad"), n_agents=2).prompt_parts()
    assert "- agent0 can reach: storage0, chopboard0, chopboard1, counter0, counter1." in parts.instructions
    assert "- agent1 can reach: counter0, counter1, mixer0, mixer1, servingtable0." in parts.instructions
    assert "- agent0 knows no recipe" in parts.instructions
    assert "- agent1 knows the recipes of: tomatoSalad," in parts.instructions
    assert "counter0, counter1: counter, holds 1 item" in parts.instructions
    assert "tomatoSalad <- mixer: tomatoSlice" in parts.recipes


def test_a_level_where_everyone_reaches_everything_says_nothing_about_reach():
    parts = CuisineSession(load_level("level_3"), n_agents=3).prompt_parts()
    assert "can reach" not in parts.instructions and "knows" not in parts.instructions
    assert CuisineSession(load_level("level_3"), n_agents=3).agent_prompt_parts(1) == parts


def test_reach_without_restricted_knowledge_keeps_the_recipes_whole():
    session = CuisineSession(load_level("pass_sushi"), n_agents=2)
    assert "- agent1 can reach: counter0, counter1, pot0, pot1, mixer0, mixer1, servingtable0." in \
        session.prompt_parts().instructions
    assert "knows" not in session.prompt_parts().instructions
    assert session.agent_prompt_parts(0) == session.prompt_parts()


def _answer(n: int, messages: Sequence[Message]) -> str:
    me = re.search(r"You are (agent\d)", messages[-1].content)
    assert me is not None
    return f"noop_{me[1]}"


def test_decentral_agents_see_only_their_own_recipes(tmp_path: Path):
    spec = GameSpec("cuisineworld", "secret_salad", 2, 1.0, 0, "reference", None)
    session = domains.make_session(domains.validate(spec))
    dispatch = DispatchSettings(team="decentral")
    dispatcher = Dispatcher.for_session(session, LLMBrain(ScriptedModel(_answer)), PromptConfig(demo="none"),
                                        dispatch=dispatch)
    path = tmp_path / "d.jsonl"

    async def go() -> None:
        await session.reset(seed=0)
        recorder = Recorder(path)
        recorder.header(**spec.header(), model="test", episode=1, dispatch=dispatch.to_dict(),
                        **session.episode_header())
        await run_episode(session, dispatcher, recorder, steps=1)

    asyncio.run(go())
    step: dict[str, Any] = next(r for r in read_recording(path) if r["type"] == "step")
    agent0, agent1 = ("\n".join(m["content"] for m in call["messages"]) for call in step["calls"])
    assert "Recipes: you know none" in agent0 and "tomatoSalad <- mixer" not in agent0
    assert "agent1 knows the recipes" not in agent0
    assert "tomatoSalad <- mixer: tomatoSlice" in agent1 and "agent0 knows" not in agent1
    assert "- agent0 can reach: storage0" in agent0 and "- agent0 can reach: storage0" in agent1
