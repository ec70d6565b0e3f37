"""The seat race: a decision made while the model thinks must not command an agent a person sat
down at meanwhile (the guard in `mindagent.server.decisions.joint_commands`).

The model is a scripted fake that answers only when the test opens a gate, so the model's latency,
and who sits down during it, is under the test's control; no real model and no network.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from fakes import ScriptedModel

from mindagent.dispatch.brains import LLMBrain
from mindagent.llm.base import Completion, GenerationConfig, Message

#: What the fake model answers: a command for each of the two agents.
ANSWER = "goto_agent0_storage0\ngoto_agent1_pot0"


class GatedModel(ScriptedModel):
    """A deterministic slow model: it answers `ANSWER` once the test sets `gate`."""

    def __init__(self) -> None:
        super().__init__([ANSWER])
        self.gate = asyncio.Event()
        #: The prompts asked so far, kept as the call starts (`sent` fills only once answered).
        self.asked: list[list[Message]] = []

    async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                       grammar: str | None = None) -> Completion:
        self.asked.append(list(messages))
        await self.gate.wait()
        return await super().complete(messages, config, grammar)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def _thinking_room(make_room: Any, member: Any) -> tuple[Any, GatedModel]:
    """A running room whose dispatcher is asked (for both agents: nobody plays yet) and still thinks."""
    model = GatedModel()
    room = await make_room(LLMBrain(model))
    room.join(member("watcher"), "spectator")
    room.start()
    await settle()
    assert len(model.asked) == 1 and room.dispatcher_info()["thinking"]
    assert "played by a person" not in model.asked[0][-1].content  # asked while every agent was the dispatcher's
    return room, model


@pytest.mark.asyncio
async def test_a_person_who_sits_down_while_the_model_thinks_keeps_their_agent(make_room: Any, member: Any) -> None:
    room, model = await _thinking_room(make_room, member)
    me = member("me")
    room.join(me, "player", 0)
    mine = next(c for c in room.session.legal_commands(0) if c.startswith("goto") and c != "goto_agent0_storage0")
    room.queue_command(me, mine)
    model.gate.set()
    await settle()
    assert room._ready is not None and "goto_agent0_storage0" in room._ready.commands  # the stale decision arrived
    assert await room.step()
    actions = room.state()["last_step"]["actions"]
    assert actions[0] == {"agent": 0, "command": mine, "ok": True, "reason": None, "code": None, "by": "human",
                          "idle": False, "wait": False, "source": "human"}
    assert actions[1]["command"] == "goto_agent1_pot0" and actions[1]["by"] == "dispatcher"
    assert actions[1]["source"] == "model"  # the scripted model wrote it
    assert room.session.world.agent_location(0) == mine.split("_")[-1]


@pytest.mark.asyncio
async def test_a_person_who_sits_down_and_waits_is_not_moved_by_the_stale_decision(make_room: Any,
                                                                                   member: Any) -> None:
    room, model = await _thinking_room(make_room, member)
    room.join(member("me"), "player", 0)  # sits down, sends nothing this step
    model.gate.set()
    await settle()
    assert await room.step()
    actions = room.state()["last_step"]["actions"]
    assert actions[0]["by"] == "human" and actions[0]["idle"] and actions[0]["command"] == "noop_agent0"
    assert room.session.world.agent_location(0) != "storage0"
    assert actions[1]["command"] == "goto_agent1_pot0"
