"""Local model latency per dispatcher step: prompt evaluation vs generation, with and without the
prefix KV cache, for a thread setting.

It plays the first `--steps` steps of level_3 (2 agents) with the planner choosing the moves, and
at each step sends the real full dispatcher prompt (system text, demo, memory window, feedback,
state) to the embedded model under the kitchen's legal-move grammar, reading llama.cpp's own
timers. "cache" keeps llama-cpp-python's prefix reuse; "no cache" resets the context before every
call. ``--memory-budget`` picks the memory layout (`mindagent.dispatch.memory`): the default
growing window, or 0 for the paper's sliding window, whose prefix falls back to the static part
once the window is full. Run it once per thread setting; OpenMP's busy-waiting is what
`OMP_WAIT_POLICY=passive` turns off:

    PYTHONPATH=. python3 benchmarks/local_latency.py --threads 1
    PYTHONPATH=. python3 benchmarks/local_latency.py --steps 10 --caches cache
    PYTHONPATH=. python3 benchmarks/local_latency.py --steps 10 --caches cache --memory-budget 0
    OMP_WAIT_POLICY=passive PYTHONPATH=. python3 benchmarks/local_latency.py --threads 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics

from mindagent.core import registry as domains
from mindagent.core.capabilities import step_grammar_of
from mindagent.core.episode import Episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import DEFAULT_BUDGET_TOKENS
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.local_backend import DEFAULT_N_CTX, _load, resolve_model_path


def run(steps: int, threads: int, cache: bool, memory_budget: int) -> list[dict[str, float]]:
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    loaded = _load(resolve_model_path(), DEFAULT_N_CTX, None, threads)
    llm = loaded.llm
    llm.reset()
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    session = domains.make_session(spec)
    planner = domains.get("cuisineworld").make_policy("planner", 0)
    dispatcher = Dispatcher.for_session(session, None, PromptConfig(memory_budget=memory_budget))
    episode = Episode(session, dispatcher)
    rows = []

    async def play() -> None:
        await session.reset(seed=0)
        for _ in range(steps):
            messages, shown = dispatcher.messages(session, episode.memory, episode.feedback)
            if not cache:
                llm.reset()
            llama_cpp.llama_perf_context_reset(llm.ctx)
            payload = [{"role": m.role, "content": m.content} for m in messages]
            grammar = LlamaGrammar.from_string(step_grammar_of(session) or "", verbose=False)
            out = llm.create_chat_completion(messages=payload, temperature=0.0, max_tokens=100, grammar=grammar)
            perf = llama_cpp.llama_perf_context(llm.ctx)
            rows.append({"step": session.step_index, "prompt_tokens": out["usage"]["prompt_tokens"],
                         "evaluated": perf.n_p_eval, "prompt_s": perf.t_p_eval_ms / 1000,
                         "generated": perf.n_eval, "generate_s": perf.t_eval_ms / 1000})
            commands = planner.act(session)
            episode.memory.push(shown, "\n".join(commands))
            result = await session.step(commands)
            episode.feedback = list(result.notes)

    asyncio.run(play())
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--memory-budget", type=int, default=DEFAULT_BUDGET_TOKENS,
                        help="the growing memory window's token budget; 0: the paper's sliding window")
    parser.add_argument("--caches", default="cache,nocache", help="which runs: cache, nocache or both")
    args = parser.parse_args()
    runs = [c == "cache" for c in args.caches.split(",") if c in ("cache", "nocache")]
    for cache in runs:
        rows = run(args.steps, args.threads, cache, args.memory_budget)
        for r in rows:
            print(json.dumps({"threads": args.threads, "omp_wait": os.environ.get("OMP_WAIT_POLICY", "default"),
                              "cache": cache, "memory_budget": args.memory_budget,
                              **{k: round(v, 3) for k, v in r.items()}}), flush=True)
        later = rows[1:] or rows
        print(json.dumps({"summary": True, "threads": args.threads, "cache": cache,
                          "memory_budget": args.memory_budget, "load_average": [round(x, 2) for x in os.getloadavg()],
                          "max_evaluated_tokens_after_step0": max(r["evaluated"] for r in later),
                          "omp_wait": os.environ.get("OMP_WAIT_POLICY", "default"),
                          "mean_prompt_s_after_step0": round(statistics.mean(r["prompt_s"] for r in later), 3),
                          "mean_generate_s": round(statistics.mean(r["generate_s"] for r in rows), 3),
                          "mean_evaluated_tokens_after_step0": round(statistics.mean(r["evaluated"] for r in later), 1),
                          "prompt_tok_per_s": round(sum(r["evaluated"] for r in rows) / sum(r["prompt_s"] for r in rows), 1),
                          "gen_tok_per_s": round(sum(r["generated"] for r in rows) / sum(r["generate_s"] for r in rows), 1)}))


if __name__ == "__main__":
    main()
