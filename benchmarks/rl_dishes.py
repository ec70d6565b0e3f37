"""Which dishes a trained policy serves and which orders it lets expire, per dish.

The CoS says how many orders a policy serves, not which: on level_4 the fast recipes of
docs/figures/rl.md level off near 0.55 because nine of their ten five-seed runs learned three of
the four salads and never a tomatoCucumberSalad (no cucumber is ever fetched), while the slow
3M-step default run serves all four. This prints the count per dish so such a gap shows at a glance.

Each tau plays `--episodes` greedy episodes of `CuisineJointEnv` (one tau, ``reset(seed=e)`` for
episode e: the env's own seeded order streams, not `mindagent eval`'s), and a dish's row counts
the orders of it served, expired, and still open when the episode ended, summed over the taus.

    python benchmarks/rl_dishes.py --model level_4
    python benchmarks/rl_dishes.py --model runs/l4/seed_0/checkpoints/model_999680_steps.zip
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from cuisineworld import PAPER_TAUS
from cuisineworld.adapter.rl.gym_env import CuisineJointEnv
from cuisineworld.adapter.rl.trained import load_policy


def dish_counts(model: object, level: str, agents: int, tau: float, episodes: int) -> dict[str, Counter[str]]:
    """{"served"|"expired"|"open": Counter(dish)} over `episodes` greedy episodes at one tau."""
    env = CuisineJointEnv(level, n_agents=agents, tau=(tau,), reward="sparse")
    out: dict[str, Counter[str]] = {"served": Counter(), "expired": Counter(), "open": Counter()}
    for episode in range(episodes):
        obs, _ = env.reset(seed=episode)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)  # type: ignore[attr-defined]
            obs, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        world = env.core.world
        out["served"].update(world.completed_dishes)
        out["expired"].update(world.failed_dishes)
        out["open"].update(order.dish for order in world.orders)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a released name (level_4) or a model file / run folder")
    parser.add_argument("--level", default=None, help="default: the level the policy was trained on")
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    policy = load_policy(f"policy:{args.model}")
    if policy.backend != "sb3":
        parser.error("an SB3 policy (model.zip or a checkpoint) is needed")
    level = args.level or str(policy.meta["level"])
    agents = int(policy.meta["agents"])
    started = time.perf_counter()
    print(f"{args.model}: {level}, {agents} agents, {args.episodes} greedy episodes at each of the paper's taus")
    total: dict[str, Counter[str]] = {"served": Counter(), "expired": Counter(), "open": Counter()}
    for tau in PAPER_TAUS:
        for kind, counts in dish_counts(policy.model, level, agents, tau, args.episodes).items():
            total[kind].update(counts)
    print("| dish | served | expired | open at the end | served / ordered |")
    print("|---|---:|---:|---:|---:|")
    for dish in sorted(set().union(*total.values())):
        served, expired, still = total["served"][dish], total["expired"][dish], total["open"][dish]
        print(f"| {dish} | {served} | {expired} | {still} | {served / (served + expired + still):.2f} |")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
