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

from overcooked_game.bc.proxy import BCProxy
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


def play(layout: str, chef0: Path, chef1: Path, seed: int) -> int:
    """The sparse reward of one 400-timestep episode of the clone in `chef0` beside the one in `chef1`.

    Both draw from generators seeded with `seed` (one each), as the table benchmark seeds a partner.
    """
    session = OvercookedSession(load_layout(layout))
    session.engine.reset()
    players = (BCProxy(chef0, seed), BCProxy(chef1, seed))
    for player in players:
        player.reset(session)  # refuses (one `PolicyLoadError` line) a clone of another layout's people
    while not session.done:
        commands = [player.act_for(session, [chef])[0] for chef, player in enumerate(players)]
        session.step_now(commands)
    return int(session.engine.reward)


def measure(layout: str, agent: Path, proxy: Path, seeds: range) -> PairResult:
    """The agent beside the proxy on every seed, in both starting positions."""
    first = tuple(play(layout, agent, proxy, seed) for seed in seeds)
    swapped = tuple(play(layout, proxy, agent, seed) for seed in seeds)
    return PairResult(layout, tuple(seeds), first, swapped)
