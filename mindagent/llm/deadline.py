"""One overall deadline per model call, whatever the transport does underneath.

The SDKs' timeouts are httpx timeouts, and httpx's read timeout restarts with every chunk: a
server that answers 200 with a large Content-Length and then sends one byte every two seconds
never trips a three-second read timeout, so a call could hang for as long as the body lasts.
`deadline` puts an `asyncio.timeout` around the whole call (retries and backoff included), so
``--timeout`` is a promise about wall-clock time, and turns its expiry into a `ModelTimeout`:
a failure in the results, never an empty answer scored as zero.

Example::

    async with deadline(config.timeout_s, "openai:gpt-4o-mini"):
        reply = await with_retries(call, config)
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mindagent.llm.base import ModelTimeout

#: The shortest deadline honoured; a zero or negative one would fail every call before it starts.
MIN_DEADLINE_S = 0.01


def deadline_seconds(timeout_s: float) -> float | None:
    """The wall-clock budget for a call configured with ``timeout_s`` (None: no finite limit)."""
    if not math.isfinite(timeout_s):
        return None
    return max(MIN_DEADLINE_S, timeout_s)


@asynccontextmanager
async def deadline(timeout_s: float, what: str) -> AsyncIterator[None]:
    """Raise `ModelTimeout` when the body has not finished within ``timeout_s`` seconds.

    Only this context's own expiry becomes a `ModelTimeout`; a `TimeoutError` raised by the body
    before the deadline (an SDK's own timeout, already mapped by the backend) passes through.
    """
    budget = deadline_seconds(timeout_s)
    scope = asyncio.timeout(budget)
    try:
        async with scope:
            yield
    except TimeoutError as exc:
        if scope.expired():
            raise ModelTimeout(f"{what}: no answer within {budget:g}s") from exc
        raise
