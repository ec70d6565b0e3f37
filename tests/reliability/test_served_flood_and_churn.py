"""Floods and join churn against `mindagent serve` in its own process (a small version of
`benchmarks/join_churn.py`): while a person plays, twenty spectators join and leave the room over
and over and one connection floods frames. The flood is closed (1008) within about a second, the
person's room keeps stepping, and the server stays healthy and prints no traceback."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path

from reliability.served import Player, Served, serve
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

CHURNERS = 20
SECONDS = 3.0


async def churn(served: Served, stop: asyncio.Event) -> int:
    """Join and leave as a spectator, five times a second (under the rate limit); joins done."""
    done = 0
    async with connect(served.ws_url, max_size=None) as ws:
        while not stop.is_set():
            await ws.send(json.dumps({"v": 1, "type": "join", "room": served.room, "role": "spectator"}))
            await asyncio.sleep(0.1)
            await ws.send(json.dumps({"v": 1, "type": "leave"}))
            await asyncio.sleep(0.1)
            done += 1
            while True:  # keep the inbox short: read what has arrived, wait for nothing
                try:
                    await asyncio.wait_for(ws.recv(), 0.001)
                except TimeoutError:
                    break
    return done


async def flood(served: Served) -> tuple[int | None, float]:
    """About 1,000 frames a second, reading what comes back (so the close frame is seen when sent);
    the close code and the seconds until the close."""
    async with connect(served.ws_url, max_size=None) as ws:
        async def drain() -> None:
            try:
                async for _ in ws:
                    pass
            except ConnectionClosed:
                pass

        reader = asyncio.create_task(drain())
        started = time.monotonic()
        try:
            for n in range(5000):
                await ws.send(json.dumps({"v": 1, "type": "ping", "id": n}))
                await asyncio.sleep(0.001)
        except ConnectionClosed:
            pass
        try:
            await asyncio.wait_for(ws.wait_closed(), 2.0)
        except TimeoutError:
            pass
        reader.cancel()
        return ws.close_code, time.monotonic() - started


async def attack(served: Served) -> tuple[int, int, list[int], tuple[int | None, float]]:
    player = await Player.join(served, 0)
    try:
        first = await player.play(1)
        stop = asyncio.Event()
        churners = [asyncio.create_task(churn(served, stop)) for _ in range(CHURNERS)]
        flooded = asyncio.create_task(flood(served))
        try:
            await player.play(10**6, timeout=SECONDS)
        except TimeoutError:
            pass
        stop.set()
        joins = await asyncio.gather(*churners)
        return first, player.last_step, joins, await flooded
    finally:
        await player.close()


def test_floods_are_closed_and_churn_does_not_stop_a_played_room(tmp_path: Path) -> None:
    with serve(tmp_path / "rooms") as served:
        first, last, joins, (code, flood_seconds) = asyncio.run(attack(served))
        assert code == 1008 and flood_seconds < 2.0, (code, flood_seconds)
        assert sum(joins) >= CHURNERS * 5, joins
        # 0.1 s a step: 30 in 3 s on a quiet machine; a third of that on a loaded one
        assert last - first >= 10, (first, last)
        with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/health", timeout=10) as resp:
            health = json.loads(resp.read())
        assert health["ok"] is True and health["rooms"] == 1
        assert "Traceback" not in "".join(served.output)
