"""LLM-Coordination's Overcooked table (Agashe et al., Tables 1 and 2) beside our dispatchers.

Plays 400-timestep episodes on the five classic layouts with our built-in dispatchers (the
planner pair, the random pair), several seeds each, through the same session `mindagent run`
uses, and prints the mean sparse reward (20 per soup) with a 95 % percentile-bootstrap interval
over seeds, the soups delivered (completion), and the paper's rows beside them. Rows marked
"ours" are measured here; the others are the paper's printed means. `mindagent eval` prints
completed/total and CoS, which do not fit a reward-scored game (there are no failed orders), so
this is where the reward comparison lives.

The planner is deterministic apart from a seeded choice of which free chef picks first, so its
interval is narrow or a point; the paper's LLM-Co rows are single deterministic runs too (±0).

    python benchmarks/overcooked_table.py [--seeds 10] [--layouts cramped_room,...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

from mindagent.core import registry as domains
from mindagent.core.capabilities import policy_commands
from mindagent.core.spec import GameSpec
from mindagent.evaluation.stats import bootstrap_interval, mean
from overcooked_game.layouts import CLASSIC
from overcooked_game.paper import TABLE1, TABLE2, published
from overcooked_game.session import OvercookedSession

OURS = ("planner", "random")


async def episode(level: str, model: str, seed: int, partner: str | None = None, seat: int = 1) -> tuple[int, int]:
    """(reward, soups) of one 400-timestep episode with `model` commanding both chefs, or only chef
    `1 - seat` beside `partner` playing chef `seat` (as `--control` with `--partners` does)."""
    session = domains.make_session(GameSpec(domain="overcooked", level=level, seed=seed))
    assert isinstance(session, OvercookedSession)
    domain = domains.get("overcooked")
    policy = domain.make_policy(model, seed)
    other = domain.make_policy(partner, seed) if partner is not None else None
    await session.reset(seed=seed)
    policy.reset(session)
    if other is not None:
        other.reset(session)
    while not session.done:
        if other is None:
            commands = policy.act(session)
        else:
            mine = [c for c in policy_commands(policy, session, [1 - seat]) if session.agent_of(c) == 1 - seat]
            theirs = [c for c in policy_commands(other, session, [seat]) if session.agent_of(c) == seat]
            commands = theirs + mine  # partners go first, as in an episode with --partners
        await session.step(commands)
    return session.engine.reward, session.counts.completed


def cell(values: list[float]) -> str:
    lo, hi = bootstrap_interval(values)
    return f"{mean(values):6.1f} [{lo:.0f}, {hi:.0f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-start", type=int, default=0,
                        help="first seed (seeds START to START+SEEDS-1; 20 with --seeds 40 is the development set)")
    parser.add_argument("--layouts", default=",".join(CLASSIC))
    parser.add_argument("--bc-root", type=Path, default=None,
                        help="folder with one trained proxy per layout (ROOT/LAYOUT, from `mindagent train --domain "
                             "overcooked --algo bc --layout LAYOUT --out ROOT/LAYOUT`): adds our Table 2 rows")
    args = parser.parse_args()
    layouts = [name.strip() for name in args.layouts.split(",") if name.strip()]
    seeds = range(args.seed_start, args.seed_start + args.seeds)
    started = time.perf_counter()
    results = {(m, lv): [asyncio.run(episode(lv, m, s)) for s in seeds] for m in OURS for lv in layouts}
    took = time.perf_counter() - started
    width = max(len(lv) for lv in layouts)
    print(f"Overcooked, 400 timesteps, mean sparse reward [95 % bootstrap interval over {args.seeds} seeds, "
          f"{seeds.start}-{seeds.stop - 1}]; "
          f"measured in {took:.1f}s, load average {os.getloadavg()[0]:.2f}")
    header = f"{'row':<34}" + "".join(f"{lv:>{max(width, 18) + 2}}" for lv in layouts)
    print("\nTable 1 (self-play: two copies of one agent)")
    print(header)
    for model in OURS:
        row = [cell([float(r) for r, _ in results[(model, lv)]]) for lv in layouts]
        print(f"{f'ours: {model} pair':<34}" + "".join(f"{c:>{max(width, 18) + 2}}" for c in row))
        soups = [f"{mean([float(s) for _, s in results[(model, lv)]]):.1f} soups" for lv in layouts]
        print(f"{'  (completion: soups delivered)':<34}" + "".join(f"{c:>{max(width, 18) + 2}}" for c in soups))
    for name in TABLE1:
        row = [published(TABLE1, name, lv) for lv in layouts]
        print(f"{f'paper: {name}':<34}" + "".join(f"{'-' if v is None else f'{v:.1f}':>{max(width, 18) + 2}}" for v in row))
    print("\nTable 2 (with a behaviour-cloning human proxy in each starting position)")
    print(header)
    if args.bc_root is not None:
        for seat, where in ((1, "planner chef0, BC chef1"), (0, "BC chef0, planner chef1")):
            pairs = {lv: [asyncio.run(episode(lv, "planner", s, f"bc:{args.bc_root / lv}", seat))
                          for s in seeds] for lv in layouts}
            row = [cell([float(r) for r, _ in pairs[lv]]) for lv in layouts]
            print(f"{f'ours: {where}':<34}" + "".join(f"{c:>{max(width, 18) + 2}}" for c in row))
            bc_pairs = {lv: [asyncio.run(episode(lv, f"bc:{args.bc_root / lv}", s)) for s in seeds]
                        for lv in layouts} if seat == 1 else None
            if bc_pairs is not None:
                row = [cell([float(r) for r, _ in bc_pairs[lv]]) for lv in layouts]
                print(f"{'ours: BC pair (the proxy alone)':<34}" + "".join(f"{c:>{max(width, 18) + 2}}" for c in row))
    for name in TABLE2:
        row = [published(TABLE2, name, lv) for lv in layouts]
        print(f"{f'paper: {name}':<34}" + "".join(f"{'-' if v is None else f'{v:.1f}':>{max(width, 18) + 2}}" for v in row))
    gpt4 = [published(TABLE1, "LLM-Co GPT-4", lv) for lv in layouts]
    planner = [mean([float(r) for r, _ in results[("planner", lv)]]) for lv in layouts]
    at_or_above = sum(1 for ours, paper in zip(planner, gpt4, strict=True) if paper is not None and ours >= paper)
    print(f"\nplanner pair at or above LLM-Co GPT-4 (Table 1) on {at_or_above} of {len(layouts)} layouts")


if __name__ == "__main__":
    main()
