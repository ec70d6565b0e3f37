"""Who may hold the server's sockets (issue #28): a per-address cap on sockets still in their
handshake, and a fair share per address once the connection total is nearly used, so a handful
of addresses cannot hold it. Real sockets against a real `GameServer` on a free port (loopback
addresses 127.0.0.x stand in for different visitors)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from mindagent.server import GameServer, ServerConfig
from mindagent.server.admission import AddressBook


@pytest_asyncio.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    started: list[GameServer] = []

    async def make(**fields: Any) -> GameServer:
        server = GameServer(ServerConfig(port=0, model="random", startup=None, recordings=tmp_path / "rooms", **fields))
        await server.start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            await server.stop()


def idle_socket(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection that never sends a byte (a handshake that never comes)."""
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.settimeout(2.0)
    return s


def closed_by_server(s: socket.socket) -> bool:
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.mark.asyncio
async def test_idle_sockets_from_one_address_are_capped_before_the_handshake(make_server: Any) -> None:
    server = await make_server(max_per_address=4)
    sockets = [idle_socket(server.port) for _ in range(10)]
    try:
        await asyncio.sleep(0.3)
        assert server.sockets.pending("127.0.0.1") == 4
        closed = await asyncio.to_thread(lambda: [closed_by_server(s) for s in sockets[4:]])
        assert all(closed)  # closed the moment they were accepted, without a byte read
        async with connect(server.ws_url, local_addr=("127.0.0.2", 0)) as ws:  # another visitor is not held up
            assert '"welcome"' in str(await asyncio.wait_for(ws.recv(), 5))
    finally:
        for s in sockets:
            s.close()
    await asyncio.sleep(0.2)
    assert server.sockets.pending("127.0.0.1") == 0
    async with connect(server.ws_url) as ws:  # the address may connect again once its sockets are gone
        assert '"welcome"' in str(await asyncio.wait_for(ws.recv(), 5))
        assert server.sockets.pending("127.0.0.1") == 0  # a finished handshake no longer counts


@pytest.mark.asyncio
async def test_a_handful_of_addresses_cannot_hold_every_connection(make_server: Any) -> None:
    server = await make_server(max_connections=8, max_per_address=8, crowded_share=2)
    held = [await connect(server.ws_url) for _ in range(6)]  # 6 = 3/4 of 8: crowded from now on
    try:
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.ws_url)
        assert refused.value.response.status_code == 429
        others = [await connect(server.ws_url, local_addr=(f"127.0.0.{n}", 0)) for n in (2, 3)]
        held += others
        assert len(server.connections) == 8
        with pytest.raises(InvalidStatus) as full:
            await connect(server.ws_url, local_addr=("127.0.0.4", 0))
        assert full.value.response.status_code == 503
    finally:
        for ws in held:
            await ws.close()


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=200))
def test_the_address_book_never_passes_its_caps(steps: list[tuple[bool, int]]) -> None:
    book = AddressBook(max_total=12, per_address=5, crowded_share=2)
    held: dict[str, int] = {}
    for opening, n in steps:
        address = f"10.0.0.{n}"
        if opening and book.refusal(address) is None:
            book.add(address)
            held[address] = held.get(address, 0) + 1
        elif not opening and held.get(address):
            book.remove(address)
            held[address] -= 1
        assert book.total == sum(held.values()) <= 12
        assert all(book.held(a) == k <= 5 for a, k in held.items())
        if book.total >= 9:  # crowded: nobody with 2 or more gets another
            assert all(book.refusal(a) is not None for a, k in held.items() if k >= 2)
