"""World-steps per second of the batched NumPy kitchens beside the engine (issue 29 target: at
least 10x the engine at 1,000 worlds and 20x at 10,000).

The yardstick is `engine_steps.py`'s own "enumerate legal + step" loop (`time_with_legal`, the same
function, the one engine yardstick of every benchmark): list every agent's legal commands, pick
one each, step one `World`. The batched figures time `BatchedKitchens.step` for W kitchens at
once, which returns everything a trainer gets back (observations, every agent's masks, rewards,
accepted flags, restarting ended episodes); the random legal actions are picked from the masks
outside the timed call. Both are timed in the process's CPU seconds and measured interleaved in one
process (the engine before and after each batched figure, averaged), so other work on a shared
machine slows every column alike rather than adding its own time; the load average and how busy
the cores were are printed beside each row, since a loaded machine still moves the ratios.

    python benchmarks/rl_batched_speed.py [--level level_3] [--agents 2] [--worlds 1000 10000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from engine_steps import time_with_legal  # this folder: the one engine yardstick
from machine_load import MachineLoad

from cuisineworld.adapter.rl.batched import BatchedKitchens


def batched(level: str, n: int, worlds: int, world_steps: int, seed: int, rules: str, reward: str) -> float:
    """World-steps per CPU second of `BatchedKitchens.step` over random legal joint actions."""
    kitchens = BatchedKitchens(level, n, worlds, rules=rules, reward=reward)
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


def engine(args: argparse.Namespace) -> float:
    return time_with_legal(args.level, args.agents, args.engine_steps, args.seed, args.rules, clock=time.process_time)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--rules", default="reference")
    parser.add_argument("--reward", default="sparse", help="the batched kitchens' reward (sparse, potential, dense)")
    parser.add_argument("--worlds", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--world-steps", type=int, default=600_000, help="world-steps per batched figure")
    parser.add_argument("--engine-steps", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="rows per world count")
    args = parser.parse_args()
    print(f"{args.level}, {args.agents} agents, {args.rules} rules, {args.reward} reward, random legal actions, "
          f"seed {args.seed}, CPU time; yardstick: engine_steps.time_with_legal")
    print("| worlds | batched world-steps/s | engine legal + step (beside it) | batched / engine "
          "| load average (1 min) | cores busy |")
    print("|---:|---:|---:|---:|---:|---:|")
    for worlds in args.worlds:
        for _ in range(args.repeat):
            probe = MachineLoad.start()
            before = engine(args)
            fast = batched(args.level, args.agents, worlds, args.world_steps, args.seed, args.rules, args.reward)
            yardstick = (before + engine(args)) / 2
            seen = probe.stop(server_cpu_s=0.0)  # only the load and the busy cores are printed
            busy = f"{seen.busy_pct:.0f} %" if seen.busy_pct is not None else "?"
            print(f"| {worlds:,} | {fast:,.0f}/s | {yardstick:,.0f}/s | {fast / yardstick:.1f}x "
                  f"| {seen.load_start:.1f}-{seen.load_end:.1f} | {busy} |", flush=True)


if __name__ == "__main__":
    main()
