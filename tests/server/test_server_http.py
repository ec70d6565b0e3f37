"""Plain HTTP on the game port, and `mindagent serve` started the way a person starts it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from mindagent.server import GameServer

pytestmark = pytest.mark.slow


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.mark.asyncio
async def test_the_page_its_files_and_health(server: GameServer) -> None:
    status, headers, body = await asyncio.to_thread(fetch, server.url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script src="/app.js"' in body
    assert b"http://" not in body and b"https://" not in body  # nothing from a CDN: works offline
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    for path, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, headers, body = await asyncio.to_thread(fetch, server.url + path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and len(body) > 1000
    status, _, body = await asyncio.to_thread(fetch, server.url + "health")
    assert status == 200 and json.loads(body) == {"ok": True, "protocol": 1, "rooms": 1, "connections": 0}
    status, _, _ = await asyncio.to_thread(fetch, server.url + "../etc/passwd")
    assert status == 404
    status, _, _ = await asyncio.to_thread(fetch, server.url + "ws")  # a plain GET where a websocket is expected
    assert status == 426


def test_mindagent_serve_starts_and_serves_the_page(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MINDAGENT_MODEL"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--domain", "cuisineworld",
         "--agents", "4", "--port", "0", "--recordings", str(tmp_path / "rooms")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**env, "COLUMNS": "200"}, cwd=tmp_path)
    banner: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                pytest.fail("mindagent serve exited:\n" + "".join(banner))
            banner.append(line)
            if "Ctrl-C" in line:
                break
        text = "".join(banner)
        url = re.search(r"on (http://127\.0\.0\.1:\d+/)", text)
        assert url, text
        assert "dispatcher:" in text and "4 agents" in text and "#admin=" in text
        status, _, body = fetch(url.group(1))
        assert status == 200 and b"<h1>MindAgent</h1>" in body  # the page names no game
        status, _, body = fetch(url.group(1) + "health")
        health: dict[str, Any] = json.loads(body)
        assert status == 200 and health["rooms"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(banner) + (proc.stdout.read() if proc.stdout else "")
