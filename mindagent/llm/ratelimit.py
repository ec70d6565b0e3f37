"""One backend's request budget (requests and tokens per minute, requests in flight), shared by every caller.

A provider's limit is per key, not per process: eight workers that each keep to 60 requests a
minute send 480. So the budget is one object, `RateGate`, and every request asks it first. In
one process the callers hold the object itself; across processes they hold a proxy to the single
instance (a `multiprocessing` manager, or a Ray actor for `--executor ray`; see
`mindagent.evaluation.executors`), and the proxy only needs the two methods of `Gate`.

The rule: a request holds a place in the `rpm` budget from the moment it is admitted until
`window_s` seconds after it ends (answered, failed or cancelled); at most `rpm` places and at most
`concurrency` open requests at once. Holding the place past the end, not just past the admission,
is what makes the limit hold where it counts, at the provider: a request reaches the server at
some moment between its admission and its end, however late the network delivers it, so any
`window_s` of arrival times there holds at most `rpm` requests (if rpm + 1 arrived within one
window, the last of them to be admitted would have found the other rpm still holding places).
The price is a little throughput: a full budget turns over every `window_s` plus one request's
latency. Tokens (`tpm`) follow the same rule with each request weighing what it may cost: its
prompt's estimated tokens plus the most it may write (`max_tokens`), which is how providers meter a
request on arrival, before they know its answer; one request heavier than the whole budget still
goes when nothing else holds a place (refusing it forever would stall the sweep; the provider
answers it with its own error). Times are the gate's own clock, so callers on other clocks or machines agree. A gate
never schedules ahead; a caller that is refused asks again after the delay the gate names, so a
cancelled caller holds nothing. Every HTTP attempt passes the gate, retries included.

Example::

    gate = RateGate(RateLimits(rpm=60, concurrency=4))
    async with admitted(gate):
        reply = await client.complete(...)
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

T = TypeVar("T")

#: how long a caller refused only for concurrency waits before asking again
POLL_S = 0.02


@dataclass(frozen=True, slots=True)
class RateLimits:
    """A backend's budget for a whole sweep; None means no limit of that kind."""

    rpm: int | None = None
    concurrency: int | None = None
    tpm: int | None = None  # tokens per minute: prompt estimate plus max_tokens of every request
    window_s: float = 60.0  # the window `rpm` counts in (shorter only in tests)

    def __post_init__(self) -> None:
        if self.rpm is not None and self.rpm < 1:
            raise ValueError("rpm must be at least 1")
        if self.concurrency is not None and self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.tpm is not None and self.tpm < 1:
            raise ValueError("tpm must be at least 1")
        if self.window_s <= 0:
            raise ValueError("window_s must be positive")

    @property
    def limited(self) -> bool:
        return self.rpm is not None or self.concurrency is not None or self.tpm is not None


class Gate(Protocol):
    """What a caller needs of a gate, local or a proxy to one in another process."""

    def try_enter(self, tokens: int = 0) -> float:
        """0.0: admitted (call `leave` with the same `tokens` when the request is over);
        otherwise seconds to wait before asking again."""

    def leave(self, tokens: int = 0) -> None:
        """One admitted request of weight `tokens` is over (answered, failed or cancelled)."""


class RateGate:
    """The budget's single instance. Thread-safe: a manager serves each client on a thread."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._ended: deque[tuple[float, int]] = deque()  # (end time, tokens) of requests still holding a place
        self._in_flight = 0
        self._held_tokens = 0  # tokens of open requests and of ended ones still in the window
        self.total = 0
        self.peak_in_flight = 0

    def try_enter(self, tokens: int = 0) -> float:
        with self._lock:
            now = self._clock()
            limits = self.limits
            while self._ended and self._ended[0][0] <= now - limits.window_s:
                self._held_tokens -= self._ended.popleft()[1]
            over_requests = limits.rpm is not None and self._in_flight + len(self._ended) >= limits.rpm
            over_tokens = (limits.tpm is not None and self._held_tokens > 0
                           and self._held_tokens + tokens > limits.tpm)
            if over_requests or over_tokens:
                if not self._ended:  # every place is held by an open request
                    return POLL_S
                return max(POLL_S / 4, self._ended[0][0] + limits.window_s - now)
            if limits.concurrency is not None and self._in_flight >= limits.concurrency:
                return POLL_S
            self._in_flight += 1
            self._held_tokens += tokens
            self.total += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
            return 0.0

    def leave(self, tokens: int = 0) -> None:
        with self._lock:
            if self._in_flight == 0:
                return
            self._in_flight -= 1
            if self.limits.rpm is not None or self.limits.tpm is not None:
                self._ended.append((self._clock(), tokens))
            else:
                self._held_tokens -= tokens

    def stats(self) -> tuple[int, int]:
        """Requests admitted so far and the most ever in flight at once."""
        with self._lock:
            return self.total, self.peak_in_flight


def request_tokens(texts: Iterable[str], max_tokens: int) -> int:
    """What a request weighs in a `tpm` budget before it is answered: about four characters a
    token for the prompt (with a few tokens of framing per message) plus all it may write."""
    return sum(-(-len(text) // 4) + 4 for text in texts) + max(0, max_tokens)


@asynccontextmanager
async def admitted(gate: Gate, tokens: int = 0) -> AsyncIterator[None]:
    """Hold one request's place (and its `tokens`) in the budget for the body of the block."""
    while (wait := gate.try_enter(tokens)) > 0:
        await asyncio.sleep(wait)
    try:
        yield
    finally:
        gate.leave(tokens)


def gated(fn: Callable[[], Awaitable[T]], gate: Gate | None, tokens: int = 0) -> Callable[[], Awaitable[T]]:
    """`fn` with every call admitted by `gate` first (`fn` itself when there is no gate); wraps
    the single attempt a retry loop repeats, so each attempt counts."""
    if gate is None:
        return fn

    async def call() -> T:
        async with admitted(gate, tokens):
            return await fn()

    return call
