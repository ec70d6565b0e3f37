"""Run a world-level policy under the paper's protocol and score it (reference section 7).

Per (level, agents, tau): one World seeded once, three consecutive 60-step episodes (the order
generator carries over between them). Rate per tau = completed / (completed + failed + still
active) summed over the episodes; CoS = mean rate over the five taus. The paper's stated formula,
completed / (completed + failed), is reported next to it as `cos_formula` (`cos_paper` in the
results file, as `mindagent.evaluation.sweep` writes it).

Example::

    cell = run_cell(CuisinePlanner(), "level_3", agents=2)
    cell.cos                  # e.g. 0.9
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from cuisineworld import PAPER_TAUS, Level, World, load_level
from mindagent.evaluation.scoring import TauResult, cos, cos_paper

EPISODES_PER_TAU = 3


class WorldPolicy(Protocol):
    name: str

    def reset(self, session: Any) -> None:
        """Forget the last episode (the world is passed separately, so `session` may be None)."""

    def act_world(self, world: World) -> list[str]:
        """One command per agent for the world's current step."""


@dataclass(slots=True)
class CellResult:
    level: str
    agents: int
    taus: list[TauResult] = field(default_factory=list)
    refused: int = 0

    @property
    def cos(self) -> float:
        return cos(self.taus)

    @property
    def cos_formula(self) -> float:
        return cos_paper(self.taus)

    def to_dict(self) -> dict[str, object]:
        """The cell in the results-file format (`cos_paper` is the paper's stated formula)."""
        return {
            "level": self.level,
            "agents": self.agents,
            "cos": self.cos,
            "cos_paper": self.cos_formula,
            "refused": self.refused,
            "taus": [t.to_dict() for t in self.taus],
        }


def run_tau(policy: WorldPolicy, level: Level, agents: int, tau: float, seed: int = 0,
            episodes: int = EPISODES_PER_TAU, max_steps: int | None = None) -> tuple[TauResult, int]:
    """Sum of the counts over `episodes` consecutive episodes of one world, and refused commands."""
    world = World(level, n_agents=agents, tau=tau, seed=seed, max_steps=max_steps)
    completed = failed = active = refused = 0
    for _ in range(episodes):
        world.reset()
        policy.reset(None)
        while not world.done:
            result = world.step(policy.act_world(world))
            refused += sum(1 for o in result.outcomes if not o.ok)
        counts = world.counts
        completed += counts.completed
        failed += counts.failed
        active += counts.active
    return TauResult(tau, completed, failed, active), refused


def run_cell(policy: WorldPolicy, level: str | Level, agents: int, rules: str = "reference",
             taus: Sequence[float] = PAPER_TAUS, seed: int = 0, episodes: int = EPISODES_PER_TAU,
             max_steps: int | None = None) -> CellResult:
    compiled = level if isinstance(level, Level) else load_level(level, rules)
    cell = CellResult(compiled.name, agents)
    for tau in taus:
        result, refused = run_tau(policy, compiled, agents, tau, seed, episodes, max_steps)
        cell.taus.append(result)
        cell.refused += refused
    return cell
