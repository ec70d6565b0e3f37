"""World-steps per second of the batched NumPy kitchens beside the engine (issue 18 target: at
least 10x the engine at 1,000 worlds).

The engine figure is the loop one `World` needs per step at least: list every agent's legal
commands, pick one each, step (as `rl_env_speed.py`'s "engine legal+step"). The batched figures
time `BatchedKitchens.step` for W kitchens at once, which returns everything a trainer gets back
(observations, every agent's masks, rewards, accepted flags, restarting ended episodes); the
random legal actions are picked from the masks outside the timed call. Figures are measured
interleaved in one process and as the process's CPU time, so other work on a shared machine
slows every column alike rather than adding its own time.

    python benchmarks/rl_batched_speed.py [--level level_3] [--agents 2] [--worlds 1 100 1000 10000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from rl_env_speed import engine_legal  # this folder: the one engine yardstick

from cuisineworld.adapter.rl.batched import BatchedKitchens


def batched(level: str, n: int, worlds: int, world_steps: int, seed: int, rules: str) -> float:
    kitchens = BatchedKitchens(level, n, worlds, rules=rules)
    _, masks = kitchens.reset(seed=seed)
    rng = np.random.default_rng(seed)
    noise = [rng.random(masks.shape) for _ in range(16)]
    steps = min(20_000, max(60, world_steps // worlds))  # at least one episode, at most 20,000 steps
    timed = 0.0
    for t in range(steps):
        actions = np.argmax(masks * (1.0 + noise[t % 16]), axis=2)  # a random legal action per agent
        start = time.process_time()
        masks = kitchens.step(actions).masks
        timed += time.process_time() - start
    return steps * worlds / timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--rules", default="reference")
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 100, 1000, 10000])
    parser.add_argument("--world-steps", type=int, default=300_000, help="world-steps per batched figure")
    parser.add_argument("--engine-steps", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.level}, {args.agents} agents, {args.rules} rules, random legal actions, seed {args.seed}, CPU time")
    print("| worlds | batched world-steps/s | engine legal+step (measured beside it) | batched / engine |")
    print("|---:|---:|---:|---:|")
    for worlds in args.worlds:
        engine = engine_legal(args.level, args.agents, args.engine_steps, args.seed, args.rules)
        fast = batched(args.level, args.agents, worlds, args.world_steps, args.seed, args.rules)
        engine = (engine + engine_legal(args.level, args.agents, args.engine_steps, args.seed, args.rules)) / 2
        print(f"| {worlds:,} | {fast:,.0f}/s | {engine:,.0f}/s | {fast / engine:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
