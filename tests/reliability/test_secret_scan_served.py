"""Redaction by value in served rooms, on both official SDKs: a `mindagent serve` process whose
room's model is ``openai:`` or ``anthropic:`` behind an echoing stub leaks no planted secret into
any frame a client receives, the room's recordings, or the process's log output.

No real provider is reachable offline, so the model server is a local stub (tests/stub_llm.py)
that echoes each request back: first as a 400 error quoting its headers and path (the room's
errors then quote the SDK's message), then as a 200 whose *text* carries the same headers after
a legal command (the model's own words then reach the recording, the feedback and the page).
The official SDKs are the clients, so the credentials travel exactly as they would to a provider:
the API key header, ``Authorization: Basic`` built by httpx from the URL's user info, and the
key-like query parameter. The admin token is planted too and used on the socket.

Each secret is searched in its raw, percent-encoded and base64 forms. The banner printed before
the server is ready is left out: telling the operator the admin link is its purpose.
(No option passes custom request headers to a model today, so none is planted here.)"""

from __future__ import annotations

import asyncio
import base64
import json
import signal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from reliability.served import serve
from stub_llm import Reply, chat, messages_reply, stub_server
from websockets.asyncio.client import connect

USER, PASSWORD = "planted-user-6b1e", "PLANTED-pw-2f9d4a"
API_KEY, QUERY_KEY = "PLANTED-key-8c3e1d", "PLANTED-q-5d7a2b"
ADMIN = "PLANTED-admin-4e8f1a9c0b"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
PLANTED = {"user": USER, "password": PASSWORD, "api key": API_KEY, "query key": QUERY_KEY, "basic": BASIC,
           "admin token": ADMIN}
BANNER_END = "Ctrl-C stops the server."


def forms(secret: str) -> set[str]:
    return {secret, quote(secret, safe=""), base64.b64encode(secret.encode()).decode()}


def echoed(headers: dict[str, str], path: str) -> str:
    """The request's credentials, quoted first so no length cut can hide them."""
    low = {k.lower(): v for k, v in headers.items()}
    return (f"authorization={low.get('authorization')} x-api-key={low.get('x-api-key')} "
            f"api-key={low.get('api-key')} path={path}")


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_no_planted_secret_in_frames_recordings_or_logs(tmp_path: Path, sdk: str, monkeypatch: Any) -> None:
    pytest.importorskip(sdk)
    monkeypatch.setenv(f"{sdk.upper()}_API_KEY", API_KEY)
    monkeypatch.setenv("MINDAGENT_ADMIN_TOKEN", ADMIN)
    healthy = [False]

    def answer(path: str, body: bytes) -> Reply:
        said = echoed(stub.seen[-1][1], path)
        if not healthy[0]:
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": f"denied: {said}"}}
            return Reply(400, json.dumps(error).encode())
        text = f"goto_agent0_storage0\nalso: {said}"
        return chat(text) if sdk == "openai" else messages_reply(text)

    frames: list[str] = []
    with stub_server(answer) as stub:
        base = f"http://{USER}:{PASSWORD}@127.0.0.1:{stub.port}" + ("/v1" if sdk == "openai" else "")
        base += f"?api-key={QUERY_KEY}"
        rooms = tmp_path / "rooms"
        with serve(rooms, "--model", f"{sdk}:stub", "--base-url", base, "--timeout", "10", "--tick", "0.2",
                   "--autoplay", "--steps", "30") as served:

            async def client() -> None:
                async with connect(served.ws_url, max_size=None) as ws:
                    async def say(**message: Any) -> None:
                        await ws.send(json.dumps({"v": 1, **message}))

                    async def read_for(seconds: float, until: str | None = None) -> None:
                        """Keep frames for `seconds`, or until one of type `until` came (at most 30 s)."""
                        try:
                            async with asyncio.timeout(30.0 if until else seconds):
                                async for frame in ws:
                                    frames.append(str(frame))
                                    if until is not None and json.loads(frame)["type"] == until:
                                        return
                        except TimeoutError:
                            pass

                    await say(type="list_rooms", admin_token=ADMIN, id=1)
                    await say(type="join", room=served.room, role="spectator", id=2)
                    await read_for(0, until="room_error")  # failing calls: room errors quoting the SDK's message
                    await read_for(1.0)
                    healthy[0] = True
                    await say(type="set_model", admin_token=ADMIN, room=served.room, model=f"{sdk}:stub", id=3)
                    await say(type="create_room", admin_token=ADMIN, level="level_1", agents=2, public=False, id=4)
                    await say(type="set_model", admin_token=ADMIN + "x", room=served.room, model="planner", id=5)
                    await read_for(4.0)  # answering calls: the model's echo in its own words

            asyncio.run(client())
            served.proc.send_signal(signal.SIGINT)
            served.proc.wait(30)
        sent = " ".join(f"{path} {headers}" for path, headers, _ in stub.seen)

    assert BASIC in sent and QUERY_KEY in sent, sent[-1500:]  # the stub was handed the secrets to echo
    # (both SDKs send the key as ``Authorization: Bearer``, which httpx's Basic header from the URL's user
    # info replaces; the key is still in the process, and scanned for)
    kinds = {json.loads(f)["type"] for f in frames}
    assert {"state", "room_error", "rooms", "model_changed", "room_created", "error"} <= kinds, kinds
    assert any("denied" in f for f in frames)  # the SDK's error (the stub's echo) reached the socket
    assert any("authorization=Basic ***" in f for f in frames)  # ... with the echoed credential masked
    files = {str(p): p.read_text(encoding="utf-8") for p in rooms.rglob("*") if p.is_file()}
    assert any('also: authorization=' in text for text in files.values())  # the model's echo was recorded
    output = "".join(served.output)
    assert BANNER_END in output
    outputs = {"log output": output.split(BANNER_END, 1)[1], **files,
               **{f"frame {i}": frame for i, frame in enumerate(frames)}}
    leaks = sorted({(where[:60], name) for where, text in outputs.items() for name, secret in PLANTED.items()
                    for form in forms(secret) if form in text})
    assert leaks == []
