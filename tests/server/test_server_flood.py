"""Rate limits mean what the README says: counted on the frames received, and a flood well over
the documented rate (10 frames/s after a burst of 30) closed with 1008 within a second; before,
a flood of 1,180 frames/s stayed open because each refilled token reset the drop count."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from mindagent.server import GameServer, ratelimit
from mindagent.server.ratelimit import HandshakeGate, TokenBucket


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_paced_flood_is_closed_within_a_second(server: GameServer, client: Any) -> None:
    c = await client()

    async def drain() -> None:  # read what the server says, so its close frame is seen at once
        try:
            async for _ in c.ws:
                pass
        except ConnectionClosed:
            pass

    reader = asyncio.get_running_loop().create_task(drain())
    started = time.monotonic()
    code = None
    try:
        for n in range(3000):  # ~1,000 frames/s, paced so tokens keep refilling in between
            await c.ws.send(json.dumps({"v": 1, "type": "ping", "id": n}))
            await asyncio.sleep(0.001)
    except ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd else None
    if code is None:  # the sender may finish before it notices; the close must already be on the way
        try:
            await asyncio.wait_for(c.ws.wait_closed(), 1.0)
        finally:
            code = c.ws.close_code
    reader.cancel()
    assert code == 1008
    assert time.monotonic() - started < 2.0  # closed early, not after all 3,000 frames


def test_the_bucket_tells_a_burst_from_a_flood() -> None:
    now = [0.0]
    bucket = TokenBucket(10, 30, clock=lambda: now[0])
    for _ in range(80):
        bucket.take()
    assert not bucket.flooding()  # the burst test's 80 frames at once
    for _ in range(1200):  # 1,200 frames/s for one second
        now[0] += 1 / 1200
        bucket.take()
        if bucket.flooding():
            break
    assert bucket.flooding() and now[0] < 1.0


def test_the_handshake_gate_is_per_address_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    gate = HandshakeGate(rate=2.0, burst=3, clock=lambda: now[0])
    assert [gate.admit("10.0.0.1") for _ in range(4)] == [True, True, True, False]
    assert gate.admit("10.0.0.2")  # another address has its own bucket
    now[0] += 0.5
    assert gate.admit("10.0.0.1") and not gate.admit("10.0.0.1")
    monkeypatch.setattr(ratelimit, "HANDSHAKE_ADDRESSES", 50)
    for k in range(500):  # many addresses, one connection each: the table stays bounded
        now[0] += 0.01
        assert gate.admit(f"192.0.2.{k}")
    assert len(gate._buckets) <= 50
