"""`mindagent serve` run as a person runs it (a separate process on a free loopback port), and a
protocol client for it, for the reliability tests that kill, flood and churn a real server."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    room: str
    output: list[str] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


@contextmanager
def serve(recordings: Path, *flags: str) -> Iterator[Served]:
    """A planner-dispatched level_3 room stepping every 0.1 s once a person sits down."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("MINDAGENT_MODEL", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--port", "0", "--model", "planner",
         "--agents", "2", "--tick", "0.1", "--human-tick", "0", "--countdown", "0", "--recordings", str(recordings),
         *flags],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=recordings.parent)
    output: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any("Ctrl-C" in line for line in output):
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("serve exited:\n" + "".join(output))
            output.append(line)
        text = "".join(output)
        port = re.search(r"on http://127\.0\.0\.1:(\d+)/", text)
        room = re.search(r"room ([0-9a-f]{32}):", text)
        assert port and room, text
        stream = proc.stdout

        def drain() -> None:  # the server never blocks on a full pipe
            for line in stream:
                output.append(line)

        threading.Thread(target=drain, daemon=True).start()
        yield Served(proc, int(port.group(1)), room.group(1), output)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


class Player:
    """A websocket client seated as a player; `play` answers every state with a legal command."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.last_step = -1

    @classmethod
    async def join(cls, served: Served, agent: int = 0) -> Player:
        ws = await connect(served.ws_url, max_size=None)
        player = cls(ws)
        await ws.send(json.dumps({"v": 1, "type": "join", "room": served.room, "role": "player", "agent": agent}))
        return player

    async def play(self, until_step: int, timeout: float = 60.0) -> int:
        """Send a legal command after every state until the room has run `until_step` steps."""
        async with asyncio.timeout(timeout):
            async for frame in self.ws:
                message: dict[str, Any] = json.loads(frame)
                if message["type"] == "error" and message.get("code") not in ("rate_limited", "bad_command"):
                    raise AssertionError(f"refused: {message}")
                if message["type"] != "state":
                    continue
                self.last_step = int(message["step"])
                if self.last_step >= until_step:
                    return self.last_step
                legal = message["you"].get("legal") or []
                if legal:
                    await self.ws.send(json.dumps({"v": 1, "type": "command", "command": legal[0]}))
        raise AssertionError("the connection closed")

    async def close(self) -> None:
        await self.ws.close()


def mindagent(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", "from mindagent.cli import app; app()", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)


def children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def alive(pid: int) -> bool:
    """Running or sleeping (a zombie waiting for its reaper is gone for this purpose)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
