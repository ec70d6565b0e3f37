"""kill -9 of a room worker: `mindagent serve --workers 2` in its own process, a person playing in
the start-up room (worker 0) and a spectator watching a room in worker 1, then SIGKILL of worker 0.
The person gets ``room_closed`` and stays connected; the other worker's room keeps stepping; the
server answers health and replaces the worker; the killed room's recording replays to its last
full line."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from reliability.served import Player, Served, children, mindagent, serve
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow
ADMIN = "reliability-admin-token-long-enough"


def started(pid: int) -> int:
    """A process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    return int((Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split())[19])


def worker_pids(served: Served) -> list[int]:
    """The serve process's room workers, oldest first."""
    pids = [pid for pid in children(served.proc.pid)
            if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")]
    return sorted(pids, key=lambda pid: (started(pid), pid))


def worker_pid(served: Served, index: int) -> int:
    """Room worker `index`'s pid, by the name it gives itself (the workers start at once, so their
    start order says nothing about their index)."""
    named = [pid for pid in worker_pids(served)
             if Path(f"/proc/{pid}/comm").read_text().strip() == f"mindagent-w{index}"]
    assert len(named) == 1, named
    return named[0]


def health(served: Served) -> dict[str, Any]:
    """The /health body, whether the status is 200 (ok) or 503 (a worker not serving)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/health", timeout=10) as resp:
            result: dict[str, Any] = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        if exc.code != 503:
            raise
        result = json.loads(exc.read())
    return result


async def scenario(served: Served) -> dict[str, Any]:
    async with connect(served.ws_url, max_size=None) as admin:
        await admin.recv()  # welcome
        await admin.send(json.dumps({"v": 1, "id": 1, "type": "create_room", "admin_token": ADMIN, "level": "level_1",
                                     "agents": 2, "public": True, "tick": 0.1}))
        other = ""
        while not other:
            message = json.loads(await admin.recv())
            other = message.get("room", "") if message["type"] == "room_created" else ""
        await admin.send(json.dumps({"v": 1, "id": 2, "type": "join", "room": other, "role": "spectator"}))
        await admin.send(json.dumps({"v": 1, "id": 3, "type": "start", "admin_token": ADMIN}))
        player = await Player.join(served, 0)
        await player.play(6)
        pids = worker_pids(served)
        assert len(pids) == 2, pids
        first_worker = worker_pid(served, 0)  # worker 0 holds the start-up room
        os.kill(first_worker, signal.SIGKILL)
        closed = None
        async with asyncio.timeout(20):
            async for frame in player.ws:
                message = json.loads(frame)
                if message["type"] == "room_closed":
                    closed = message
                    break
        await player.ws.send(json.dumps({"v": 1, "id": 9, "type": "ping"}))
        pong = json.loads(await asyncio.wait_for(player.ws.recv(), 10))
        steps = []
        async with asyncio.timeout(20):
            async for frame in admin:
                message = json.loads(frame)
                if message["type"] == "state":
                    steps.append(message["step"])
                    if len(steps) >= 10:
                        break
        await player.close()
        return {"closed": closed, "pong": pong, "steps": steps, "killed": first_worker, "other": other}


def test_a_killed_room_worker_costs_only_its_rooms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDAGENT_ADMIN_TOKEN", ADMIN)
    rooms = tmp_path / "rooms"
    with serve(rooms, "--workers", "2") as served:
        result = asyncio.run(scenario(served))
        assert result["closed"] is not None and result["closed"]["room"] == served.room
        assert result["pong"]["type"] == "pong"
        assert result["steps"] == sorted(result["steps"]) and result["steps"][-1] - result["steps"][0] >= 8
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (health(served).get("workers") != 2 or result["killed"] in worker_pids(served)):
            time.sleep(0.5)
        state = health(served)
        assert state["ok"] is True and state["workers"] == 2 and state["rooms"] == 1
        assert served.proc.poll() is None
    output = "".join(served.output)
    assert "Traceback" not in output
    assert "room worker 0" in output and "is gone" in output
    (recording,) = sorted(rooms.glob(f"{served.room}_e1*.jsonl"))
    replayed = mindagent("replay", str(recording))
    text = replayed.stdout + replayed.stderr
    assert replayed.returncode == 0 and "Traceback" not in text and "the end line is missing" in text
