"""The overall deadline of a model call: its own expiry is a `ModelTimeout`, other timeouts pass,
and a local call that outlives its deadline (or its event loop) ends without a stray error."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from mindagent.llm import GenerationConfig, Message, ModelTimeout
from mindagent.llm.deadline import MIN_DEADLINE_S, deadline, deadline_seconds
from mindagent.llm.local_backend import LocalClient


@pytest.mark.asyncio
async def test_expiry_is_a_model_timeout_naming_the_caller() -> None:
    with pytest.raises(ModelTimeout, match=r"openai:x: no answer within 0.05s"):
        async with deadline(0.05, "openai:x"):
            await asyncio.sleep(5)


@pytest.mark.asyncio
async def test_a_timeout_raised_inside_is_not_relabelled() -> None:
    with pytest.raises(TimeoutError) as caught:
        async with deadline(5, "x"):
            raise TimeoutError("the SDK's own")
    assert not isinstance(caught.value, ModelTimeout)


@pytest.mark.asyncio
async def test_a_finished_body_is_untouched() -> None:
    async with deadline(5, "x"):
        await asyncio.sleep(0)


def test_budget_edges() -> None:
    assert deadline_seconds(float("inf")) is None
    assert deadline_seconds(0) == MIN_DEADLINE_S
    assert deadline_seconds(3) == 3


class SlowLocal:
    """A `LocalClient` whose generation blocks for `seconds` (no llama.cpp needed); with
    `heeds_cancel` it stops early when its cancel flag is set, as llama.cpp's abort callback does
    between tokens, without it it plays a decode that does not check in time."""

    def __init__(self, seconds: float, heeds_cancel: bool) -> None:
        self.client = LocalClient()
        self.finished = threading.Event()

        def generate(messages: Any, config: Any, grammar: Any, cancel: threading.Event,
                     abandoned: threading.Event | None = None) -> tuple[dict[str, Any], int]:
            if heeds_cancel:
                cancel.wait(seconds)
            else:
                time.sleep(seconds)
            self.finished.set()
            return {"choices": [{"message": {"content": "late"}}]}, 0

        self.client._generate = generate  # type: ignore[method-assign]


def unraised(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(repr(args.exc_value)))
    return seen


def test_a_local_call_past_its_deadline_outlives_its_loop_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = unraised(monkeypatch)
    slow = SlowLocal(0.4, heeds_cancel=False)

    async def call() -> None:
        with pytest.raises(ModelTimeout):
            await slow.client.complete([Message("user", "hi")], GenerationConfig(timeout_s=0.05))

    started = time.perf_counter()
    asyncio.run(call())  # the loop closes while the worker still "decodes"
    assert time.perf_counter() - started < 0.3
    assert slow.finished.wait(2)
    time.sleep(0.1)  # the worker's hand-back runs after `finished`
    assert seen == []


def test_aclose_stops_and_waits_for_a_timed_out_local_call(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = unraised(monkeypatch)
    slow = SlowLocal(30, heeds_cancel=True)

    async def call() -> None:
        with pytest.raises(ModelTimeout):
            await slow.client.complete([Message("user", "hi")], GenerationConfig(timeout_s=0.05))
        await slow.client.aclose()  # sets the cancel flag the worker waits on
        assert slow.finished.is_set()

    asyncio.run(call())
    assert seen == []
