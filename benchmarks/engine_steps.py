"""Joint steps per second of the CuisineWorld engine (issue target: >= 60,000/s for `step` with
typed commands, >= 20,000/s including legal-command enumeration, on level_3).

Random legal play, seeded. The first figure replays a recorded stream of typed commands (so
only `step` is timed); the second times the whole loop: enumerate each agent's legal commands,
pick one, step.

    python benchmarks/engine_steps.py [--steps 200000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from cuisineworld import Command, World, load_level


def record_stream(level_name: str, n_agents: int, steps: int, seed: int) -> list[list[Command]]:
    world = World(load_level(level_name), n_agents=n_agents, tau=1.0, seed=seed)
    world.reset()
    rng = random.Random(seed)
    stream = []
    for _ in range(steps):
        if world.done:
            world.reset()
        joint = []
        for a in range(n_agents):
            parsed = world.parse(rng.choice(world.legal_commands(a)))
            assert isinstance(parsed, Command)
            joint.append(parsed)
        world.step(joint)
        stream.append(joint)
    return stream


def time_typed(level_name: str, n_agents: int, stream: list[list[Command]], seed: int) -> float:
    world = World(load_level(level_name), n_agents=n_agents, tau=1.0, seed=seed)
    world.reset()
    step, reset = world.step, world.reset
    start = time.perf_counter()
    for joint in stream:
        if world.time >= world.max_steps:
            reset()
        step(joint)
    return len(stream) / (time.perf_counter() - start)


def time_with_legal(level_name: str, n_agents: int, steps: int, seed: int, rules: str = "reference",
                    clock: Callable[[], float] = time.perf_counter) -> float:
    """Engine joint steps per second of `clock` (wall by default) with a random legal command per
    agent: the one engine yardstick, which the RL benchmarks (`rl_env_speed.py`,
    `rl_batched_speed.py`) divide by too, with the process's CPU time as the clock."""
    world = World(load_level(level_name, rules), n_agents=n_agents, tau=1.0, seed=seed)
    world.reset()
    rng = random.Random(seed)
    choice, legal = rng.choice, world.legal_commands
    agents = range(n_agents)
    start = clock()
    for _ in range(steps):
        if world.time >= world.max_steps:
            world.reset()
        world.step([choice(legal(a)) for a in agents])
    return steps / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"level {args.level}, {args.steps} joint steps per figure, random legal commands, seed {args.seed}")
    print("| agents | step (typed commands) | enumerate legal + step (strings) |")
    print("|---|---|---|")
    for n in (2, 4):
        stream = record_stream(args.level, n, args.steps, args.seed)
        typed = time_typed(args.level, n, stream, args.seed)
        full = time_with_legal(args.level, n, args.steps, args.seed)
        print(f"| {n} | {typed:,.0f} steps/s | {full:,.0f} steps/s |")


if __name__ == "__main__":
    main()
