"""`mindagent eval --dry-run`: calls, tokens and an estimated cost, printed before anything is paid.

Each cell's step-0 prompt is built as the dispatcher would build it (a session is reset, no model is
called), then `mindagent.evaluation.costs` multiplies out the protocol and prices it from the shipped
table or the user's `--prices` file.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mindagent.core import registry as domains
from mindagent.dispatch.brains import token_budget
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.memory import Memory
from mindagent.evaluation.costs import CHARS_PER_TOKEN, CellPrompt, estimate_sweep, load_prices
from mindagent.evaluation.sweep import EvalConfig

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


def dry_run(config: EvalConfig, seeds: int, max_tokens: int | None, is_policy: bool, prices: Path | None) -> None:
    """Print what the sweep would ask of the model and what that would cost; run nothing.

    Without ``--max-tokens`` the output bound is the scaled limit of the largest team (`token_budget`)."""
    table_of_prices = None if is_policy else load_prices(prices)  # a bad table is refused before any output
    cells = len(config.levels) * len(config.agents)
    units = cells * len(config.taus) * seeds
    out.print(f"dry run: {len(config.levels)} levels x {len(config.agents)} team sizes x {len(config.taus)} taus x "
              f"{seeds} seed(s) = {units} units of {config.episodes} episodes x {config.steps} steps")
    if table_of_prices is None:
        out.print(f"{config.model} is a built-in policy or rule chooser: no model calls, no tokens, no cost")
        return
    prompts = asyncio.run(_all_prompts(config))
    estimate = estimate_sweep(prompts, steps=config.steps, episodes=config.episodes, taus=len(config.taus),
                              seeds=seeds, memory=config.prompt.memory,
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
