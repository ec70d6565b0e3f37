"""A planted secret (in the base URL's user info, its query string and the API key) appears in no
server message a client receives, of any type, and in no recording line, while the model behind
the URL fails (room errors quoting the SDK's message) and then answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from stub_llm import BROKEN, chat, stub_server
from websockets.asyncio.client import connect

import mindagent.llm.retry as retry
from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig

SECRET = "PLANTED-s3cret-4a5b6c"


@pytest.mark.asyncio
async def test_no_message_type_or_recording_line_carries_the_secret(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET + "-key")
    healthy = [False]
    with stub_server(lambda path, body: chat("goto_agent0_storage0") if healthy[0] else BROKEN["html_200"]) as stub:
        base = f"http://admin:{SECRET}@127.0.0.1:{stub.port}/v1?api-key={SECRET}&token={SECRET}"
        config = ServerConfig(port=0, model="openai:stub", model_why="test", tick=0.2, human_tick=None, countdown=0,
                              recordings=tmp_path / "rooms", brain_options={"base_url": base, "max_tokens": 50},
                              startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 40),
                              admin_token="k3J9-x7Qw_2mZp8Lr4Tn")
        seen: list[str] = []
        async with GameServer(config) as server:
            async with connect(server.ws_url) as ws:
                async def say(**message: Any) -> None:
                    await ws.send(json.dumps({"v": 1, **message}))

                async def read_for(seconds: float) -> None:
                    try:
                        async with asyncio.timeout(seconds):
                            async for frame in ws:
                                seen.append(str(frame))
                    except TimeoutError:
                        pass

                room = server.startup_room
                assert room is not None
                await say(type="list_rooms", id=1)
                await say(type="join", room=room.id, role="player", agent=0, id=2)
                await read_for(4.0)  # failing model calls: room errors
                healthy[0] = True
                await say(type="set_model", admin_token=config.admin_token, room=room.id, model="openai:stub", id=3)
                await say(type="command", command="goto_agent0_storage0", id=4)
                await say(type="instruct", text="hello", id=5)
                await say(type="nonsense", id=6)
                await read_for(2.5)
        kinds = {json.loads(f)["type"] for f in seen}

        assert {"welcome", "joined", "state", "room_error", "rooms", "error", "model_changed"} <= kinds, kinds
        recorded = [line for p in (tmp_path / "rooms").rglob("*.jsonl") for line in p.read_text().splitlines()]
        assert recorded
        leaks = [text[:120] for text in seen + recorded if SECRET in text]
        assert not leaks
        names = {json.loads(f)["dispatcher"]["name"] for f in seen if json.loads(f)["type"] == "state"}
        assert any(f"127.0.0.1:{stub.port}/v1" in n for n in names)  # the URL still says where, without keys
