"""Training steps per second of `mindagent train` with and without ``--vec batched`` (issue 29).

Each row trains the same masked PPO (same level, reward, seed, envs, rollout; `TrainConfig`'s
defaults otherwise) twice, once with SB3's vector env of `CuisineJointEnv`s (``--vec single``) and
once with the batched kitchens (``--vec batched``), and divides the environment steps by the
process's CPU seconds (torch runs on one thread, so CPU time is the run's cost whatever else the
machine does) and by wall seconds. The PPO update costs the same on both paths, so the ratio says
how much of a run the env was. The load average is printed beside each row.

    python benchmarks/rl_train_speed.py [--level level_1] [--envs 16 256] [--steps 32768]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from machine_load import MachineLoad

from cuisineworld.adapter.rl.train import TrainConfig, train


def timed(config: TrainConfig) -> tuple[float, float]:
    """(steps per CPU second, steps per wall second) of one training run."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = train(config)
    return result.steps / (time.process_time() - cpu), result.steps / (time.perf_counter() - wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_1")
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--reward", default="dense")
    parser.add_argument("--envs", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--steps", type=int, default=32_768)
    parser.add_argument("--rollout", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.level}, {args.agents} agents, {args.reward} reward, masked PPO (TrainConfig defaults), "
          f"{args.steps} steps per run, rollout {args.rollout}, seed {args.seed}")
    print("| envs | --vec single: steps/CPU s (wall) | --vec batched: steps/CPU s (wall) | batched / single (CPU) "
          "| load average (1 min) |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for envs in args.envs:
            probe = MachineLoad.start()
            rates = {}
            for vec in ("single", "batched"):
                config = TrainConfig(level=args.level, agents=args.agents, steps=args.steps, reward=args.reward,
                                     seed=args.seed, n_envs=envs, n_steps=args.rollout,
                                     batch_size=max(8, min(256, args.rollout * envs // 2)),
                                     checkpoint_every=10 * args.steps, out=Path(scratch) / f"{vec}-{envs}", vec=vec)
                rates[vec] = timed(config)
            seen = probe.stop(server_cpu_s=0.0)
            (s_cpu, s_wall), (b_cpu, b_wall) = rates["single"], rates["batched"]
            print(f"| {envs} | {s_cpu:,.0f} ({s_wall:,.0f}) | {b_cpu:,.0f} ({b_wall:,.0f}) | {b_cpu / s_cpu:.2f}x "
                  f"| {seen.load_start:.1f}-{seen.load_end:.1f} |", flush=True)


if __name__ == "__main__":
    main()
