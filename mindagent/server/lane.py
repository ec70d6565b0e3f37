"""Client frames get a bounded slice of the event loop, so room clocks never wait behind a burst.

asyncio runs every callback that is ready at the start of a loop iteration before it looks at the
timers again. A websocket connection with frames buffered hands them to `Connection.serve` one
after another without suspending, so 500 spectators joining and leaving at the rate limit filled
one iteration with thousands of joins (each encoding a welcome): the churn benchmark measured a
30 s iteration, during which no other room ticked.

`FrameLane` caps the handling time spent between two chances for the timers to run: once frames
have used `slice_s` seconds, every connection waits in one FIFO queue; the next loop iteration
(after due timers and I/O callbacks) lets through about another slice's worth, in arrival order.
A connection that waits reads nothing meanwhile, so its socket fills and TCP slows its sender
down: the cost of a flood lands on the flooder, not on other rooms.

Example::

    lane = FrameLane()
    async for frame in ws:
        await lane.enter()              # returns at once while the slice lasts
        started = time.perf_counter()
        handle(frame)
        lane.leave(time.perf_counter() - started)
"""

from __future__ import annotations

import asyncio
from collections import deque

#: Seconds of frame handling between two turns of the loop's timers.
SLICE_S = 0.004
#: First guess of one frame's handling time, refined by a moving average.
FIRST_COST_S = 0.0002


class FrameLane:
    """One per server (per event loop); not thread-safe, like everything on the loop."""

    def __init__(self, slice_s: float = SLICE_S) -> None:
        if slice_s <= 0:
            raise ValueError("a frame lane needs a positive slice")
        self.slice_s = slice_s
        self.cost_s = FIRST_COST_S  # moving average of one frame's handling time
        self.spent_s = 0.0  # handling time since the last release
        self.waited = 0  # frames that had to wait for a later loop iteration (for tests and figures)
        self.handled = 0
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._release_soon = False

    @property
    def queued(self) -> int:
        return len(self._waiting)

    async def enter(self) -> None:
        """Wait for a turn if the slice is used up or others are already waiting (FIFO)."""
        if not self._waiting and self.spent_s < self.slice_s:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        self.waited += 1
        self._schedule_release()
        try:
            await future
        except asyncio.CancelledError:
            if future in self._waiting:
                self._waiting.remove(future)
            raise

    def leave(self, spent_s: float) -> None:
        """A frame's handling took `spent_s` seconds (it may have awaited: counted all the same)."""
        self.handled += 1
        self.spent_s += spent_s
        self.cost_s += 0.1 * (min(spent_s, self.slice_s) - self.cost_s)
        if self.spent_s >= self.slice_s:
            self._schedule_release()

    def _schedule_release(self) -> None:
        if not self._release_soon:
            self._release_soon = True
            asyncio.get_running_loop().call_soon(self._release)

    def _release(self) -> None:
        """A new loop iteration: a fresh slice, and about that many frames' worth of waiters go."""
        self._release_soon = False
        self.spent_s = 0.0
        allowed = max(1, int(self.slice_s / max(self.cost_s, 1e-6)))
        while self._waiting and allowed > 0:
            future = self._waiting.popleft()
            if not future.done():
                future.set_result(None)
                allowed -= 1
        if self._waiting:
            self._schedule_release()
