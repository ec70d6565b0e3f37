"""Process metrics of a recorded farm-to-table episode (`mindagent metrics`), from its header's
task and the commands the world confirmed.

- dishes served and completion: serves the world confirmed, over the dishes ordered. (VillagerBench's
  completion C, their eq. 7, adds partial credit for raw materials and actions on the way; ours is
  the share of dishes served, with no partial credit.)
- the team figures of every family (`team_metrics`): balance B over each bot's confirmed actions
  (noops left out) and the agent contribution rate ACR (VillagerBench's eqs. 8-9) with I_i the
  number of items bot i brought into the causal chain (the main produce of a harvest, milk,
  gathered eggs, crafted products, smelted items taken out; pantry takes move items, they do not
  make them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.families.farm_commands import FarmSyntaxError, parse_farm_command
from minecraft.families.farm_task import FarmTask, book
from minecraft.families.team_metrics import team_figures


def _brought(verb: str, item: str | None, count: int) -> int:
    b = book()
    if verb == "harvest" and item in b.crops:
        crop = b.crops[item]
        return crop.yield_[next(iter(crop.yield_))]
    if verb == "craft" and item in b.recipes:
        return b.recipes[item].makes
    return {"milk": 1, "gather": count, "takeout": 1}.get(verb, 0)


def farm_metrics(header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    task = FarmTask.model_validate(header["task"])
    agents = [str(a) for a in header.get("agent_names") or ["Alex", "Steve", "Ellie", "Kai"][: int(header.get("agents", 2))]]
    actions = dict.fromkeys(agents, 0)
    brought = dict.fromkeys(agents, 0)
    served = 0
    for step in steps:
        for verdict in step.get("verdicts") or []:
            if not verdict.get("ok"):
                continue
            try:
                command = parse_farm_command(str(verdict.get("command", "")), agents)
            except FarmSyntaxError:
                continue
            if command.verb == "noop":
                continue
            actions[command.agent] += 1
            brought[command.agent] += _brought(command.verb, command.item, command.count)
            served += command.verb == "serve"
    return {"dishes_served": served, "dishes_ordered": len(task.dishes),
            "completion": round(min(served, len(task.dishes)) / len(task.dishes), 4),
            "actions_per_agent": actions, "items_brought_per_agent": brought, **team_figures(actions, brought)}
