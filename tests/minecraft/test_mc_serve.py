"""`mindagent serve --domain minecraft` as a person runs it: a real process, its page's websocket,
its Minecraft world (marked slow).

The server is started as a subprocess with a free web port and a free game port. The test reads
the console banner (page URL, game-world address), watches the start-up room over the websocket
as a spectator while the room autoplays its one episode, joins the world with one extra
mineflayer bot as a person with a game client would (through its own bridge process), and says
something in the game chat. The chat line must reach the dispatcher as a head-chef line (the
room's recording keeps, per step, the head-chef lines the dispatcher was given). At the end the
recording is complete and Ctrl-C (SIGINT) stops the server, its Node processes included, within
a few seconds. About 30 s; needs Node and `npm ci` in minecraft/node.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from minecraft.transport import NODE_DIR, BridgeTransport

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

VISITOR = "Visitor"
SAID = "cook the chicken first please"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\x1b\]8;[^\x1b]*\x1b\\")


def need_node() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        # Skip on a developer machine without Node; under CI a missing install must fail loudly.
        message = "needs Node 18+ and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


def children(pid: int) -> list[int]:
    """Direct child processes of `pid` (Linux /proc; empty elsewhere)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def read_banner(log: Path, proc: asyncio.subprocess.Process, timeout: float = 60.0) -> str:
    """The console output up to its last banner line ("Ctrl-C stops the server.")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ANSI.sub("", log.read_text(encoding="utf-8", errors="replace")) if log.exists() else ""
        if "Ctrl-C" in text:
            return text
        if proc.returncode is not None:
            pytest.fail(f"mindagent serve exited with {proc.returncode}:\n{text}")
        await asyncio.sleep(0.2)
    pytest.fail("no banner from mindagent serve within the time limit")


class Spectator:
    """A websocket member of one room that keeps every message and the latest state."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    async def next(self, kind: str, where: Any = lambda m: True, timeout: float = 30.0) -> dict[str, Any]:
        async def read() -> dict[str, Any]:
            while True:
                message = json.loads(await self.ws.recv())
                self.seen.append(message)
                if message["type"] == "state":
                    self.state = message
                elif message["type"] == "joined":
                    self.state = message["state"]
                if message["type"] == kind and where(message):
                    return message

        return await asyncio.wait_for(read(), timeout)


async def test_serve_minecraft_process_page_and_a_game_client(tmp_path: Path) -> None:
    need_node()
    recordings = tmp_path / "rooms"
    console = tmp_path / "console.txt"
    env = {k: v for k, v in os.environ.items() if k != "MINDAGENT_MODEL"}
    with console.open("w") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--domain", "minecraft",
            "--model", "planner", "--steps", "10", "--episodes", "1", "--cook-ticks", "20", "--mc-port", "0",
            "--port", "0", "--recordings", str(recordings),
            stdout=out, stderr=asyncio.subprocess.STDOUT, cwd=tmp_path, env={**env, "COLUMNS": "250", "NO_COLOR": "1"})
    visitor = BridgeTransport()
    node_children: list[int] = []
    try:
        banner = await read_banner(console, proc)
        page = re.search(r"MindAgent game server on (http://127\.0\.0\.1:\d+/)", banner)
        world = re.search(r"game world: Minecraft (\S+) \(offline mode\) on ([\w.\-]+):(\d+)", banner)
        room_line = re.search(r"room (\w+): minecraft .*2 agents", banner)
        assert page and world and room_line, banner
        assert "join with a game client" in banner and "planner" in banner
        url, room = page.group(1), room_line.group(1)
        version, mc_host, mc_port = world.group(1), world.group(2), int(world.group(3))
        assert mc_port not in (0, 25565)  # --mc-port 0 took a free port, and the banner says which
        node_children = children(proc.pid)

        ws_url = url.replace("http://", "ws://", 1) + "ws"
        async with connect(ws_url, origin=url.rstrip("/")) as ws:  # the page's origin, as a browser sends it
            me = Spectator(ws)
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome"
            listed = {r["room"]: r for r in welcome["rooms"]}
            assert listed[room]["domain"] == "minecraft" and listed[room]["agent_names"] == ["Alex", "Steve"]
            await ws.send(json.dumps({"v": 1, "id": 1, "type": "join", "room": room, "role": "spectator"}))
            joined = await me.next("joined")
            assert joined["domain"] == "minecraft" and joined["join"] == {"host": mc_host, "port": mc_port,
                                                                            "version": version}
            assert joined["state"]["status"] == "running"  # autoplay: no person needed to start

            # A person joins the world with a game client (here a mineflayer bot of its own bridge).
            await visitor.start()
            connected = await visitor.request("connect", {"names": [VISITOR], "host": mc_host, "port": mc_port,
                                                          "version": version}, timeout=30)
            assert connected["connected"] == [VISITOR]
            seen_player = await me.next("state", lambda m: any(
                loc["type"] == "player" and loc["name"] == VISITOR for loc in m["locations"]), timeout=30)
            assert seen_player["status"] == "running", "the visitor must show up while the episode runs"
            assert [a["name"] for a in seen_player["agents"]] == ["Alex", "Steve"]  # a visitor is no agent
            said_at = seen_player["step"]
            await visitor.request("chat", {"bot": VISITOR, "text": SAID}, timeout=10)

            over = await me.next("episode_over", timeout=90)
            assert over["episode"] == 1 and over["recording"] == f"{room}_e1.jsonl"
            assert set(over["counts"]) == {"completed", "failed", "active"}
            final = await me.next("state", lambda m: m["status"] == "finished")  # sent right after episode_over
            assert final["step"] == 10 and final["counts"] == over["counts"] and final["next_step_in"] is None
            steps_seen = sorted({m["step"] for m in me.seen if m["type"] == "state"})
            assert steps_seen[-1] == 10 and len(steps_seen) >= 10 - said_at

        lines = [json.loads(line) for line in (recordings / f"{room}_e1.jsonl").read_text().splitlines()]
        header, steps = lines[0], [r for r in lines if r["type"] == "step"]
        assert header["type"] == "header" and header["domain"] == "minecraft" and header["room"] == room
        assert header["max_steps"] == 10 and header["model"] == "planner" and header["kitchen"]["cook_ticks"] == 20
        assert [r["step"] for r in steps] == list(range(10))
        assert lines[-1]["type"] == "end" and lines[-1]["steps"] == 10
        assert lines[-1]["completed"] == over["counts"]["completed"]
        told = [(r["step"], line) for r in steps for line in r["head_chef"]]
        assert (f"{VISITOR}: {SAID}") in [line for _, line in told], \
            f"the game chat did not reach the dispatcher as a head-chef line (said at step {said_at}): {told}"
        assert all(step >= said_at for step, _ in told)
    finally:
        await visitor.close()
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        try:
            code = await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            pytest.fail("mindagent serve did not stop within 15 s of Ctrl-C:\n" + console.read_text())
        took = time.monotonic() - started
    text = console.read_text()
    assert code == 0, text
    assert took < 8, f"Ctrl-C took {took:.1f} s"
    assert "stopping..." in text and "Traceback" not in text, text
    assert node_children, "the server should have started its Minecraft server and bridge"
    await asyncio.sleep(0.5)
    assert not [pid for pid in node_children if alive(pid)], "Node processes outlived the server"
