"""One retry policy for every network backend.

The SDKs each have their own retry loop; we switch those off (``max_retries=0``) so that the
number of attempts, the backoff and the log lines are the same whichever provider a run uses,
and so that tests can drive the whole policy with an injected clock and random source.

The decision is a plain table: rate limits (429), request timeout (408), lock conflicts (409),
every 5xx (Anthropic's 529 "overloaded" included), client-side timeouts and dropped
connections are transient; anything else (400 bad request, 401 key, 404 model, ...) will fail
the same way again, so retrying only wastes the caller's time.

`error_kind` is the second table: which `LLMError` subclass a failure becomes, whether it was
retried or not (the tree and its reasons are in `mindagent.llm.base`).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mindagent.llm.base import (
    AuthFailed,
    BadRequest,
    GenerationConfig,
    LLMError,
    ModelTimeout,
    ModelUnavailable,
    RateLimited,
)
from mindagent.llm.redact import redact_text

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds a network call may take before the SDK gives up (overridden by GenerationConfig).
DEFAULT_TIMEOUT_S = 60.0
#: Seconds to open a TCP/TLS connection; short, because a dead host should fail fast.
CONNECT_TIMEOUT_S = 10.0
#: Retries after the first attempt when GenerationConfig does not say otherwise.
DEFAULT_MAX_RETRIES = 4
#: Hard ceiling on retries, whatever the config asks: a run must never hang on a dead provider.
MAX_RETRIES_CAP = 20
#: First backoff delay; doubled each attempt.
BASE_BACKOFF_S = 0.5
#: Longest single backoff wait, and the default cap on a server's Retry-After header.
MAX_BACKOFF_S = 30.0
#: Ceiling on the Retry-After cap a config may ask for (`GenerationConfig.max_retry_after_s`).
MAX_RETRY_AFTER_CAP_S = 3600.0

#: HTTP statuses worth another try; every 5xx is added by `should_retry`.
RETRYABLE_STATUSES = frozenset({408, 409, 429})

# Exception class names of the SDKs' (and httpx's) transport failures. Matched by name so this
# module does not import anthropic/openai (both raise `APITimeoutError` / `APIConnectionError`).
# Timeouts are told apart from dropped connections: they get different `error_kind`s, and the
# SDKs' `APITimeoutError` subclasses their `APIConnectionError`, so timeouts are checked first.
_TIMEOUT_CLASS_NAMES = frozenset(
    {"APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout", "PoolTimeout",
     "WriteTimeout"}
)
_CONNECTION_CLASS_NAMES = frozenset(
    {"APIConnectionError", "ConnectError", "ReadError", "RemoteProtocolError"}
)
_TRANSIENT_CLASS_NAMES = _TIMEOUT_CLASS_NAMES | _CONNECTION_CLASS_NAMES

Sleep = Callable[[float], Awaitable[None]]

#: Characters of an error's first line kept in `describe`, and how much is scanned for secrets first.
_DESCRIBE_CHARS = 300
_DESCRIBE_SCAN = 8_000


class MalformedReply(Exception):
    """The server said 200 but sent no API reply: HTML from a proxy, a truncated or empty body,
    JSON of another shape. Transient (a gateway hiccup, a model server restarting), so retried;
    once the retries are spent it is a `ModelUnavailable` like any other broken server."""


def well_formed(fn: Callable[[], Awaitable[Any]], check: Callable[[Any], T]) -> Callable[[], Awaitable[T]]:
    """``fn`` with its reply passed through ``check``; what the SDK could not decode (a
    ``JSONDecodeError`` is a ``ValueError``) and what ``check`` refuses become `MalformedReply`,
    inside the retried call so a bad body is retried like a 502."""

    async def call() -> T:
        try:
            reply = await fn()
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            raise MalformedReply(f"the reply is not valid JSON ({type(exc).__name__}: {str(exc)[:120]})") from exc
        if isinstance(reply, (str, bytes)):  # the SDKs hand back the raw text of a non-JSON content type
            raise MalformedReply(f"the reply is not JSON ({len(reply)} characters of text)")
        try:
            return check(reply)
        except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            raise MalformedReply(f"the reply is not a completion ({type(exc).__name__}: {str(exc)[:120]})") from exc

    return call


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (``status_code``), or None for transport errors."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def should_retry(exc_or_status: BaseException | int) -> bool:
    """True when the failure is transient, so the same request may succeed a moment later."""
    if isinstance(exc_or_status, int):
        return exc_or_status in RETRYABLE_STATUSES or 500 <= exc_or_status <= 599
    exc = exc_or_status
    status = status_of(exc)
    if status is not None:
        return should_retry(status)
    if isinstance(exc, (TimeoutError, ConnectionError, MalformedReply)):  # asyncio.TimeoutError is TimeoutError
        return True
    return bool(_class_names(exc) & _TRANSIENT_CLASS_NAMES)


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def error_kind(exc_or_status: BaseException | int) -> type[LLMError]:
    """The `LLMError` subclass a failure maps to (see the table in `mindagent.llm.base`).

    Plain `LLMError` for what fits no kind: a non-HTTP error, or a status outside 4xx/5xx.
    """
    if isinstance(exc_or_status, int):
        status = exc_or_status
        if status == 429:
            return RateLimited
        if status in (401, 403):
            return AuthFailed
        if status == 408:
            return ModelTimeout
        if status == 409 or 500 <= status <= 599:
            return ModelUnavailable
        if 400 <= status <= 499:
            return BadRequest
        return LLMError
    exc = exc_or_status
    if isinstance(exc, LLMError):
        return type(exc)
    carried = status_of(exc)
    if carried is not None:
        return error_kind(carried)
    names = _class_names(exc)
    if isinstance(exc, TimeoutError) or names & _TIMEOUT_CLASS_NAMES:
        return ModelTimeout
    if isinstance(exc, (ConnectionError, MalformedReply)) or names & _CONNECTION_CLASS_NAMES:
        return ModelUnavailable
    return LLMError


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """Wait before retry number ``attempt`` (0-based): exponential, capped, with jitter.

    "Equal jitter": half of the exponential step is fixed and half random, so concurrent game
    rooms that hit a rate limit together spread out, yet no wait is ever near zero.
    Always within ``[step / 2, step]`` where ``step = min(MAX_BACKOFF_S, BASE * 2**attempt)``.
    """
    step = min(MAX_BACKOFF_S, BASE_BACKOFF_S * float(2 ** min(attempt, 30)))
    return step / 2 + rng.random() * step / 2


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds from a ``Retry-After`` header on the error's response, when it is a number."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP date, or junk: fall back to our own backoff


def describe(exc: BaseException) -> str:
    """A one-line reason for logs and LLMError messages (status first, when there is one)."""
    status = status_of(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    prefix = f"HTTP {status}" if status is not None else type(exc).__name__
    # masked before it is cut: a cut through a secret would leave a prefix no value matches
    return redact_text(f"{prefix}: {text[:_DESCRIBE_SCAN]}")[: len(prefix) + 2 + _DESCRIBE_CHARS]


async def with_retries(
    fn: Callable[[], Awaitable[T]],
    config: GenerationConfig,
    *,
    what: str = "model call",
    sleep: Sleep | None = None,
    rng: random.Random | None = None,
) -> T:
    """Await ``fn()``; on a transient failure wait and try again, at most ``max_retries`` times.

    A non-transient error is re-raised untouched (the backend turns its SDK's errors into
    `LLMError`s with `error_kind`); running out of attempts raises the `error_kind` of the last
    failure (`RateLimited`, `ModelTimeout` or `ModelUnavailable`), chained to it.
    ``sleep`` and ``rng`` are injectable so tests neither sleep nor depend on chance.
    """
    sleep = sleep or asyncio.sleep
    rng = rng or random.Random()
    retries = max(0, min(config.max_retries, MAX_RETRIES_CAP))
    last: BaseException | None = None
    for attempt in range(retries + 1):
        try:
            return await fn()
        except LLMError:
            raise
        except Exception as exc:
            if not should_retry(exc):
                raise
            last = exc
            if attempt == retries:
                break
            delay = backoff_delay(attempt, rng)
            hinted = retry_after_s(exc)
            if hinted is not None:
                cap = max(0.0, min(config.max_retry_after_s, MAX_RETRY_AFTER_CAP_S))
                delay = min(max(cap, delay), max(delay, hinted))
            log.warning("%s failed (%s); retry %d/%d in %.2fs",
                        what, describe(exc), attempt + 1, retries, delay)
            await sleep(delay)
    assert last is not None  # the loop only ends here after a caught, retryable failure
    kind = error_kind(last)
    raise kind(f"{what} failed after {retries + 1} attempts: {describe(last)}") from last
