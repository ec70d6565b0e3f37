"""Steps per second of the RL envs beside the engine they wrap (issue 18 target: the env at no
less than half the engine's speed, with 2, 4 and 8 agents).

All loops play random legal commands, seeded, on one level. The engine figures: `step` alone
(typed commands, replayed) and the loop an RL env must do at least (enumerate every agent's legal
commands, pick, step). The env figures include everything a trainer gets back each step: the
observation vector, the legal-action masks of every agent and the reward (sparse; dense too for
the Gymnasium view). Figures are measured interleaved in one process, so a busy machine slows
every column alike and the ratios stay meaningful. The env columns replay a recorded stream of legal
actions (as the engine's first column does), so they time the env's calls only (step, reset,
`action_masks()`), not the choice of an action from the mask; time is the process's CPU time, so waiting
for a core shared with other work does not count.

    python benchmarks/rl_env_speed.py [--steps 30000] [--level level_3]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from engine_steps import time_with_legal  # this folder: the one engine yardstick

from cuisineworld import Command, World, load_level
from cuisineworld.adapter.rl import CuisineJointEnv, CuisineParallelEnv


def engine_typed(level: str, n: int, steps: int, seed: int) -> float:
    world = World(load_level(level), n_agents=n, tau=1.0, seed=seed)
    world.reset()
    rng = random.Random(seed)
    stream: list[list[Command]] = []
    for _ in range(steps):
        if world.done:
            world.reset()
        joint = [world.parse(rng.choice(world.legal_commands(a))) for a in range(n)]
        stream.append([c for c in joint if isinstance(c, Command)])
        world.step(stream[-1])
    world = World(load_level(level), n_agents=n, tau=1.0, seed=seed)
    world.reset()
    start = time.process_time()
    for joint in stream:
        if world.time >= world.max_steps:
            world.reset()
        world.step(joint)
    return steps / (time.process_time() - start)


def engine_legal(level: str, n: int, steps: int, seed: int, rules: str = "reference") -> float:
    """Engine steps per CPU second with a random legal command per agent: `engine_steps.py`'s
    yardstick (the same function), timed in CPU seconds like the env figures beside it."""
    return time_with_legal(level, n, steps, seed, rules, clock=time.process_time)


def _pick(mask: np.ndarray, u: float) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(u * len(legal))])


def gym_env(level: str, n: int, steps: int, seed: int, reward: str = "sparse") -> float:
    """Record a stream of legal joint actions, then replay it timing only the env's own calls."""
    u = np.random.default_rng(seed).random((steps, n))
    env = CuisineJointEnv(level, n_agents=n, reward=reward)
    env.reset(seed=seed)
    stream = []
    for t in range(steps):
        masks = env.action_masks().reshape(n, -1)
        stream.append([_pick(masks[a], u[t, a]) for a in range(n)])
        if env.step(stream[-1])[3]:
            env.reset()
    env = CuisineJointEnv(level, n_agents=n, reward=reward)
    env.reset(seed=seed)
    step, action_masks, reset = env.step, env.action_masks, env.reset
    start = time.process_time()
    for action in stream:
        action_masks()
        if step(action)[3]:
            reset()
    return steps / (time.process_time() - start)


def pz_env(level: str, n: int, steps: int, seed: int) -> float:
    u = np.random.default_rng(seed).random((steps, n))
    env = CuisineParallelEnv(level, n_agents=n)
    _, infos = env.reset(seed=seed)
    stream = []
    for t in range(steps):
        stream.append({name: _pick(infos[name]["action_mask"], u[t, a]) for a, name in enumerate(env.possible_agents)})
        _, _, _, _, infos = env.step(stream[-1])
        if not env.agents:
            _, infos = env.reset()
    env = CuisineParallelEnv(level, n_agents=n)
    env.reset(seed=seed)
    start = time.process_time()
    for actions in stream:
        env.step(actions)
        if not env.agents:
            env.reset()
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.level}, {args.steps} joint steps per figure, random legal commands, seed {args.seed}")
    print("| agents | engine step | engine legal+step | Gymnasium env | Gymnasium env, dense | PettingZoo env "
          "| Gymnasium / engine legal+step |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (2, 4, 8):
        typed = engine_typed(args.level, n, args.steps, args.seed)
        legal = engine_legal(args.level, n, args.steps, args.seed)
        gym = gym_env(args.level, n, args.steps, args.seed)
        dense = gym_env(args.level, n, args.steps, args.seed, "dense")
        pz = pz_env(args.level, n, args.steps, args.seed)
        print(f"| {n} | {typed:,.0f}/s | {legal:,.0f}/s | {gym:,.0f}/s | {dense:,.0f}/s | {pz:,.0f}/s "
              f"| {gym / legal:.0%} |", flush=True)


if __name__ == "__main__":
    main()
