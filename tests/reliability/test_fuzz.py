"""A smaller version of ``benchmarks/fuzz_replies.py``: adversarial model replies through whole
dispatcher steps under both rule sets, and malformed websocket frames through the parser, with
no crash and no parse slower than 100 ms."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import time
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("fuzz_replies", Path(__file__).parents[2] / "benchmarks" / "fuzz_replies.py")
assert _spec is not None and _spec.loader is not None
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)


@pytest.mark.parametrize("rules", ["fixed", "reference"])
def test_fuzzed_replies_never_crash_a_step(rules: str) -> None:
    cpu = [0.0]  # the parse's own CPU time: a shared machine's scheduling pauses are not its cost
    crashes, _ = asyncio.run(fuzz.dispatcher_fuzz(300, rules, 7, cpu))
    assert crashes == 0 and cpu[0] < 0.1


def test_fuzzed_frames_never_crash_the_parser() -> None:
    crashes, _ = fuzz.frames_fuzz(2000, 7)
    assert crashes == 0
    rng = random.Random(7)
    for _ in range(2000):  # the same frames again, each timed at its best of three (a shared
        data = fuzz.frame(rng)  # machine's scheduling pause is not the parser's cost)
        assert min(timed(fuzz.parse_client, data) for _ in range(3)) < 0.1


def timed(fn: object, *args: object) -> float:
    started = time.perf_counter()
    fn(*args)  # type: ignore[operator]
    return time.perf_counter() - started
