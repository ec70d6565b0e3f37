"""Small holes the attack run found: the first seat line lost, one questionnaire per connection
instead of per seat, no warning for a weak admin token, Host not checked (DNS rebinding), and a
duplicate Origin header answered with HTTP 500 and a traceback."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import pytest

from mindagent.recordings.recording import read_recording
from mindagent.server import GameServer, ServerConfig
from mindagent.server.http import host_name, served_names
from mindagent.server.protocol import ProtocolError


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_the_first_seat_line_is_written(make_room: Any, member: Any) -> None:
    room = await make_room(steps=2)
    me = member("me")
    room.join(me, "player", 0)  # this join starts the room: its seat line came before the file
    await settle()
    await room.step()
    assert room.log.path is not None
    seats = [r for r in read_recording(room.log.path) if r["type"] == "seat"]
    assert seats and seats[0]["event"] == "join" and seats[0]["agent"] == 0


@pytest.mark.asyncio
async def test_one_questionnaire_per_seat_not_per_connection(make_room: Any, member: Any) -> None:
    room = await make_room(steps=2)
    people = [member(f"chef{n}") for n in range(5)]
    for person in people:
        room.join(person, "head_chef")
    for _ in range(2):
        await settle()
        await room.step()
    assert room.status == "finished"
    answers = {"enjoyment": 5, "productivity": 4, "trust": 3, "predictability": 2, "dependability": 1, "helpfulness": 4}
    room.answer(people[0], answers, "")
    for person in people[1:]:
        with pytest.raises(ProtocolError):
            room.answer(person, answers, "")
    assert room.log.path is not None
    assert sum(r["type"] == "questionnaire" for r in read_recording(room.log.path)) == 1


def test_a_weak_admin_token_is_warned_about(caplog: pytest.LogCaptureFixture, tmp_path: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="mindagent.server.app"):
        GameServer(ServerConfig(port=0, admin_token="a", recordings=tmp_path))
    assert "admin token is weak" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mindagent.server.app"):
        GameServer(ServerConfig(port=0, admin_token="k3J9-x7Qw_2mZp8Lr4Tn", recordings=tmp_path))
    assert "weak" not in caplog.text


def test_served_names() -> None:
    loopback = served_names("127.0.0.1")
    assert loopback is not None and {"localhost", "127.0.0.1", "[::1]"} <= loopback and "evil.example" not in loopback
    assert served_names("0.0.0.0") is None and served_names("0.0.0.0", ("game.example",)) == {"game.example"}
    assert host_name("LocalHost:8765") == "localhost" and host_name("[::1]:80") == "[::1]"


def raw_request(port: int, lines: list[str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


@pytest.mark.slow
@pytest.mark.asyncio
async def test_host_is_checked_and_duplicate_headers_get_400(server: GameServer,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    port = server.port
    ok = await asyncio.to_thread(raw_request, port, ["GET /health HTTP/1.1", f"Host: 127.0.0.1:{port}"])
    assert ok.startswith(b"HTTP/1.1 200")
    rebound = await asyncio.to_thread(raw_request, port, ["GET / HTTP/1.1", f"Host: evil.example:{port}"])
    assert rebound.startswith(b"HTTP/1.1 421")
    upgrade = ["GET /ws HTTP/1.1", f"Host: evil.example:{port}", "Upgrade: websocket", "Connection: Upgrade",
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    assert (await asyncio.to_thread(raw_request, port, upgrade)).startswith(b"HTTP/1.1 421")
    with caplog.at_level(logging.ERROR):
        twice = [*upgrade[:1], f"Host: localhost:{port}", *upgrade[2:], f"Origin: http://localhost:{port}",
                 "Origin: http://evil.example"]
        answer = await asyncio.to_thread(raw_request, port, twice)
    assert answer.startswith(b"HTTP/1.1 400") and "Traceback" not in caplog.text
