"""Fuzz: model replies through the whole dispatcher step (`--rules fixed` and `--rules reference`),
websocket frames through the protocol parser, and the extraction budget on 100 KB.

Prints crashes (must be 0), the slowest parse of a reply (wall time, and CPU time of the process,
which a busy machine's scheduling pauses do not inflate), and the time to parse 100 KB of
adversarial text (target under 50 ms; the brain caps replies at 64 K characters first, so this
measures the parser past the cap too). Bounded: counts are fixed, everything runs in-process.

    python benchmarks/fuzz_replies.py [--replies 10000] [--frames 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from collections.abc import Sequence

from cuisineworld.adapter.extraction import extract_commands
from mindagent.core import registry as domains
from mindagent.core.episode import Episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.base import Completion, GenerationConfig, Message, Usage
from mindagent.server.protocol import parse_client

PIECES = ["\n", " ", "\t", "`", "```", "```py\n", "***", "*", "#", "> ", "- ", "_", "answer:", "Final answer -",
          "plan:", "goto_agent", "goto_agent0_storage0", "get_agent1_tuna_storage0", "put_agent0_", "noop_agent1",
          "activate_agent0_blender0", "<b>", "</b>", "---", "goal:", "agent", "\u00e9", "\ud83c\udf63", "\x00", "{", "}"]


def reply(rng: random.Random) -> str:
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 6))]
    return ("".join(parts) * rng.choice([1, 3, 30, 300, 3000, 30000]))[:120_000]


def frame(rng: random.Random) -> str | bytes:
    kinds = ["ping", "join", "leave", "command", "instruct", "create_room", "set_model", "questionnaire", "x", ""]
    message: dict[str, object] = {"v": rng.choice([1, 1, 1, 2, "1", None]), "type": rng.choice(kinds)}
    for key in rng.sample(["room", "role", "agent", "command", "text", "id", "secret", "answers", "model"], 3):
        message[key] = rng.choice(["", "a" * rng.randint(0, 5000), -1, 10**30, 3.5, None, [], {"x": [1] * 50},
                                   "goto_agent0_storage0", "spectator", True])
    text = json.dumps(message)
    cut = rng.random()
    if cut < 0.1:
        return text[: rng.randint(0, len(text))]
    if cut < 0.15:
        return "[" * rng.randint(1, 5000)
    if cut < 0.2:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))
    return text


class Fuzzed:
    name = "fuzz"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    async def complete(self, messages: Sequence[Message], config: GenerationConfig, grammar: str | None = None
                       ) -> Completion:
        return Completion(reply(self.rng), Usage())

    async def aclose(self) -> None:
        return None


async def dispatcher_fuzz(n: int, rules: str, seed: int, cpu: list[float] | None = None) -> tuple[int, float]:
    """Crashes and the slowest parse in wall seconds; `cpu`, when given, gets the slowest parse in
    CPU seconds of this process (what the parse costs, without the pauses a loaded machine adds)."""
    rng = random.Random(seed)
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, seed, rules, None))
    session = domains.make_session(spec)
    dispatcher = Dispatcher.for_session(session, LLMBrain(Fuzzed(rng)), PromptConfig(demo="none"))
    crashes, slowest = 0, 0.0
    await session.reset(seed=seed)
    episode = Episode(session, dispatcher)
    for _ in range(n):
        if session.done:
            await session.reset(seed=rng.randint(0, 10**6))
            episode = Episode(session, dispatcher)
        try:
            text = reply(rng)
            started, cpu_started = time.perf_counter(), time.process_time()
            extract_commands(text[:65_536], 2, rules)
            slowest = max(slowest, time.perf_counter() - started)
            if cpu is not None:
                cpu[0] = max(cpu[0], time.process_time() - cpu_started)
            await episode.advance(await episode.act())
        except Exception as exc:  # noqa: BLE001 - counted: the fuzz's finding
            crashes += 1
            print("crash:", type(exc).__name__, str(exc)[:200])
    return crashes, slowest


def frames_fuzz(n: int, seed: int, cpu: list[float] | None = None) -> tuple[int, float]:
    rng = random.Random(seed)
    crashes, slowest = 0, 0.0
    for _ in range(n):
        data = frame(rng)
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            parse_client(data)
        except Exception as exc:  # noqa: BLE001 - counted: parse_client must never raise
            crashes += 1
            print("crash:", type(exc).__name__, str(exc)[:200])
        slowest = max(slowest, time.perf_counter() - started)
        if cpu is not None:
            cpu[0] = max(cpu[0], time.process_time() - cpu_started)
    return crashes, slowest


def budget_100k() -> tuple[float, float]:
    """The worst time to parse 100 KB of adversarial text: wall seconds, and CPU seconds."""
    worst, worst_cpu = 0.0, 0.0
    for text in ("\n" * 100_000, "```" * 33_333, "answer:\n" * 12_500, "goto_agent0_" * 8_333, " \t" * 50_000,
                 "*** " * 25_000, "```x\n" * 20_000):
        for rules in ("fixed", "reference"):
            started, cpu_started = time.perf_counter(), time.process_time()
            extract_commands(text, 4, rules)
            worst = max(worst, time.perf_counter() - started)
            worst_cpu = max(worst_cpu, time.process_time() - cpu_started)
    return worst, worst_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=10_000)
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # "reply cut" warnings by the thousand
    for rules in ("fixed", "reference"):
        started, cpu_started, cpu = time.perf_counter(), time.process_time(), [0.0]
        crashes, slowest = asyncio.run(dispatcher_fuzz(args.replies, rules, args.seed, cpu))
        print(f"replies --rules {rules}: {args.replies} steps, {crashes} crashes, slowest parse {slowest * 1000:.1f} ms "
              f"wall / {cpu[0] * 1000:.1f} ms CPU, {time.perf_counter() - started:.1f} s in all "
              f"({time.process_time() - cpu_started:.1f} CPU s)")
    cpu = [0.0]
    crashes, slowest = frames_fuzz(args.frames, args.seed, cpu)
    print(f"frames: {args.frames}, {crashes} crashes, slowest parse {slowest * 1000:.1f} ms wall / {cpu[0] * 1000:.1f} ms CPU")
    wall, cpu_s = budget_100k()
    print(f"extraction of 100 KB adversarial text: worst {wall * 1000:.1f} ms wall / {cpu_s * 1000:.1f} ms CPU (budget 50 ms)")


if __name__ == "__main__":
    main()
