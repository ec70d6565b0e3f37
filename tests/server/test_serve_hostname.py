"""`mindagent serve --hostname`: the Host header is checked against the names given (a DNS-rebinding
page on another name gets 421, a doubled Host header 400); a server answering every address with
no name given is warned about; `--steps` and a room's `steps` are bounded by the level's length."""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.server import GameServer, ServerConfig


def raw_request(port: int, lines: list[str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def test_a_server_open_to_every_address_with_no_name_is_warned_about(caplog: pytest.LogCaptureFixture,
                                                                     tmp_path: Path) -> None:
    with caplog.at_level(logging.WARNING, logger="mindagent.server.app"):
        GameServer(ServerConfig(host="0.0.0.0", port=0, recordings=tmp_path, admin_token="k3J9-x7Qw_2mZp8Lr4Tn"))
    assert "no host name given (--hostname)" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mindagent.server.app"):
        server = GameServer(ServerConfig(host="0.0.0.0", port=0, recordings=tmp_path, hostnames=["game.example"],
                                         admin_token="k3J9-x7Qw_2mZp8Lr4Tn"))
    assert "host name" not in caplog.text and server.site.allowed_hosts == {"game.example"}


@pytest.mark.parametrize("bad", ["game.example:8765", "two words", "", "-x.example", "evil/path"])
def test_a_bad_hostname_is_one_line(bad: str) -> None:
    result = CliRunner().invoke(app, ["serve", "--port", "0", "--hostname", bad])
    assert result.exit_code == 2 and "is not a host name" in result.output and "Traceback" not in result.output


def test_steps_past_the_level_are_refused_by_serve() -> None:
    result = CliRunner().invoke(app, ["serve", "--level", "level_3", "--port", "0", "--steps", "500"])
    assert result.exit_code == 2 and "--steps 500 is longer than level_3's 60" in result.output
    assert "Traceback" not in result.output


@pytest.mark.asyncio
async def test_a_room_asked_for_more_steps_than_its_level_is_refused(server: GameServer, client: Any) -> None:
    admin = await client()
    reply = await admin.request("create_room", admin_token=server.admin_token, level="level_3", steps=61)
    assert reply["type"] == "error" and reply["code"] == "invalid" and "level_3's 60" in reply["message"]
    reply = await admin.request("create_room", admin_token=server.admin_token, level="level_3", steps=60)
    assert reply["type"] == "room_created" and reply["summary"]["max_steps"] == 60


@pytest.mark.slow
def test_serve_with_hostname_answers_that_name_and_refuses_others(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--port", "0", "--model", "planner",
         "--hostname", "Game.Example", "--recordings", str(tmp_path / "rooms")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "COLUMNS": "200",
                                                                           "PYTHONPATH": str(Path(__file__).parents[2])},
        cwd=tmp_path)
    banner: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("Ctrl-C" in line for line in banner):
            line = proc.stdout.readline()
            if not line:
                pytest.fail("serve exited:\n" + "".join(banner))
            banner.append(line)
        text = "".join(banner)
        found = re.search(r"on http://127\.0\.0\.1:(\d+)/", text)
        assert found, text
        port = int(found.group(1))
        assert "host names:" in text and "game.example" in text
        assert raw_request(port, ["GET /health HTTP/1.1", f"Host: game.example:{port}"]).startswith(b"HTTP/1.1 200")
        assert raw_request(port, ["GET /health HTTP/1.1", f"Host: localhost:{port}"]).startswith(b"HTTP/1.1 200")
        assert raw_request(port, ["GET / HTTP/1.1", f"Host: rebind.evil.example:{port}"]).startswith(b"HTTP/1.1 421")
        doubled = raw_request(port, ["GET /health HTTP/1.1", f"Host: game.example:{port}", "Host: evil.example"])
        assert doubled.startswith(b"HTTP/1.1 400")
    finally:
        proc.terminate()
        proc.wait(20)
