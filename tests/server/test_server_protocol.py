"""The protocol end to end: a real server on a loopback port, real websocket clients."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fakes import ScriptedModel
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from mindagent.dispatch.brains import LLMBrain, PolicyBrain
from mindagent.recordings.recording import read_recording
from mindagent.server import GameServer

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
ANSWERS = {"enjoyment": 4, "productivity": 5, "trust": 3, "predictability": 4, "dependability": 2, "helpfulness": 5}


async def create(c: Any, server: GameServer, **fields: Any) -> dict[str, Any]:
    reply = await c.request("create_room", admin_token=server.admin_token, **fields)
    assert reply["type"] == "room_created", reply
    return reply


async def test_the_startup_room_is_public_and_says_which_dispatcher_and_why(server: GameServer, client: Any) -> None:
    c = await client()
    listing = await c.request("list_rooms")
    assert [r["room"] for r in listing["rooms"]] == [server.startup_room.id]
    joined = await c.request("join", room=server.startup_room.id, role="player", agent=0)
    assert joined["type"] == "joined" and joined["agent"] == 0 and joined["level"] == "level_3"
    assert {r["product"] for r in joined["recipes"]} >= {"salmonSushi", "tunaSushi"}
    dispatcher = joined["state"]["dispatcher"]
    assert dispatcher == {"model": "tiny", "why": "the test's tiny policy", "name": "tiny-test-policy",
                          "thinking": dispatcher["thinking"], "reads": dispatcher["reads"]}
    assert dispatcher["reads"].startswith("The built-in team follows make X, only X, no X, agentK do X, stop, go on")
    assert joined["state"]["you"]["legal"] == server.startup_room.session.legal_commands(0)


async def test_create_join_play_and_spectate(server: GameServer, client: Any) -> None:
    admin, player, watcher = await client(), await client(), await client()
    bad = await admin.request("create_room", admin_token="guess")
    assert bad["code"] == "unauthorized"
    made = await create(admin, server, agents=3, tau=2.0, level="level_1", mode="realtime", tick=0.05)
    room_id, secret = made["room"], made["secret"]
    assert secret and made["summary"]["agents"] == 3
    assert room_id not in [r["room"] for r in (await player.request("list_rooms"))["rooms"]]  # private
    assert len(room_id) == 32  # 128 bits
    # a private room without its secret is answered exactly like a room that does not exist
    missing = await player.request("join", room="0" * 32, role="player", agent=2)
    nosecret = await player.request("join", room=room_id, role="player", agent=2)
    wrong = await player.request("join", room=room_id, secret="wrong", role="player", agent=2)
    assert {k: v for k, v in missing.items() if k != "re"} == {k: v for k, v in nosecret.items() if k != "re"} \
        == {k: v for k, v in wrong.items() if k != "re"}
    assert missing["code"] == "no_room"
    joined = await player.request("join", room=room_id, secret=secret, role="player", agent=2)
    assert joined["type"] == "joined" and joined["state"]["status"] == "running"
    await watcher.request("join", room=room_id, secret=secret, role="spectator")

    room = server.registry.get(room_id)
    state = await player.next("state", lambda m: m["you"]["legal"])
    command = next(c for c in state["you"]["legal"] if c.startswith("goto"))
    queued = await player.request("command", command=command)
    assert queued["type"] == "queued" and queued["command"] == command
    played = await player.next("state", lambda m: m["last_step"] and m["last_step"]["actions"][2]["by"] == "human"
                               and not m["last_step"]["actions"][2]["idle"])
    action = played["last_step"]["actions"][2]
    assert action["command"] == command and action["ok"]
    assert played["agents"][2]["location"] == command.split("_")[-1]
    assert played["controllers"] == ["dispatcher", "dispatcher", "human"]

    seen = await watcher.next("state", lambda m: m["step"] >= played["step"])
    assert seen["you"] == {"role": "spectator", "agent": None} and seen["people"]["spectator"] == 1
    refused = await watcher.request("command", command="noop_agent0")
    assert refused["code"] == "forbidden"
    assert room.ticks > 0


async def test_a_player_cannot_command_another_players_agent(server: GameServer, client: Any) -> None:
    room_id = server.startup_room.id
    alice, bob = await client(), await client()
    await alice.request("join", room=room_id, role="player", agent=0)
    taken = await bob.request("join", room=room_id, role="player", agent=0)
    assert taken["code"] == "seat_taken"
    await bob.request("join", room=room_id, role="player", agent=1)
    refused = await alice.request("command", command="goto_agent1_storage0")
    assert refused["type"] == "error" and refused["code"] == "forbidden"
    assert refused["message"] == "you control agent0; agent1 is not yours"
    assert server.startup_room._queued.get(1) is None
    unreadable = await alice.request("command", command="goto_agent0_moon")
    assert unreadable["code"] == "bad_command" and "no moon" in unreadable["message"]


async def test_head_chef_instructions_reach_the_dispatcher_prompt(server: GameServer, client: Any) -> None:
    # The model is a scripted fake (tests/fakes.py): this test is about what the server puts into
    # the dispatcher's prompt, which the fake keeps; a real model would only add time and noise.
    model = ScriptedModel(lambda n, messages: "goto_agent1_storage0\ngoto_agent2_pot0")
    server.registry.brain_factory = lambda spec, domain: LLMBrain(model)
    admin, chef, player = await client(), await client(), await client()
    made = await create(admin, server, agents=3, model="scripted", tick=0.05)
    await chef.request("join", room=made["room"], secret=made["secret"], role="head_chef")
    await player.request("join", room=made["room"], secret=made["secret"], role="player", agent=0)
    ack = await chef.request("instruct", text="agent1, fetch the tuna; agent2 start the rice")
    assert ack["type"] == "ack"
    await player.next("event", lambda m: m["text"].startswith("head chef:"))
    for _ in range(100):
        prompts = [sent[-1].content for sent in model.sent]
        if any("The head chef says:\n- agent1, fetch the tuna; agent2 start the rice" in p for p in prompts):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail(f"the instruction never reached the model; last prompt:\n{model.sent[-1][-1].content}")
    assert "agent0 is played by a person" in model.sent[-1][-1].content
    state = await player.next("state")
    assert state["head_chef"][-1]["text"] == "agent1, fetch the tuna; agent2 start the rice"
    assert state["dispatcher"]["model"] == "scripted"
    assert state["dispatcher"]["why"] == "chosen when the room was created"
    refused = await player.request("instruct", text="I am not the chef")
    assert refused["code"] == "forbidden"


async def test_garbage_frames_get_errors_while_the_room_keeps_ticking(server: GameServer, client: Any) -> None:
    room = server.startup_room
    c = await client()
    await c.request("join", room=room.id, role="player", agent=0)
    ticks_before = room.ticks
    garbage: list[tuple[str | bytes, str]] = [
        ("{this is not json", "bad_json"),
        ("[" * 4000, "bad_json"),
        ("x" * (20 * 1024), "too_large"),
        (json.dumps({"v": 1, "type": "teleport", "to": "moon"}), "unknown_type"),
        (json.dumps({"v": 1, "type": "join", "room": 12, "role": "player", "agent": "zero"}), "invalid"),
        (json.dumps({"v": 1, "type": "command", "command": ["goto_agent0_storage0"]}), "invalid"),
        (json.dumps({"v": 9, "type": "ping"}), "bad_version"),
        (json.dumps([1, 2, 3]), "bad_message"),
        (b"\x00\xffbinary", "binary_frame"),
    ]
    for frame, code in garbage:
        await c.raw(frame)
        error = await c.next("error")
        assert error["code"] == code, (frame[:40], error)
    assert (await c.request("ping"))["type"] == "pong"  # the same connection still works

    # Over the hard limit websockets closes that one connection (1009); nothing else is affected.
    rude = await client()
    await rude.raw("y" * (200 * 1024))
    with pytest.raises(ConnectionClosed) as closed:
        await rude.next(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    for _ in range(100):  # the clock went on meanwhile (polled: a loaded machine may be slow)
        if room.ticks > ticks_before + 3:
            break
        await asyncio.sleep(0.05)
    assert room.ticks > ticks_before + 3 and room.status == "running"
    later = await c.next("state", lambda m: m["ticks"] > ticks_before + 3)
    assert later["status"] == "running"
    fresh = await client()
    assert (await fresh.request("ping"))["type"] == "pong"


async def test_a_flood_is_rate_limited_and_the_connection_recovers(server: GameServer, client: Any) -> None:
    c = await client()
    for n in range(80):
        await c.ws.send(json.dumps({"v": 1, "type": "ping", "id": n}))
    limited = await c.next("error", lambda m: m["code"] == "rate_limited")
    assert "slow down" in limited["message"]
    await asyncio.sleep(1.0)
    assert (await c.request("ping"))["type"] == "pong"


async def test_turn_mode_waits_for_the_player_then_the_timer(server: GameServer, client: Any) -> None:
    admin, player = await client(), await client()
    made = await create(admin, server, agents=2, mode="turns", tick=0.05, turn_timeout=1.0)
    await player.request("join", room=made["room"], secret=made["secret"], role="player", agent=0)
    room = server.registry.get(made["room"])
    await asyncio.sleep(0.4)
    assert room.session.step_index == 0  # nobody chose yet and the timer has not run out
    await player.request("command", command="goto_agent0_storage0")
    stepped = await player.next("state", lambda m: m["step"] == 1, timeout=2)
    assert stepped["last_step"]["actions"][0]["command"] == "goto_agent0_storage0"
    timed_out = await player.next("state", lambda m: m["step"] == 2, timeout=3)
    assert timed_out["last_step"]["actions"][0]["idle"]  # the timer stepped without the player


async def test_episode_end_questionnaire_and_restart(server: GameServer, client: Any) -> None:
    admin, player = await client(), await client()
    made = await create(admin, server, agents=2, steps=4, tick=0.05)
    await player.request("join", room=made["room"], secret=made["secret"], role="player", agent=1)
    too_early = await player.request("questionnaire", answers=ANSWERS)
    assert too_early["code"] == "bad_state"
    over = await player.next("episode_over", timeout=5)
    assert [q["id"] for q in over["questionnaire"]] == list(ANSWERS)
    assert set(over["counts"]) == {"completed", "failed", "active"}
    assert (await player.request("questionnaire", answers=ANSWERS, comment="nice team"))["type"] == "ack"
    assert (await player.request("questionnaire", answers=ANSWERS))["code"] == "bad_state"
    room = server.registry.get(made["room"])
    records = read_recording(room.log.path)
    assert records[-1]["type"] == "questionnaire" and records[-1]["answers"] == ANSWERS
    assert records[-1]["comment"] == "nice team" and records[-2]["type"] == "end"
    assert (await player.request("restart"))["type"] == "ack"
    await player.next("state", lambda m: m["episode"] == 2)
    again = next(m for m in player.seen if m["type"] == "state" and m["episode"] == 2)
    assert again["status"] == "running" and again["step"] == 0


async def test_dispatcher_failures_are_room_errors_not_dead_rooms(server: GameServer, client: Any) -> None:
    class Exploding:
        name = "exploding"

        def reset(self, session: object) -> None: ...

        def act(self, session: object) -> list[str]:
            raise ValueError("the model server fell over")

    server.registry.brain_factory = lambda spec, domain: PolicyBrain(Exploding())
    admin, player = await client(), await client()
    made = await create(admin, server, model="exploding", tick=0.05)
    await player.request("join", room=made["room"], secret=made["secret"], role="player", agent=0)
    error = await player.next("room_error")
    assert "the model server fell over" in error["message"]
    state = await player.next("state", lambda m: m["step"] >= 3)
    assert state["status"] == "running" and state["last_step"]["actions"][1]["idle"]
    assert state["errors"]


async def test_changing_the_model_needs_the_admin_token(server: GameServer, client: Any) -> None:
    room = server.startup_room
    tiny = server.registry.brain_factory
    c = await client()
    await c.request("join", room=room.id, role="spectator")
    assert (await c.request("set_model", admin_token="nope", room=room.id, model="planner"))["code"] == "unauthorized"
    server.registry.brain_factory = lambda spec, domain: (_ for _ in ()).throw(ValueError(f"unknown model {spec}"))
    failed = await c.request("set_model", admin_token=server.admin_token, room=room.id, model="nonsense:x")
    assert failed["code"] == "bad_model" and "unknown model" in failed["message"]
    server.registry.brain_factory = tiny
    ok = await c.request("set_model", admin_token=server.admin_token, room=room.id, model="other")
    assert ok["type"] == "ack"
    changed = [m for m in c.seen if m["type"] == "state" and m["dispatcher"]["model"] == "other"]
    assert changed and changed[-1]["dispatcher"]["why"] == "changed by the admin"
    assert any(m["type"] == "model_changed" for m in c.seen)


async def test_cross_origin_websockets_are_refused(server: GameServer) -> None:
    with pytest.raises(Exception) as refused:
        await connect(server.ws_url, origin="http://evil.example")  # type: ignore[arg-type]
    assert "403" in str(refused.value)
    async with connect(server.ws_url, origin=f"http://127.0.0.1:{server.port}") as ws:  # type: ignore[arg-type]
        assert json.loads(await ws.recv())["type"] == "welcome"


async def test_closing_a_room_needs_the_admin_token_and_tells_its_members(server: GameServer, client: Any) -> None:
    admin, player = await client(), await client()
    made = await create(admin, server, tick=0.05)
    await player.request("join", room=made["room"], secret=made["secret"], role="player", agent=0)
    assert (await admin.request("close_room", admin_token="nope", room=made["room"]))["code"] == "unauthorized"
    assert (await admin.request("close_room", admin_token=server.admin_token, room=made["room"]))["type"] == "ack"
    await player.next("room_closed")
    assert made["room"] not in server.registry.rooms
    assert (await player.request("command", command="noop_agent0"))["code"] == "no_room"
    assert server.scheduler.get_job(f"room-{made['room']}") is None
