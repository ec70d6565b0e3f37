"""No dead ends beside a person: the planner never locks the kitchen when a free action would not.

The oracle: a kitchen is *alive* when the whole team, every agent played by the scheduler (the
person too, as if they cooperated), completes an order within `HORIZON` steps from it in one of
`FUTURES` sampled order streams (on a copy with its own episode length, so the end of the episode
does not count as a lock). A step is the
planner's fault when the kitchen was alive before it, dead after it, and alive had the planner's
agents idled instead (the person's command kept): a free action would have avoided the lock.

The sweep: every shipped level, both rule sets, 2-4 agents, a seeded random-legal person on each
seat in turn, the planner on the others; the kitchen is checked after every step where a planner
agent put something somewhere (the only way it can fill a place up).
"""

from __future__ import annotations

import random

import pytest

from cuisineworld import World, load_level
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.adapter.session import CuisineSession
from cuisineworld.levels import level_names

HORIZON = 40  # steps the cooperating team gets to complete an order from a checked kitchen
FUTURES = 3  # order streams tried before a kitchen counts as dead
STEPS = 40  # steps played per episode of the sweep


def alive(world: World, after: list[str] | None = None) -> bool:
    """The whole team, scheduled, completes an order within `HORIZON` steps (after `after`) in one
    of `FUTURES` sampled order streams (one stream's unlucky orders do not make a kitchen dead)."""
    for future in range(FUTURES):
        twin = world.clone(order_seed=world.seed + 7 + future)
        twin.max_steps = twin.time + HORIZON + 1
        if after is not None:
            twin.step(after)
        team = CuisinePlanner(lookahead_team=0)
        start = twin.counts.completed
        for _ in range(HORIZON):
            if twin.done:
                break
            twin.step(team.act_world(twin))
            if twin.counts.completed > start:
                return True
    return False


def faults(level: str, rules: str, agents: int, seat: int, seed: int) -> list[str]:
    """The steps at which the planner locked the kitchen beside a random-legal person on `seat`."""
    session = CuisineSession(load_level(level, rules), n_agents=agents, tau=1.0, seed=seed)
    session.world.reset()
    session.ledger.reset(session.world)
    planner = CuisinePlanner()
    rng = random.Random(seed * 31 + seat)
    controlled = [a for a in range(agents) if a != seat]
    found: list[str] = []
    was_alive = True
    for _ in range(STEPS):
        world = session.world
        person = rng.choice(session.legal_commands(seat))
        session.set_people_commands([person])
        team = planner.act_for(session, controlled)
        session.set_people_commands(())
        put = any(c.startswith("put_") for c in team)
        before = world.clone() if put and was_alive else None
        step = session.step_now([person, *team])
        if before is None or step.completed:  # an order completed is progress, not a lock
            continue
        now_alive = alive(world)
        idle = [person, *(f"noop_agent{a}" for a in controlled)]
        if not now_alive and alive(before, idle):
            found.append(f"{level}/{rules}/{agents} agents/person on agent{seat}, step {before.time}: {team}")
        was_alive = now_alive
    return found


CASES = [(level, rules, agents) for level in level_names() for rules in ("reference", "fixed") for agents in (2, 3, 4)]


@pytest.mark.slow
@pytest.mark.parametrize(("level", "rules", "agents"), CASES)
def test_the_planner_never_locks_the_kitchen_beside_a_random_person(level: str, rules: str, agents: int) -> None:
    found = [f for seat in range(agents) for f in faults(level, rules, agents, seat, seed=agents * 100 + seat)]
    assert not found, "\n".join(found)


def play_relay(kind: str, seed: int) -> int:
    """Orders completed on relay_sashimi, 2 agents, a person on agent1 (the middle of the relay)."""
    session = CuisineSession(load_level("relay_sashimi"), n_agents=2, tau=1.0, seed=seed)
    session.world.reset()
    planner, person = CuisinePlanner(), CuisinePlanner(lookahead_team=0)
    rng = random.Random(seed)
    while not session.done:
        if kind == "random":
            mine = rng.choice(session.legal_commands(1))
        else:
            mine = person.act_for(session, [1])[0]
        session.set_people_commands([mine])
        team = planner.act_for(session, [0])
        session.set_people_commands(())
        session.step_now([mine, *team])
    return session.counts.completed


def test_relay_sashimi_beside_a_keen_person_serves_every_episode() -> None:
    assert all(play_relay("keen", seed) >= 2 for seed in range(3))


def test_relay_sashimi_beside_a_random_person_serves_dishes() -> None:
    assert sum(play_relay("random", seed) for seed in range(6)) >= 1
