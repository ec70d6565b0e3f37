"""`mindagent eval --dry-run`: calls, tokens and an estimated cost, printed before anything is paid.

Each cell's step-0 prompt is built as the dispatcher would build it (a session is reset, no model is
called), then `mindagent.evaluation.costs` multiplies out the protocol and prices it from the shipped
table or the user's `--prices` file. When `--out` names results that exist, the estimate is of what
the same command would still ask: finished units are left out and a unit that stopped mid-episode
counts only the steps after its checkpoint (the rest are replayed from the tape, free).
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mindagent.core import registry as domains
from mindagent.dispatch.brains import token_budget
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import Memory
from mindagent.evaluation.costs import CHARS_PER_TOKEN, CellPrompt, UnitLeft, estimate_units, load_prices
from mindagent.evaluation.seeds import seed_path
from mindagent.evaluation.sweep import EvalConfig, Results

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


async def _cell_prompt(config: EvalConfig, level: str, agents: int) -> CellPrompt:
    session = domains.make_session(domains.validate(config.spec(level, agents, config.taus[0])))
    try:
        await session.reset(seed=config.seed)
        dispatcher = Dispatcher.for_session(session, None, config.prompt, dispatch=config.dispatch)
        messages, _ = dispatcher.messages(session, Memory(config.prompt.memory), [])
    finally:
        await session.aclose()
    cut = next((i + 1 for i, m in enumerate(messages) if m.cache_prefix), 0)
    return CellPrompt(sum(len(m.content) for m in messages[:cut]), sum(len(m.content) for m in messages[cut:]))


def units_left(config: EvalConfig, seeds: list[int], out_file: Path | None, several: bool) -> list[tuple[str, int, int]]:
    """(level, agents, answered steps) of every unit the command would still play, seed by seed,
    from the results already at `out_file` (a file made with other settings is refused here, as the
    run would refuse it; the generation settings are checked when it runs)."""
    left = []
    for seed in seeds:
        run = dataclasses.replace(config, seed=seed)
        path = (seed_path(out_file, seed) if several else out_file) if out_file is not None else None
        done = Results(path, run, unchecked=("generation",)) if path is not None and path.exists() else None
        for level in config.levels:
            for agents in config.agents:
                for tau in config.taus:
                    if done is not None and done.has(level, agents, tau):
                        continue
                    mark = done.checkpoints.get((level, agents, tau)) if done is not None else None
                    answered = (mark.episode - 1) * config.steps + mark.step if mark is not None else 0
                    left.append((level, agents, answered))
    return left


def dry_run(config: EvalConfig, seeds: list[int], max_tokens: int | None, is_policy: bool, prices: Path | None,
            out_file: Path | None = None, several: bool = False) -> None:
    """Print what the sweep would ask of the model and what that would cost; run nothing.

    Without ``--max-tokens`` the output bound is the scaled limit of the largest team (`token_budget`)."""
    table_of_prices = None if is_policy else load_prices(prices)  # a bad table is refused before any output
    cells = len(config.levels) * len(config.agents)
    units = cells * len(config.taus) * len(seeds)
    out.print(f"dry run: {len(config.levels)} levels x {len(config.agents)} team sizes x {len(config.taus)} taus x "
              f"{len(seeds)} seed(s) = {units} units of {config.episodes} episodes x {config.steps} steps")
    if table_of_prices is None:
        out.print(f"{config.model} is a built-in policy or rule chooser: no model calls, no tokens, no cost")
        return
    left = units_left(config, seeds, out_file, several)
    if len(left) < units or any(answered for _, _, answered in left):
        continued = [answered for _, _, answered in left if answered]
        out.print(f"resuming {out_file}: {units - len(left)} of {units} units done, {len(left)} to play"
                  + (f" ({len(continued)} from a checkpoint: {sum(continued):,} steps answered, not asked again)"
                     if continued else ""))
    if not left:
        out.print(f"every unit in {out_file} is done: nothing left to ask")
        return
    prompts = dict(zip([(lv, a) for lv in config.levels for a in config.agents], asyncio.run(_all_prompts(config)),
                       strict=True))
    estimate = estimate_units([UnitLeft(prompts[(lv, a)], answered) for lv, a, answered in left], steps=config.steps,
                              episodes=config.episodes, memory=config.prompt.memory,
                              max_tokens=max_tokens or token_budget(max(config.agents)), repair=config.repair)
    table = Table(title=f"estimate for {config.model}",
                  caption=f"tokens ~ characters / {CHARS_PER_TOKEN:g}; output at --max-tokens per call (an upper "
                          "bound); one call per step (plan, goal and task-graph modes call less often)")
    for col in ("calls", "prompt tokens", "cacheable", "output tokens (max)", "cost (cache used)", "cost (no cache)"):
        table.add_column(col, no_wrap=True)
    price = table_of_prices.models.get(config.model)
    calls = f"{estimate.calls:,}" + (f" (up to {estimate.max_calls:,} with --repair)" if config.repair else "")
    cost = ["-", "-"] if price is None else [f"${estimate.dollars(price):,.2f}",
                                             f"${estimate.dollars(price, cached=False):,.2f}"]
    table.add_row(calls, f"{estimate.prompt_tokens:,}",
                  f"{estimate.cacheable_tokens:,} ({estimate.cacheable_share:.0%})", f"{estimate.output_tokens:,}",
                  *cost)
    out.print(table)
    source = str(prices) if prices is not None else "the shipped price table (edit a copy and pass --prices)"
    if price is None:
        out.print(f"no price for {config.model} in {source}; add it to a copy of the table and pass --prices")
    else:
        out.print(f"prices per million tokens from {source}: input ${price.input:g}, cached input "
                  f"${price.cached_input:g}, output ${price.output:g}")


async def _all_prompts(config: EvalConfig) -> list[CellPrompt]:
    return [await _cell_prompt(config, level, agents) for level in config.levels for agents in config.agents]
