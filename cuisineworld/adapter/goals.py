"""Goal mode for CuisineWorld: the head chef (a language model) picks the dish the team works on;
the scheduler's line cooks turn that goal into commands.

The executor is the replanning scheduler with its demand steered by the goal: open orders of the
goal dish keep their urgency, every other open order is demoted to spare work, done with what
capacity is left. A goal is therefore not a veto: a poor choice costs dishes (orders of other
dishes are served late or not at all), a good one matches the scheduler's own order, so the
model's choice shows in the score. No Monte-Carlo look-ahead here: its rollouts would plan
without the goal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cuisineworld.adapter.planners.demand import SPARE, Demand, Job, PlannerConfig
from cuisineworld.adapter.planners.scheduler import CuisinePlanner
from cuisineworld.adapter.planners.snapshot import Snapshot
from mindagent.dispatch.plans import GoalMenu

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession
    from mindagent.core.domain import DomainSession


class GoalDemand(Demand):
    """`Demand` whose open orders of dishes outside the goals become spare work."""

    def __init__(self, config: PlannerConfig) -> None:
        super().__init__(config)
        self.goals: frozenset[str] = frozenset()

    def _open_orders(self, snap: Snapshot) -> list[Job]:
        jobs = super()._open_orders(snap)
        if self.goals:
            for job in jobs:
                if job.dish not in self.goals:
                    job.cls = SPARE
        return jobs


class GoalExecutor:
    """Line cooks for goal mode: ``executor.act(session, ["tunaSushi"])`` -> one command per agent."""

    def __init__(self) -> None:
        self.planner = CuisinePlanner(lookahead_team=0)
        self.demand = GoalDemand(self.planner.config)
        self.planner.demand = self.demand

    def act(self, session: DomainSession, goals: Sequence[str]) -> list[str]:
        """The line cooks' commands toward `goals`. With people's commands known for this step
        (`DomainSession.people_commands`) their agents are left to them and the cooks plan around
        their commands, which run first; the head chef's standing words are followed as the planner
        follows them (``no X`` is never cooked as spare work either)."""
        self.demand.goals = frozenset(goals)
        world = session.world  # type: ignore[attr-defined]  # only ever given a CuisineSession
        people = {session.agent_of(c) for c in session.people_commands()}
        if people or session.pending_instructions():
            return self.planner.act_for(session, [a for a in range(world.n_agents) if a not in people])  # type: ignore[arg-type]
        return self.planner.act_world(world)


def goal_menu(session: CuisineSession) -> GoalMenu | None:
    """The dishes of the open orders (most urgent first) and a few lines on the kitchen."""
    world = session.world
    orders = list(world.orders)
    if not orders:
        return GoalMenu((), "No open orders.", ())
    options = tuple(dict.fromkeys(o.dish for o in sorted(orders, key=lambda o: o.lifetime)))
    counts = Counter(o.dish for o in orders)
    lines = [f"Step {world.time} of {world.max_steps}. Open orders (dish: steps left):"]
    lines += [f"- {o.dish}: {o.lifetime}" for o in sorted(orders, key=lambda o: o.lifetime)]
    lines.append("Dishes ordered: " + ", ".join(f"{d} x{n}" for d, n in counts.items()))
    signature = tuple(sorted(o.id for o in orders))
    return GoalMenu(options, "\n".join(lines), signature)
