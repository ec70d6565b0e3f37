"""Who may hold the server's sockets: a cap per address on sockets still in their handshake, on
websocket connections, and a fair share once the server is crowded.

Three limits, checked before any work is done for a socket:

- `SocketGuard`: a socket from an address that already has `limit` sockets in their opening
  handshake (or plain HTTP requests not yet answered) is closed the moment it is accepted, before
  a byte is read. Without it, 1,100 idle TCP connections from one address used up the process's
  file descriptors, and every other visitor waited.
- `AddressBook.refusal`: at most `max_total` websocket connections, and `per_address` from one
  address.
- The fair share: once `crowded_at` of `max_total` is in use, an address already holding
  `crowded_share` connections gets no more, so the rest of the room is left for other addresses
  (32 addresses at 64 connections each once filled the 2,000; now they fill at most ~1,650 and
  it takes over 50 addresses to fill the rest).

Example::

    book = AddressBook(max_total=2000, per_address=64, crowded_share=16)
    refused = book.refusal("203.0.113.7")   # None, or (HTTP status, reason)
    if refused is None:
        book.add("203.0.113.7")
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from websockets.asyncio.server import ServerConnection

log = logging.getLogger(__name__)

#: Share of the connection total after which the fair share per address applies.
CROWDED_AT = 0.75
#: Connections an address may hold once the server is crowded (unless it already holds more).
CROWDED_SHARE = 16


def peer_address(peer: Any) -> str:
    """The IP address of a socket's peer (``(host, port, ...)``), without the port."""
    return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)


class AddressBook:
    """Websocket connections held, in all and per address."""

    def __init__(self, max_total: int, per_address: int, crowded_share: int = CROWDED_SHARE,
                 crowded_at: float = CROWDED_AT) -> None:
        self.max_total = max_total
        self.per_address = per_address
        self.crowded_share = crowded_share
        self.crowded_at = crowded_at
        self.total = 0
        self._held: dict[str, int] = {}

    def held(self, address: str) -> int:
        return self._held.get(address, 0)

    def refusal(self, address: str) -> tuple[int, str] | None:
        """Why a new connection from `address` is refused (HTTP status, text), or None."""
        if self.total >= self.max_total:
            return 503, "too many connections\n"
        held = self.held(address)
        if held >= self.per_address:
            return 429, "too many connections from this address\n"
        if held >= self.crowded_share and self.total >= self.crowded_at * self.max_total:
            return 429, "the server is nearly full and this address has its share of connections\n"
        return None

    def add(self, address: str) -> None:
        self.total += 1
        self._held[address] = self.held(address) + 1

    def remove(self, address: str) -> None:
        left = self.held(address) - 1
        if address in self._held:
            self.total -= 1
        if left > 0:
            self._held[address] = left
        else:
            self._held.pop(address, None)


class SocketGuard:
    """Counts the sockets per address that have not finished their opening handshake (or HTTP
    answer), and closes a new one over `limit` at once. `connection_class` is what websockets'
    ``serve(create_connection=...)`` takes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pending: dict[str, int] = {}
        self.refused = 0

    def pending(self, address: str) -> int:
        return self._pending.get(address, 0)

    def _open(self, address: str) -> bool:
        if self.pending(address) >= self.limit:
            self.refused += 1
            if self.refused == 1 or self.refused % 1000 == 0:
                log.warning("%s has %d sockets in their handshake; closing new ones (%d so far)", address,
                            self.limit, self.refused)
            return False
        self._pending[address] = self.pending(address) + 1
        return True

    def _done(self, address: str) -> None:
        left = self.pending(address) - 1
        if left > 0:
            self._pending[address] = left
        else:
            self._pending.pop(address, None)

    def connection_class(self) -> type[ServerConnection]:
        guard = self

        class GuardedConnection(ServerConnection):
            """A server connection that counts itself against its address until its handshake ends."""

            _address = ""
            _counted = False
            _refused = False

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self._address = peer_address(transport.get_extra_info("peername"))
                if not guard._open(self._address):
                    self._refused = True  # no handler task, no buffers: the socket just closes
                    cast(asyncio.Transport, transport).abort()
                    return
                self._counted = True
                super().connection_made(transport)

            def connection_lost(self, exc: Exception | None) -> None:
                if self._refused:
                    return
                self._uncount()
                super().connection_lost(exc)

            def data_received(self, data: bytes) -> None:
                if not self._refused:
                    super().data_received(data)

            async def handshake(self, *args: Any, **kwargs: Any) -> None:
                try:
                    await super().handshake(*args, **kwargs)
                finally:
                    self._uncount()

            def _uncount(self) -> None:
                if self._counted:
                    self._counted = False
                    guard._done(self._address)

        return GuardedConnection
