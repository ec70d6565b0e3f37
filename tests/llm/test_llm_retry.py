"""The retry decision table, the error kinds, and the backoff bounds, with an injected clock
(nothing sleeps)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mindagent.llm import (
    AuthFailed,
    BadRequest,
    GenerationConfig,
    LLMError,
    ModelTimeout,
    ModelUnavailable,
    RateLimited,
)
from mindagent.llm.retry import (
    BASE_BACKOFF_S,
    MAX_BACKOFF_S,
    MAX_RETRIES_CAP,
    backoff_delay,
    error_kind,
    should_retry,
    with_retries,
)


class StatusError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"status {status}")
        self.status_code = status
        self.response = type("R", (), {"headers": headers or {}})()


class APITimeoutError(Exception):
    """Named like the SDKs' timeout error, which is matched by class name."""


class APIConnectionError(Exception):
    pass


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (429, True), (408, True), (409, True), (500, True), (502, True), (503, True),
        (504, True), (529, True), (599, True),
        (200, False), (400, False), (401, False), (403, False), (404, False), (413, False),
        (422, False), (600, False),
    ],
)
def test_status_table(status: int, expected: bool) -> None:
    assert should_retry(status) is expected
    assert should_retry(StatusError(status)) is expected


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (APITimeoutError(), True),
        (APIConnectionError(), True),
        (ValueError("bad"), False),
        (KeyError("x"), False),
    ],
)
def test_exception_table(exc: BaseException, expected: bool) -> None:
    assert should_retry(exc) is expected


def test_sdk_exception_classes() -> None:
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")
    for sdk in (anthropic, openai):
        timeout = sdk.APITimeoutError(request=None)
        assert should_retry(timeout) is True
        # APITimeoutError subclasses APIConnectionError; the timeout must win
        assert error_kind(timeout) is ModelTimeout
        assert error_kind(sdk.APIConnectionError(request=None)) is ModelUnavailable


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (429, RateLimited),
        (401, AuthFailed), (403, AuthFailed),
        (408, ModelTimeout),
        (409, ModelUnavailable), (500, ModelUnavailable), (502, ModelUnavailable),
        (503, ModelUnavailable), (504, ModelUnavailable), (529, ModelUnavailable),
        (400, BadRequest), (404, BadRequest), (405, BadRequest), (413, BadRequest),
        (422, BadRequest),
        (200, LLMError), (302, LLMError), (600, LLMError),
    ],
)
def test_error_kind_by_status(status: int, kind: type[LLMError]) -> None:
    assert error_kind(status) is kind
    assert error_kind(StatusError(status)) is kind


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TimeoutError(), ModelTimeout),
        (APITimeoutError(), ModelTimeout),
        (ConnectionRefusedError(), ModelUnavailable),
        (ConnectionResetError(), ModelUnavailable),
        (APIConnectionError(), ModelUnavailable),
        (ValueError("bad"), LLMError),
        (AuthFailed("already classified"), AuthFailed),
    ],
)
def test_error_kind_by_exception(exc: BaseException, kind: type[LLMError]) -> None:
    assert error_kind(exc) is kind


def test_every_transient_failure_has_a_transient_kind() -> None:
    """What `with_retries` gives up on is always one of the three "try later" kinds."""
    transient = [s for s in range(100, 700) if should_retry(s)]
    assert transient
    for status in transient:
        assert error_kind(status) in (RateLimited, ModelUnavailable, ModelTimeout), status


@pytest.mark.parametrize("attempt", range(12))
def test_backoff_bounds(attempt: int) -> None:
    rng = random.Random(attempt)
    step = min(MAX_BACKOFF_S, BASE_BACKOFF_S * 2**attempt)
    for _ in range(200):
        delay = backoff_delay(attempt, rng)
        assert step / 2 <= delay <= step <= MAX_BACKOFF_S


def test_backoff_is_seeded() -> None:
    a = [backoff_delay(n, random.Random(7)) for n in range(5)]
    b = [backoff_delay(n, random.Random(7)) for n in range(5)]
    assert a == b


def _flaky(*failures: BaseException, result: str = "ok") -> tuple[Any, list[int]]:
    calls: list[int] = []

    async def fn() -> str:
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return result

    return fn, calls


@pytest.mark.asyncio
async def test_retries_then_succeeds(fake_sleep: Any) -> None:
    fn, calls = _flaky(StatusError(429), StatusError(529), TimeoutError())
    out = await with_retries(fn, GenerationConfig(max_retries=4), sleep=fake_sleep,
                             rng=random.Random(0))
    assert out == "ok" and len(calls) == 4
    assert len(fake_sleep.waits) == 3
    for n, wait in enumerate(fake_sleep.waits):
        step = min(MAX_BACKOFF_S, BASE_BACKOFF_S * 2**n)
        assert step / 2 <= wait <= step


@pytest.mark.asyncio
async def test_gives_up_after_max_retries(fake_sleep: Any) -> None:
    fn, calls = _flaky(*[StatusError(503)] * 10)
    with pytest.raises(ModelUnavailable, match="after 3 attempts: HTTP 503") as info:
        await with_retries(fn, GenerationConfig(max_retries=2), sleep=fake_sleep)
    assert len(calls) == 3 and len(fake_sleep.waits) == 2
    assert isinstance(info.value.__cause__, StatusError)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("failure", "kind", "reason"),
    [
        (StatusError(429), RateLimited, "HTTP 429"),
        (StatusError(529), ModelUnavailable, "HTTP 529"),
        (StatusError(408), ModelTimeout, "HTTP 408"),
        (TimeoutError("read timed out"), ModelTimeout, "TimeoutError: read timed out"),
        (APITimeoutError("Request timed out."), ModelTimeout, "APITimeoutError"),
        (ConnectionRefusedError("refused"), ModelUnavailable, "ConnectionRefusedError: refused"),
        (APIConnectionError("Connection error."), ModelUnavailable, "APIConnectionError"),
    ],
)
async def test_running_out_raises_the_kind_of_the_last_failure(
    fake_sleep: Any, failure: BaseException, kind: type[LLMError], reason: str
) -> None:
    fn, calls = _flaky(*[failure] * 3)
    with pytest.raises(kind, match=f"model call failed after 2 attempts: {reason}"):
        await with_retries(fn, GenerationConfig(max_retries=1), sleep=fake_sleep)
    assert len(calls) == 2


@pytest.mark.asyncio
async def test_kind_follows_the_last_failure_not_the_first(fake_sleep: Any) -> None:
    fn, _ = _flaky(StatusError(429), StatusError(429), StatusError(503))
    with pytest.raises(ModelUnavailable, match="after 3 attempts: HTTP 503"):
        await with_retries(fn, GenerationConfig(max_retries=2), sleep=fake_sleep)


@pytest.mark.asyncio
async def test_an_llm_error_passes_through_unretried(fake_sleep: Any) -> None:
    fn, calls = _flaky(AuthFailed("no key"))
    with pytest.raises(AuthFailed, match="^no key$"):
        await with_retries(fn, GenerationConfig(max_retries=4), sleep=fake_sleep)
    assert len(calls) == 1 and fake_sleep.waits == []


@pytest.mark.asyncio
async def test_non_retryable_is_raised_at_once(fake_sleep: Any) -> None:
    fn, calls = _flaky(StatusError(400))
    with pytest.raises(StatusError):
        await with_retries(fn, GenerationConfig(max_retries=4), sleep=fake_sleep)
    assert len(calls) == 1 and fake_sleep.waits == []


@pytest.mark.asyncio
async def test_zero_retries_and_cap(fake_sleep: Any) -> None:
    fn, calls = _flaky(StatusError(500))
    with pytest.raises(LLMError):
        await with_retries(fn, GenerationConfig(max_retries=0), sleep=fake_sleep)
    assert len(calls) == 1
    fn, calls = _flaky(*[StatusError(500)] * 100)
    with pytest.raises(LLMError):
        await with_retries(fn, GenerationConfig(max_retries=1000), sleep=fake_sleep)
    assert len(calls) == MAX_RETRIES_CAP + 1


@pytest.mark.asyncio
async def test_retry_after_header_is_honoured_within_cap(fake_sleep: Any) -> None:
    fn, _ = _flaky(StatusError(429, {"retry-after": "7"}),
                   StatusError(429, {"retry-after": "9999"}))
    await with_retries(fn, GenerationConfig(), sleep=fake_sleep, rng=random.Random(0))
    assert fake_sleep.waits[0] == 7.0
    assert fake_sleep.waits[1] == MAX_BACKOFF_S


@pytest.mark.asyncio
async def test_retries_and_the_retry_after_cap_are_configurable(fake_sleep: Any) -> None:
    """A paid run may wait out a long Retry-After instead of failing a unit (`--max-retry-after`)."""
    fn, _ = _flaky(StatusError(429, {"retry-after": "120"}), StatusError(429, {"retry-after": "9999"}))
    config = GenerationConfig(max_retry_after_s=300.0)
    await with_retries(fn, config, sleep=fake_sleep, rng=random.Random(0))
    assert fake_sleep.waits == [120.0, 300.0]
    fn, calls = _flaky(*[StatusError(503)] * 7)
    assert await with_retries(fn, GenerationConfig(max_retries=7), sleep=fake_sleep, rng=random.Random(0)) == "ok"
    assert len(calls) == 8
    fn, _ = _flaky(StatusError(429, {"retry-after": "7"}))
    await with_retries(fn, GenerationConfig(max_retry_after_s=0.0), sleep=fake_sleep, rng=random.Random(0))
    assert fake_sleep.waits[-1] <= 2 * 0.5  # no cap above the backoff: the backoff alone
