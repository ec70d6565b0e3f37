"""Anonymous work is bounded (issue #28), against `mindagent serve` in its own process: a practice
flood from one address while a person plays, and 1,100 idle sockets from one address (the
attack that once ran the process out of file descriptors). Small versions of
`benchmarks/practice_flood.py`; loopback addresses 127.0.0.x stand in for different visitors."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from pathlib import Path

from reliability.served import Player, Served, serve
from websockets.asyncio.client import connect

FLOODERS = 32
SECONDS = 3.0


def admin_token(served: Served) -> str:
    found = re.search(r"#admin=([A-Za-z0-9_-]+)", "".join(served.output))
    assert found, "".join(served.output)
    return found.group(1)


async def practice_flood(served: Served) -> tuple[int, int]:
    """One connection sending ``practice`` 9 times a second; (rooms it opened, refusals)."""
    joined = refused = 0
    async with connect(served.ws_url, max_size=None, local_addr=("127.0.0.1", 0)) as ws:
        async def read() -> None:
            nonlocal joined, refused
            async for frame in ws:
                kind = json.loads(frame)["type"]
                joined += kind == "joined"
                refused += kind == "error"

        reader = asyncio.create_task(read())
        until = time.monotonic() + SECONDS
        while time.monotonic() < until:
            await ws.send('{"v":1,"type":"practice"}')
            await asyncio.sleep(1 / 9)
        await asyncio.sleep(0.5)
        reader.cancel()
    return joined, refused


async def create_room(served: Served, token: str) -> dict[str, object]:
    async with connect(served.ws_url, max_size=None, local_addr=("127.0.0.2", 0)) as ws:
        await ws.recv()
        await ws.send(json.dumps({"v": 1, "id": 7, "type": "create_room", "admin_token": token, "agents": 2}))
        async with asyncio.timeout(10):
            while True:
                reply: dict[str, object] = json.loads(await ws.recv())
                if reply.get("re") == 7:
                    return reply


def test_a_practice_flood_from_one_address_is_bounded(tmp_path: Path) -> None:
    recordings = tmp_path / "rooms"
    with serve(recordings, "--recordings-budget", "1") as served:
        token = admin_token(served)

        async def scenario() -> tuple[list[tuple[int, int]], dict[str, object], int]:
            player = await Player.join(served)
            playing = asyncio.create_task(player.play(until_step=10_000, timeout=SECONDS + 10))
            floods = [asyncio.create_task(practice_flood(served)) for _ in range(FLOODERS)]
            await asyncio.sleep(SECONDS / 2)
            created = await create_room(served, token)
            results = await asyncio.gather(*floods)
            playing.cancel()
            steps = player.last_step
            await player.close()
            return results, created, steps

        results, created, steps = asyncio.run(scenario())
        joined = sum(j for j, _ in results)
        refused = sum(r for _, r in results)
        assert 1 <= joined <= 8 + SECONDS * 0.5 + 2  # the default burst and rate per address
        assert refused >= FLOODERS * (SECONDS * 9 - 2) - joined
        assert created["type"] == "room_created", created
        assert steps >= 10  # the person's room kept stepping (0.1 s a step)
        time.sleep(0.5)
        output = "".join(served.output)
    assert "Traceback" not in output
    practice = recordings / "practice"
    assert not practice.exists() or not list(practice.iterdir())  # nobody played: nothing written


def test_idle_sockets_from_one_address_do_not_lock_out_others(tmp_path: Path) -> None:
    with serve(tmp_path / "rooms") as served:
        idle: list[socket.socket] = []
        try:
            for _ in range(1100):
                s = socket.socket()
                s.bind(("127.0.0.1", 0))
                s.connect(("127.0.0.1", served.port))
                idle.append(s)

            async def visit() -> float:
                started = time.perf_counter()
                async with connect(served.ws_url, max_size=None, local_addr=("127.0.0.3", 0)) as ws:
                    welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    assert welcome["type"] == "welcome"
                return time.perf_counter() - started

            waited = asyncio.run(visit())
            assert waited < 2.0
            closed = 0
            for s in idle:
                s.settimeout(0.01)
                try:
                    closed += s.recv(1) == b""
                except ConnectionResetError:
                    closed += 1
                except TimeoutError:
                    pass
            assert closed >= 1100 - 64  # all but the 64 an address may have in their handshake
        finally:
            for s in idle:
                s.close()
        time.sleep(0.5)
        output = "".join(served.output)
    assert "Too many open files" not in output and "Traceback" not in output
