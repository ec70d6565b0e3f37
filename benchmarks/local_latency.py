"""Local model latency per dispatcher step: prompt evaluation vs generation, with and without the
prefix KV cache, for a thread setting.

It plays the first `--steps` steps of level_3 (2 agents) with the planner choosing the moves, and
at each step sends the real full dispatcher prompt (system text, demo, memory window, feedback,
state) to the embedded model under the kitchen grammar, reading llama.cpp's own timers. "cache"
keeps llama-cpp-python's prefix reuse; "no cache" resets the context before every call. Run it
once per thread setting; OpenMP's busy-waiting is what `OMP_WAIT_POLICY=passive` turns off:

    PYTHONPATH=. python3 benchmarks/local_latency.py --threads 1
    PYTHONPATH=. python3 benchmarks/local_latency.py --threads 2
    OMP_WAIT_POLICY=passive PYTHONPATH=. python3 benchmarks/local_latency.py --threads 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics

from mindagent.core import registry as domains
from mindagent.core.episode import Episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.local_backend import DEFAULT_N_CTX, _load, resolve_model_path


def run(steps: int, threads: int, cache: bool) -> list[dict[str, float]]:
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    loaded = _load(resolve_model_path(), DEFAULT_N_CTX, None, threads)
    llm = loaded.llm
    llm.reset()
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    session = domains.make_session(spec)
    planner = domains.get("cuisineworld").make_policy("planner", 0)
    dispatcher = Dispatcher.for_session(session, None, PromptConfig())
    episode = Episode(session, dispatcher)
    grammar = LlamaGrammar.from_string(session.grammar() or "", verbose=False)
    rows = []

    async def play() -> None:
        await session.reset(seed=0)
        for _ in range(steps):
            messages, shown = dispatcher.messages(session, episode.memory, episode.feedback)
            if not cache:
                llm.reset()
            llama_cpp.llama_perf_context_reset(llm.ctx)
            payload = [{"role": m.role, "content": m.content} for m in messages]
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
    args = parser.parse_args()
    for cache in (True, False):
        rows = run(args.steps, args.threads, cache)
        for r in rows:
            print(json.dumps({"threads": args.threads, "omp_wait": os.environ.get("OMP_WAIT_POLICY", "default"),
                              "cache": cache, **{k: round(v, 3) for k, v in r.items()}}))
        later = rows[1:] or rows
        print(json.dumps({"summary": True, "threads": args.threads, "cache": cache,
                          "omp_wait": os.environ.get("OMP_WAIT_POLICY", "default"),
                          "mean_prompt_s_after_step0": round(statistics.mean(r["prompt_s"] for r in later), 3),
                          "mean_generate_s": round(statistics.mean(r["generate_s"] for r in rows), 3),
                          "mean_evaluated_tokens_after_step0": round(statistics.mean(r["evaluated"] for r in later), 1),
                          "prompt_tok_per_s": round(sum(r["evaluated"] for r in rows) / sum(r["prompt_s"] for r in rows), 1),
                          "gen_tok_per_s": round(sum(r["generated"] for r in rows) / sum(r["generate_s"] for r in rows), 1)}))


if __name__ == "__main__":
    main()
