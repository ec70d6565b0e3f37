"""One room driven directly (no network, no scheduler): seats, steps, the dispatcher task, recordings."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from fakes import ScriptedModel

from mindagent.dispatch.brains import LLMBrain, PolicyBrain
from mindagent.llm.base import Completion, GenerationConfig, Message
from mindagent.recordings.recording import read_recording
from mindagent.recordings.replay import replay_recording_async
from mindagent.server.protocol import ProtocolError


async def settle() -> None:
    """Let the dispatcher task started after a step run (a policy answers at once)."""
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_a_player_command_runs_at_the_next_step_and_the_dispatcher_the_rest(make_room: Any, member: Any) -> None:
    room = await make_room()
    me = member("me")
    room.join(me, "player", 0)
    assert room.status == "running" and me.of_type("joined")[0]["agent"] == 0
    await settle()
    assert room.queue_command(me, "goto_agent0_storage0") == 0
    assert await room.step()
    last = room.state()["last_step"]
    assert last["actions"][0] == {"agent": 0, "command": "goto_agent0_storage0", "ok": True, "reason": None,
                                  "code": None, "by": "human", "idle": False, "wait": False, "source": "human"}
    assert last["actions"][1]["by"] == "dispatcher" and not last["actions"][1]["idle"]
    assert room.session.world.agent_location(0) == "storage0"
    state = me.of_type("state")[-1]
    assert state["step"] == 1 and state["you"]["legal"] == room.session.legal_commands(0)


@pytest.mark.asyncio
async def test_a_player_cannot_command_another_agent_and_spectators_command_none(make_room: Any, member: Any) -> None:
    room = await make_room()
    me, watcher, other = member("me"), member("watcher"), member("other")
    room.join(me, "player", 0)
    room.join(watcher, "spectator")
    with pytest.raises(ProtocolError) as exc:
        room.queue_command(me, "goto_agent1_storage0")
    assert exc.value.code == "forbidden" and "agent1 is not yours" in exc.value.message
    with pytest.raises(ProtocolError) as exc:
        room.queue_command(watcher, "goto_agent0_storage0")
    assert exc.value.code == "forbidden"
    with pytest.raises(ProtocolError) as exc:
        room.queue_command(me, "fly_agent0_moon")
    assert exc.value.code == "bad_command" and "unknown action" in exc.value.message
    with pytest.raises(ProtocolError) as exc:
        room.join(other, "player", 0)
    assert exc.value.code == "seat_taken"
    with pytest.raises(ProtocolError) as exc:
        room.join(other, "player", 5)
    assert exc.value.code == "invalid"


@pytest.mark.asyncio
async def test_a_late_dispatcher_leaves_its_agents_idle_and_is_used_later(make_room: Any, member: Any) -> None:
    gate = asyncio.Event()

    class SlowModel(ScriptedModel):
        """A fake model that answers only when the test opens the gate (latency under test control)."""

        async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                           grammar: str | None = None) -> Completion:
            await gate.wait()
            return await super().complete(messages, config, grammar)

    model = SlowModel(["goto_agent0_storage0\ngoto_agent1_pot0"])
    room = await make_room(LLMBrain(model))
    me = member("me")
    room.join(me, "spectator")
    room.start()
    await room.step()  # the model has not answered: both agents idle
    actions = room.state()["last_step"]["actions"]
    assert [a["idle"] for a in actions] == [True, True] and actions[0]["by"] == "dispatcher"
    gate.set()
    await settle()
    await room.step()  # the late answer is used now
    actions = room.state()["last_step"]["actions"]
    assert [a["command"] for a in actions] == ["goto_agent0_storage0", "goto_agent1_pot0"]
    assert all(a["ok"] and not a["idle"] for a in actions)


@pytest.mark.asyncio
async def test_head_chef_words_and_the_person_reach_the_dispatcher_prompt(make_room: Any, member: Any) -> None:
    # A scripted fake model: the test is about what the room puts in the prompt, not about a model.
    model = ScriptedModel(["goto_agent1_storage0"])
    room = await make_room(LLMBrain(model))
    chef, player = member("chef"), member("player")
    room.join(chef, "head_chef")
    room.join(player, "player", 0)
    room.instruct(chef, "agent1,\nmake the tuna sushi first")
    room.queue_command(player, "goto_agent0_storage0")
    for _ in range(2):
        await settle()
        await room.step()
    await settle()
    prompts = [sent[-1].content for sent in model.sent]
    assert any("The head chef says:\n- agent1, make the tuna sushi first" in p for p in prompts)
    assert any("agent0 is played by a person. Last step it did: goto_agent0_storage0 (done)" in p for p in prompts)
    assert "Last step it did: nothing (no command in time)" in prompts[-1]
    with pytest.raises(ProtocolError):
        room.instruct(player, "I am not the chef")


@pytest.mark.asyncio
async def test_a_dispatcher_exception_is_a_room_error_and_an_idle_step(make_room: Any, member: Any) -> None:
    class Broken:
        name = "broken"

        def reset(self, session: object) -> None: ...

        def act(self, session: object) -> list[str]:
            raise RuntimeError("planner bug")

    room = await make_room(PolicyBrain(Broken()))
    me = member("me")
    room.join(me, "head_chef")
    await settle()
    assert await room.step()  # a built-in policy decides at the step, once people's commands are known
    await settle()
    assert me.of_type("room_error") and "planner bug" in me.of_type("room_error")[0]["message"]
    assert all(a["idle"] for a in room.state()["last_step"]["actions"])
    assert room.status == "running" and room.session.step_index == 1


@pytest.mark.asyncio
async def test_turn_mode_steps_when_every_player_has_chosen(make_room: Any, member: Any) -> None:
    room = await make_room(mode="turns")
    me = member("me")
    room.join(me, "player", 0)
    await settle()
    assert not await room.step(force=False)  # the player has not chosen yet
    room.queue_command(me, "goto_agent0_storage0")
    await settle()  # the queued command kicked a step
    assert room.session.step_index == 1


@pytest.mark.asyncio
async def test_episode_end_questionnaire_recording_and_restart(make_room: Any, member: Any) -> None:
    room = await make_room(steps=3)
    me = member("me")
    room.join(me, "player", 1)
    for _ in range(3):
        await settle()
        await room.step()
    assert room.status == "finished" and me.of_type("episode_over")
    answers = {"enjoyment": 5, "productivity": 4, "trust": 3, "predictability": 2, "dependability": 1, "helpfulness": 4}
    room.answer(me, answers, "  fun  ")
    with pytest.raises(ProtocolError):
        room.answer(me, answers, "again")
    path = room.log.path
    assert path is not None
    records = read_recording(path)
    kinds = [r["type"] for r in records]
    assert kinds[0] == "header" and kinds.count("step") == 3 and kinds.index("end") < kinds.index("questionnaire")
    survey = records[-1]
    assert survey["answers"] == answers and survey["comment"] == "fun" and survey["agent"] == 1
    assert (await replay_recording_async(path)).steps == 3  # the server's recording replays like any other
    await room.restart()
    assert room.status == "running" and room.episode == 2 and room.session.step_index == 0
    assert room.log.path == path  # the next episode's file opens with its first step
    await room.step()
    assert room.log.path is not None and room.log.path != path and room.log.path.name.endswith("_e2.jsonl")
