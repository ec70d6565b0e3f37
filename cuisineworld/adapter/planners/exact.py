"""An exact search over the engine's own actions: the best any dispatcher can do in a short episode.

This is the certificate for the upper bound (`upper_bound.py`): the bound is a paper-and-pencil
relaxation, and a relaxation can forget a move the engine allows (issue 15: building on a product
still inside its tool). The search does not reason about moves at all; it steps copies of the
`World` (`World.clone`, `World.step`) through every joint action that could change the state and
keeps every distinct state reached, so whatever the engine permits, it finds. It is exponential,
so it is for small levels, one or two agents and horizons of a dozen or two steps.

What is left out, and why that loses nothing:

- storage gets of base ingredients no active recipe uses: such an item can go nowhere but back
  into storage (destroyed) or stay in the hand, so a noop does at least as well;
- gotos to where the agent already is (a noop), and the four-part spelling of a get from a tool
  (the same command);
- with two agents, the two orders of a joint action are both tried only when both commands act at
  a place (a goto or a noop does not depend on, or change, anything another command reads).

Example::

    result = exact_best(load_level("level_0"), agents=1, tau=3.0, steps=14)
    result.completed          # most orders any dispatcher completes in those 14 steps
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cuisineworld import Level, World

#: Refuse searches whose frontier grows past this many states (a bigger level or horizon).
MAX_FRONTIER = 200_000


class SearchTooLarge(RuntimeError):
    """The state space outgrew `MAX_FRONTIER`: use a smaller level, team or horizon."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    completed: int  # most orders completed by the end of the horizon
    rate: float  # best completed / (completed + failed + active) at the end
    states: int  # distinct states visited (what the search cost)


def _key(world: World) -> tuple[object, ...]:
    """The state, with the agents sorted: the engine treats agents alike (only the order commands
    are written in matters, and every order is tried), so two states that differ by a renaming of
    the agents have the same futures. Not on a level with per-agent reach: there agents differ."""
    names = world.level.location_names
    counts = world.counts
    agents = [(world.agent_location(a), world.agent_holding(a) or "", world.agent_busy(a))
              for a in range(world.n_agents)]
    return (
        tuple(agents if world.level.heterogeneous else sorted(agents)),  # unlike agents keep their names
        tuple(tuple(world.location_content(n)) for n in names),
        tuple(world.location_busy(n) for n in names),
        tuple(world.location_gettable(n) for n in names),
        tuple((o.id, o.lifetime) for o in world.orders),
        counts.completed,
        counts.failed,
    )


def _relevant_base(level: Level) -> tuple[str, ...]:
    base = set(level.base_ingredients)
    used = {i for r in level.recipes for i in r.ingredients if i in base}
    return tuple(b for b in level.base_ingredients if b in used)


def _candidates(world: World, agent: int, relevant: tuple[str, ...]) -> list[tuple[str, bool]]:
    """(command, acts at a place) for one agent: every command that could succeed in some position
    of the joint action (a put may only become possible after another agent's get, say)."""
    tag = f"agent{agent}"
    out: list[tuple[str, bool]] = [(f"noop_{tag}", False)]
    if world.agent_busy(agent):
        return out
    here = world.agent_location(agent)
    out.extend((f"goto_{tag}_{n}", False) for n in world.level.location_names if n != here)
    spec = world.level.locations[world.level.location_index[here]]
    if spec.role == "storage":
        if world.agent_holding(agent) is None:
            out.extend((f"get_{tag}_{b}_{here}", True) for b in relevant)
        else:
            out.append((f"put_{tag}_{here}", True))
    elif spec.role == "serving":
        if world.agent_holding(agent) is not None:
            out.append((f"put_{tag}_{here}", True))
    else:
        if world.agent_holding(agent) is None:
            out.append((f"get_{tag}_{here}", True))
            out.append((f"activate_{tag}_{here}", True))
        else:
            out.append((f"put_{tag}_{here}", True))
    return out


def _joint_actions(world: World, relevant: tuple[str, ...]) -> list[list[str]]:
    per_agent = [_candidates(world, a, relevant) for a in range(world.n_agents)]
    joint: list[list[str]] = []
    for combo in itertools.product(*per_agent):
        commands = [c for c, _ in combo]
        joint.append(commands)
        acting = [i for i, (_, at_place) in enumerate(combo) if at_place]
        if len(acting) > 1:
            for order in itertools.permutations(acting):
                if list(order) == acting:
                    continue
                reordered = list(commands)
                for slot, source in zip(acting, order, strict=True):
                    reordered[slot] = commands[source]
                joint.append(reordered)
    return joint


def exact_best(level: Level, agents: int, tau: float, steps: int, seed: int = 0,
               max_frontier: int = MAX_FRONTIER) -> SearchResult:
    """The best result reachable in the first `steps` steps of one episode (breadth-first by step,
    identical states merged); `SearchTooLarge` once a step's frontier exceeds `max_frontier`."""
    root = World(level, n_agents=agents, tau=tau, seed=seed, max_steps=steps)
    root.reset()
    relevant = _relevant_base(level)
    frontier: dict[tuple[object, ...], World] = {_key(root): root}
    visited = 1
    for _ in range(steps):
        following: dict[tuple[object, ...], World] = {}
        for world in frontier.values():
            for joint in _joint_actions(world, relevant):
                twin = world.clone()
                twin.step(joint)
                key = _key(twin)
                if key not in following:
                    following[key] = twin
        if len(following) > max_frontier:
            raise SearchTooLarge(f"{level.name}: more than {max_frontier} states after {root.time} steps")
        visited += len(following)
        frontier = following
    best_completed = 0
    best_rate = 0.0
    for world in frontier.values():
        counts = world.counts
        total = counts.completed + counts.failed + counts.active
        best_completed = max(best_completed, counts.completed)
        best_rate = max(best_rate, counts.completed / total if total else 1.0)
    return SearchResult(best_completed, best_rate, visited)
