"""Primitive timesteps per second of our Overcooked session beside the package's own
`OvercookedEnv.step`, measured in the same run, and the planner's decision time.

Both loops play one seeded stream of random primitive joint actions on each classic layout: the
raw env steps the package's action tuples; our session steps the same actions as command text
(``up(chef0)``...), so its figure includes parsing, the feasibility check, the verdicts and notes,
the dispatcher step's bookkeeping. Rounds alternate between the two and time is the process's CPU
time, so other work on a shared machine slows both alike. Goal (issue 25): the session costs at
most 2x the raw env. The planner figure is the CPU time of `act` per decision and per timestep
over whole 400-timestep planner episodes. The load average is printed beside every timing.

    python benchmarks/overcooked_speed.py [--timesteps 4000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from overcooked_game.engine import PRIMITIVE_ACTIONS
from overcooked_game.layouts import CLASSIC, motion_planner
from overcooked_game.planner import OvercookedPlanner
from overcooked_game.session import OvercookedSession

VERBS = tuple(PRIMITIVE_ACTIONS)


def stream(timesteps: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(VERBS), rng.choice(VERBS)) for _ in range(timesteps)]


def session_for(level: str) -> OvercookedSession:
    session = domains.make_session(GameSpec(domain="overcooked", level=level))
    assert isinstance(session, OvercookedSession)
    return session


def raw_env(level: str, actions: list[tuple[str, str]]) -> float:
    """Timesteps per CPU second of the package's `OvercookedEnv.step` (reset at the horizon)."""
    from overcooked.mdp.overcooked_env import OvercookedEnv

    layout = session_for(level).layout
    mdp = session_for(level).kitchen.mdp
    env = OvercookedEnv.from_mdp(mdp, horizon=400, info_level=0)
    env._mp = motion_planner(layout.rows)  # the env asks for a planner each step; ours, not one pickled to disk
    joint = [(PRIMITIVE_ACTIONS[a], PRIMITIVE_ACTIONS[b]) for a, b in actions]
    start = time.process_time()
    for pair in joint:
        if env.is_done():
            env.reset(regen_mdp=False)
        env.step(pair)
    return len(joint) / (time.process_time() - start)


def ours(level: str, actions: list[tuple[str, str]]) -> float:
    """Timesteps per CPU second of `OvercookedSession.step` with the same actions as commands."""
    session = session_for(level)
    asyncio.run(session.reset(seed=0))
    texts = [[f"{a}(chef0)", f"{b}(chef1)"] for a, b in actions]
    start = time.process_time()
    for joint in texts:
        if session.done:
            session.engine.reset()
        session.step_now(joint)
    return len(texts) / (time.process_time() - start)


def planner_time(level: str) -> tuple[float, float]:
    """CPU milliseconds of the planner's `act` per decision and per timestep, whole episode."""
    session = session_for(level)
    asyncio.run(session.reset(seed=0))
    planner = OvercookedPlanner(0)
    spent = 0.0
    decisions = 0
    while not session.done:
        start = time.process_time()
        commands = planner.act(session)
        spent += time.process_time() - start
        decisions += 1
        session.step_now(commands)
    return 1000 * spent / decisions, 1000 * spent / session.engine.timestep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'layout':<24}{'raw env ts/s':>14}{'ours ts/s':>12}{'cost ratio':>12}{'load':>7}"
          f"{'planner ms/decision':>21}{'ms/timestep':>13}{'load':>7}")
    for level in CLASSIC:
        actions = stream(args.timesteps, seed=0)
        raw_env(level, actions[:200])  # warm both paths (imports, caches) before timing
        ours(level, actions[:200])
        raw, mine = [], []
        for _ in range(args.rounds):
            raw.append(raw_env(level, actions))
            mine.append(ours(level, actions))
        raw_best, mine_best = max(raw), max(mine)
        load = os.getloadavg()[0]
        per_decision, per_timestep = planner_time(level)
        print(f"{level:<24}{raw_best:>14.0f}{mine_best:>12.0f}{raw_best / mine_best:>11.2f}x{load:>7.2f}"
              f"{per_decision:>21.3f}{per_timestep:>13.3f}{os.getloadavg()[0]:>7.2f}")
    print("cost ratio = our CPU time per timestep / the raw env's (goal: at most 2.00x); best of "
          f"{args.rounds} alternating rounds of {args.timesteps} timesteps each")


if __name__ == "__main__":
    main()
