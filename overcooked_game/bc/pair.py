"""Two behaviour-cloning clones playing together: how faithful a proxy design is to Carroll et al.'s.

LLM-Coordination's Table 2 "BC" row is Carroll et al.'s BC agent (cloned from the training trials)
beside their human proxy (cloned from the test trials), 400 timesteps, in both starting positions.
`play` runs one such episode through the same `OvercookedSession` the benchmarks and ``mindagent
run`` use, each chef played by its own `BCProxy` seeded with the episode's seed (as
`benchmarks/overcooked_table.py` seeds a partner), so the figures are comparable with the planner's.

This is the yardstick a proxy design is judged by (with held-out action accuracy), never the
planner's score beside the proxy: that would tune the partner to our planner.

Example::

    reward = play("cramped_room", Path("/tmp/bc35/carroll/train/cramped_room"),
                  Path("/tmp/bc35/carroll/test/cramped_room"), seed=20)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from overcooked_game.bc.errors import PolicyLoadError
from overcooked_game.bc.model import ACTION_NAMES
from overcooked_game.bc.policy import BCPolicy
from overcooked_game.layouts import load_layout
from overcooked_game.session import OvercookedSession

# LLM-Coordination's Table 2 "BC" rows (BC agent as chef0 beside the proxy, then swapped), per layout
PAPER_BC: dict[str, tuple[float, float]] = {
    "cramped_room": (103.5, 110.0), "asymmetric_advantages": (136.5, 137.5), "coordination_ring": (59.0, 70.0),
    "forced_coordination": (20.5, 31.0), "counter_circuit": (38.0, 44.0)}


@dataclass(frozen=True)
class PairResult:
    """Rewards per seed of one layout: the agent as chef0 (`first`) and as chef1 (`swapped`)."""

    layout: str
    seeds: tuple[int, ...]
    first: tuple[int, ...]
    swapped: tuple[int, ...]


def play(layout: str, chef0: Path | BCPolicy, chef1: Path | BCPolicy, seed: int) -> int:
    """The sparse reward of one 400-timestep episode of the clone in `chef0` beside the one in `chef1`
    (folders, or policies already loaded for this layout).

    Each draws from its own generator seeded with `seed`, as `BCProxy` does when the table benchmark
    seeds a partner, so an episode here is the one ``--partners bc:DIR`` would play.
    """
    session = OvercookedSession(load_layout(layout))
    session.engine.reset()
    mdp = session.kitchen.mdp
    players = [BCPolicy.load(chef, mdp=mdp) if isinstance(chef, Path) else chef for chef in (chef0, chef1)]
    for player in players:
        if tuple("".join(row) for row in mdp.terrain_mtx) != player.meta.terrain:
            raise PolicyLoadError(f"a proxy trained on {player.meta.layout} cannot play {layout}")
        player.reset()
    rngs = [np.random.default_rng(seed) for _ in players]
    while not session.done:
        state = session.engine.state
        keys = [ACTION_NAMES[player.act_index(state, chef, rngs[chef])] for chef, player in enumerate(players)]
        session.step_now([f"{key}(chef{chef})" for chef, key in enumerate(keys)])
    return int(session.engine.reward)


def measure(layout: str, agent: Path, proxy: Path, seeds: range) -> PairResult:
    """The agent beside the proxy on every seed, in both starting positions."""
    mdp = OvercookedSession(load_layout(layout)).kitchen.mdp
    loaded_agent, loaded_proxy = BCPolicy.load(agent, mdp=mdp), BCPolicy.load(proxy, mdp=mdp)
    # `play` resets both before each episode (a clone's memory is per chef and per episode)
    first = tuple(play(layout, loaded_agent, loaded_proxy, seed) for seed in seeds)
    swapped = tuple(play(layout, loaded_proxy, loaded_agent, seed) for seed in seeds)
    return PairResult(layout, tuple(seeds), first, swapped)
