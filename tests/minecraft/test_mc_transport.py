"""BridgeTransport against a fake bridge process (tests/minecraft/fake_bridge.py).

The fake is a Python script speaking the bridge's JSON-lines protocol, so framing, timeouts,
malformed lines, typed failures and the automatic restart are tested without Node or Minecraft.
"""

import asyncio
import sys
from pathlib import Path

import pytest

from minecraft.transport import (
    ActionFailed,
    BridgeClosedError,
    BridgeProtocolError,
    BridgeStartError,
    BridgeTimeoutError,
    BridgeTransport,
)

FAKE = [sys.executable, str(Path(__file__).with_name("fake_bridge.py"))]
pytestmark = pytest.mark.asyncio


async def started(**kwargs: object) -> BridgeTransport:
    bridge = BridgeTransport(FAKE, **kwargs)  # type: ignore[arg-type]
    await bridge.start()
    return bridge


async def test_concurrent_requests_get_their_own_replies() -> None:
    bridge = await started()
    try:
        results = await asyncio.gather(*(bridge.request("echo", {"n": i}) for i in range(50)))
        assert [r["n"] for r in results] == list(range(50))
    finally:
        await bridge.close()


async def test_timeout_does_not_poison_later_requests() -> None:
    bridge = await started()
    try:
        with pytest.raises(BridgeTimeoutError):
            await bridge.request("slow", {}, timeout=0.1)
        assert await bridge.request("echo", {"ok": 1}, timeout=5) == {"ok": 1}
    finally:
        await bridge.close()


async def test_malformed_lines_are_counted_not_fatal() -> None:
    bridge = await started()
    try:
        assert await bridge.request("garbage") == "after garbage"
        assert bridge.protocol_errors == 3
        with pytest.raises(BridgeProtocolError):
            await bridge.request("bad_reply", timeout=5)
        assert await bridge.request("echo", {"x": 1}) == {"x": 1}
    finally:
        await bridge.close()


async def test_failure_reply_is_typed() -> None:
    bridge = await started()
    try:
        with pytest.raises(ActionFailed) as info:
            await bridge.request("fail")
        assert info.value.code == "not_found"
        assert "cow" in info.value.message
    finally:
        await bridge.close()


async def test_events_are_queued() -> None:
    bridge = await started()
    try:
        await bridge.request("event")
        event = bridge.events.get_nowait()
        assert (event.event, event.from_, event.message) == ("chat", "Chef", "cook beef")
    finally:
        await bridge.close()


async def test_restart_after_the_process_dies_and_resync_runs() -> None:
    bridge = await started(max_restarts=2)
    resynced = asyncio.Event()

    async def resync() -> None:
        await bridge.request("echo", {"resync": True})
        resynced.set()

    bridge.on_restart.append(resync)
    try:
        with pytest.raises(BridgeClosedError):
            await bridge.request("die", timeout=5)
        await asyncio.wait_for(resynced.wait(), 10)
        assert bridge.restarts == 1
        assert await bridge.request("echo", {"back": True}) == {"back": True}
    finally:
        await bridge.close()


async def test_close_ends_the_process_and_fails_pending() -> None:
    bridge = await started()
    pending = asyncio.create_task(bridge.request("slow", timeout=30))
    await asyncio.sleep(0.1)
    await bridge.close()
    assert not bridge.alive
    with pytest.raises(BridgeClosedError):
        await pending


async def test_missing_executable_is_a_start_error() -> None:
    bridge = BridgeTransport(["/nonexistent/node-binary"])
    with pytest.raises(BridgeStartError):
        await bridge.start()
