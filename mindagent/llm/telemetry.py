"""Counts of this process's model calls: how many, how long, and how many failed of which kind.

A server's ``/metrics`` page reports them (each room worker sends its own, the front adds them
up), so an operator sees a provider slowing down or failing before players do. Every backend
wraps its whole `complete` in `metered`; nothing here does I/O, and a snapshot is a small frozen
value that pickles across processes.

Example::

    with metered():
        reply = await call()
    snapshot().calls, snapshot().errors  # 1, {} (or {"ModelTimeout": 1})
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: Upper bounds (seconds) of the call-latency histogram's buckets; +Inf is implied.
LATENCY_BUCKETS: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class CallSnapshot:
    """Totals since the process started: `buckets[i]` counts calls of at most `LATENCY_BUCKETS[i]`
    seconds (not cumulative), `errors` failed calls by `LLMError` class name."""

    calls: int = 0
    seconds: float = 0.0
    buckets: tuple[int, ...] = (0,) * len(LATENCY_BUCKETS)
    errors: dict[str, int] = field(default_factory=dict)


_lock = threading.Lock()
_calls = 0
_seconds = 0.0
_buckets = [0] * len(LATENCY_BUCKETS)
_errors: dict[str, int] = {}


def observe(seconds: float, error: str | None = None) -> None:
    """Count one finished call of `seconds`, failed with the error class `error` (or not)."""
    global _calls, _seconds
    seconds = max(0.0, seconds)
    with _lock:
        _calls += 1
        _seconds += seconds
        for i, bound in enumerate(LATENCY_BUCKETS):
            if seconds <= bound:
                _buckets[i] += 1
                break
        if error is not None:
            _errors[error] = _errors.get(error, 0) + 1


@contextmanager
def metered() -> Iterator[None]:
    """Time the body as one model call; an exception is counted as an error of its class (a
    cancelled call, which no one waits for any more, is not counted at all)."""
    started = time.perf_counter()
    try:
        yield
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        observe(time.perf_counter() - started, type(exc).__name__)
        raise
    observe(time.perf_counter() - started)


def snapshot() -> CallSnapshot:
    with _lock:
        return CallSnapshot(_calls, _seconds, tuple(_buckets), dict(sorted(_errors.items())))


def merge(parts: Iterable[CallSnapshot | None]) -> CallSnapshot:
    """Several processes' snapshots as one (missing ones count as nothing)."""
    calls, seconds = 0, 0.0
    buckets = [0] * len(LATENCY_BUCKETS)
    errors: dict[str, int] = {}
    for part in parts:
        if part is None:
            continue
        calls += part.calls
        seconds += part.seconds
        for i, n in enumerate(part.buckets[: len(buckets)]):
            buckets[i] += n
        for kind, n in part.errors.items():
            errors[kind] = errors.get(kind, 0) + n
    return CallSnapshot(calls, seconds, tuple(buckets), dict(sorted(errors.items())))
