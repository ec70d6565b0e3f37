"""Process metrics of a recorded farm-to-table episode (`mindagent metrics`), from its header's
task and the commands the world confirmed.

- dishes served and completion: serves the world confirmed, over the dishes ordered. (VillagerBench's
  completion C, their eq. 7, adds partial credit for raw materials and actions on the way; ours is
  the share of dishes served, with no partial credit.)
- balance B = 1 - σ(t'), t' the min-max normalised count of each bot's confirmed actions (noops
  left out), as VillagerBench defines it (their eqs. 1-2); undefined (None) for one bot.
- agent contribution rate ACR (their eqs. 8-9): I_i is the number of items bot i brought into the
  causal chain (the main produce of a harvest, milk, gathered eggs, crafted products, smelted
  items taken out; pantry takes move items, they do not make them); as shares of the total,
  ACR = 1 - σ(I) / σ_max with σ_max the spread when one bot brings everything (σ_min = 0, all
  equal). None for one bot or when nothing was brought.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.families.farm_commands import FarmSyntaxError, parse_farm_command
from minecraft.families.farm_task import FarmTask, book


def balance(active: Sequence[int]) -> float | None:
    """VillagerBench's balance B of per-agent active amounts."""
    if len(active) < 2:
        return None
    low, high = min(active), max(active)
    if high == low:
        return 1.0
    return 1.0 - statistics.pstdev([(t - low) / (high - low) for t in active])


def contribution_rate(items: Sequence[int]) -> float | None:
    """VillagerBench's agent contribution rate over per-agent item counts."""
    n, total = len(items), sum(items)
    if n < 2 or total == 0:
        return None
    shares = [i / total for i in items]
    sigma_max = math.sqrt(n - 1) / n
    return 1.0 - statistics.pstdev(shares) / sigma_max


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
    b, acr = balance(list(actions.values())), contribution_rate(list(brought.values()))
    return {"dishes_served": served, "dishes_ordered": len(task.dishes),
            "completion": round(min(served, len(task.dishes)) / len(task.dishes), 4),
            "actions_per_agent": actions, "items_brought_per_agent": brought,
            "balance_B": None if b is None else round(b, 4), "agent_contribution_ACR": None if acr is None else round(acr, 4)}
