"""A token bucket per connection: bursts up to `capacity` frames, then `rate` frames a second.

Example::

    bucket = TokenBucket(rate=10, capacity=20)
    if not bucket.take():
        ...  # answer "rate_limited" and drop the frame
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Frames a connection may send in a burst, and per second after it.
DEFAULT_CAPACITY = 30
DEFAULT_RATE = 10.0


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
        return False
