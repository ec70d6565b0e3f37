"""Cross-play: two different players, one per seat of a 2-agent kitchen, and the CoS they reach.

Ad-hoc teamwork is measured by pairing a policy with partners it never trained with (the
planner, a behaviour-cloned proxy of a person, a random teammate), beside its own play, as the
human-AI coordination literature reports. When both seats are the same player it plays as one
team (the joint policy's pick, the planner's `act_world`); otherwise each seat asks its own
player for its own command from the state before the step. The joint command runs in seat
order (seat 0 first), as training ran it; a command the engine refuses is refused (the agent
idles), which is the cost of a partner that does not plan with you.

Players:

- ``planner``: the scheduler (`planners.CuisinePlanner`) for its seat only (`act_for`): it plans
  around the other agent as it does around a person in a served room, never counting on it;
- ``random``: a uniformly random legal command (`RandomPolicy`, seeded);
- a trained policy (``policy:DIR``, an SB3 run folder): the joint network's pick for its seat;
- a planner clone (``clone:DIR``, `planner_clone`): its pick for its seat.

The CoS of a cell is the sweep's (completed / all orders per tau, pooled over that tau's
episodes, averaged over the taus), with a 95 % bootstrap interval from resampling the episodes
within each tau; ``n`` is the number of episodes.

Example::

    cell = play_cell("level_1", make_player("policy:/tmp/run"), make_player("planner"), taus, episodes=6)
    cos(cell), interval(cell)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from cuisineworld import World, load_level
from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.observe import Observer


class Player(Protocol):
    name: str

    def start(self, world: World) -> None:
        """A new episode in `world` begins."""

    def commands(self, world: World, seats: list[int]) -> list[str]:
        """The commands for agents `seats` in the world's current state (both seats: as one team)."""


@dataclass
class _Holder:
    """What the planner's `act_for` reads from a session: only its world (no people, no chef)."""

    world: World


class PlannerPlayer:
    name = "planner"

    def __init__(self) -> None:
        self.planner: Any = make_policy("planner")

    def start(self, world: World) -> None:
        self.planner = make_policy("planner")  # no memory carried from the last episode

    def commands(self, world: World, seats: list[int]) -> list[str]:
        if len(seats) == world.n_agents:
            return [str(c) for c in self.planner.act_world(world)]
        return [str(c) for c in self.planner.act_for(_Holder(world), seats)]


class RandomPlayer:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def start(self, world: World) -> None:
        """The generator runs on across episodes (seeded once)."""

    def commands(self, world: World, seats: list[int]) -> list[str]:
        out = []
        for seat in seats:
            legal = world.legal_commands(seat)
            out.append(legal[int(self.rng.integers(len(legal)))])
        return out


class PolicyPlayer:
    """An SB3 run folder's (or a released policy's) joint network, greedy, read for one seat."""

    def __init__(self, folder: Path) -> None:
        from cuisineworld.adapter.rl.released import is_released, resolve_released
        from cuisineworld.adapter.rl.trained import _load_model, resolve

        # a bare released name (`policy:level_1`), as `--model policy:NAME` reads it: sha256-checked
        path, meta_path = resolve_released(str(folder)) if is_released(str(folder)) else resolve(folder)
        self.name = f"policy:{folder}"
        self.meta = _read_json(meta_path)
        self.model = _load_model(str(path.resolve()), path.stat().st_mtime)

    def start(self, world: World) -> None:
        level = load_level(str(self.meta["level"]), str(self.meta.get("rules", "reference")))
        self.table, self.observer = ActionTable(level, world.n_agents), Observer(level, world.n_agents)

    def commands(self, world: World, seats: list[int]) -> list[str]:
        action, _ = self.model.predict(self.observer.encode(world), action_masks=self.table.masks(world).reshape(-1),
                                       deterministic=True)
        return [self.table.command(seat, int(action[seat])) for seat in seats]


class ClonePlayer:
    """A planner clone (`planner_clone`), greedy over legal commands, read for one seat."""

    def __init__(self, folder: Path) -> None:
        from cuisineworld.adapter.rl.planner_clone import load_clone

        self.name = f"clone:{folder}"
        self.clone = load_clone(folder)

    def start(self, world: World) -> None:
        """Stateless."""

    def commands(self, world: World, seats: list[int]) -> list[str]:
        picks = self.clone.actions(world)
        return [self.clone.table.command(seat, picks[seat]) for seat in seats]


def make_player(spec: str, seed: int = 0) -> Player:
    """``planner``, ``random``, ``policy:DIR`` or ``clone:DIR``."""
    if spec == "planner":
        return PlannerPlayer()
    if spec == "random":
        return RandomPlayer(seed)
    if spec.startswith("policy:"):
        return PolicyPlayer(Path(spec.removeprefix("policy:")))
    if spec.startswith("clone:"):
        return ClonePlayer(Path(spec.removeprefix("clone:")))
    raise ValueError(f"unknown player {spec!r}: planner, random, policy:DIR or clone:DIR")


@dataclass(frozen=True, slots=True)
class Episode:
    tau: float
    completed: int
    total: int  # completed + failed + still open at the end


def play_cell(level: str, first: Player, second: Player, taus: Sequence[float], episodes: int, seed: int = 0,
              rules: str = "reference") -> list[Episode]:
    """`episodes` episodes per tau with `first` in seat 0 and `second` in seat 1 (the same order
    streams for every pair: tau i's world is seeded ``seed + i`` and its episodes follow on).
    One player object in both seats plays as one team."""
    compiled = load_level(level, rules)
    out = []
    for i, tau in enumerate(taus):
        world = World(compiled, n_agents=2, tau=tau, seed=seed + i)
        for _ in range(episodes):
            world.reset()
            first.start(world)
            second.start(world)
            while not world.done:
                if first is second:
                    world.step(first.commands(world, [0, 1]))
                else:
                    world.step([*first.commands(world, [0]), *second.commands(world, [1])])
            counts = world.counts
            out.append(Episode(tau, counts.completed, counts.completed + counts.failed + counts.active))
    return out


def cos(cell: Sequence[Episode]) -> float:
    """Completed / all orders per tau (pooled over its episodes), averaged over the taus."""
    taus = sorted({e.tau for e in cell})
    rates = []
    for tau in taus:
        done = sum(e.completed for e in cell if e.tau == tau)
        total = sum(e.total for e in cell if e.tau == tau)
        rates.append(done / total if total else 0.0)
    return float(np.mean(rates))


def interval(cell: Sequence[Episode], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % bootstrap interval of `cos`, resampling episodes within each tau."""
    rng = np.random.default_rng(seed)
    by_tau = {tau: np.array([[e.completed, e.total] for e in cell if e.tau == tau]) for tau in sorted({e.tau for e in cell})}
    draws = np.zeros(resamples)
    for rows in by_tau.values():
        picks = rows[rng.integers(len(rows), size=(resamples, len(rows)))]  # (resamples, episodes, 2)
        sums = picks.sum(axis=1)
        draws += np.where(sums[:, 1] > 0, sums[:, 0] / np.maximum(sums[:, 1], 1), 0.0)
    draws /= len(by_tau)
    low, high = np.quantile(draws, [0.025, 0.975])
    return float(low), float(high)


def _read_json(path: Path) -> dict[str, Any]:
    import json

    data: dict[str, Any] = json.loads(path.read_text())
    return data
