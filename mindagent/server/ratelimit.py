"""A token bucket per connection: bursts up to `capacity` frames, then `rate` frames a second.

Frames over the rate are dropped (one ``rate_limited`` error per run of drops); a connection with
more than `FLOOD_DROPS` frames dropped within about a second (a sender at over ten times the rate
once its burst is spent) is flooding and is closed within that second.

Example::

    bucket = TokenBucket(rate=10, capacity=20)
    if not bucket.take():
        ...  # answer "rate_limited" and drop the frame
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

#: Frames a connection may send in a burst, and per second after it.
DEFAULT_CAPACITY = 30
DEFAULT_RATE = 10.0
#: Refused frames (decaying over a second) at which a connection counts as flooding.
FLOOD_DROPS = 90.0


class TokenBucket:
    def __init__(self, rate: float = DEFAULT_RATE, capacity: float = DEFAULT_CAPACITY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or capacity < 1:
            raise ValueError("a token bucket needs a positive rate and a capacity of at least 1")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = float(capacity)
        self._last = clock()
        self.dropped = 0  # frames refused since the last accepted one
        # Refused frames, decaying with a one-second time constant (about "drops in the last
        # second"). Not reset by an accepted frame: a flood gets a token every 1/rate s, which used
        # to reset the count, so only floods past ~3,000 frames/s were ever closed.
        self._pressure = 0.0
        self._drop_at = self._last

    def take(self, cost: float = 1.0) -> bool:
        """Spend `cost` tokens if there are enough; False means the frame should be dropped."""
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= cost:
            self._tokens -= cost
            self.dropped = 0
            return True
        self.dropped += 1
        self._pressure = self._pressure * math.exp(-(now - self._drop_at)) + 1.0
        self._drop_at = now
        return False

    def full(self) -> bool:
        """The bucket has refilled: nothing spent in the last capacity/rate seconds."""
        return self._tokens + (self._clock() - self._last) * self.rate >= self.capacity

    def flooding(self) -> bool:
        """Over `FLOOD_DROPS` frames refused within about a second: a sender at over ten times the
        rate, closed (1008) within a second of starting (a one-off burst of 80 frames is not)."""
        return self._pressure > FLOOD_DROPS


#: New websocket connections one address may open per second once its burst is spent.
HANDSHAKE_RATE = 10.0
#: Addresses whose handshake buckets are kept; idle full ones are forgotten past this.
HANDSHAKE_ADDRESSES = 10_000


class AddressBuckets:
    """A token bucket per address: each address may do something `burst` times at once, then
    `rate` times a second. Bounded memory: past `HANDSHAKE_ADDRESSES` addresses, the idle ones
    (whose buckets have refilled) are forgotten first."""

    def __init__(self, rate: float = HANDSHAKE_RATE, burst: float = 64,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def admit(self, address: str) -> bool:
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= HANDSHAKE_ADDRESSES:
                self._forget_idle()
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, self._clock)
        return bucket.take()

    def _forget_idle(self) -> None:
        """Drop the buckets that have refilled (their address has been quiet), oldest first."""
        for address in [a for a, b in self._buckets.items() if b.full()]:
            del self._buckets[address]
        while len(self._buckets) >= HANDSHAKE_ADDRESSES:
            del self._buckets[next(iter(self._buckets))]


class HandshakeGate(AddressBuckets):
    """New websocket connections per address, checked before the handshake: an address
    reconnecting in a loop costs the server a 429, not a welcome listing every room. The burst is
    the per-address connection cap, so opening that many tabs at once is fine."""
