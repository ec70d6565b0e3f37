"""Process metrics of a recorded construction episode (`mindagent metrics`), from its header's
blueprint and the commands the world confirmed.

The site is rebuilt from the accepted ``place`` and ``dig`` commands in order, with the facing
as commanded (the live score C is read from the server; the two agree unless a block's facing
came out otherwise). Balance is VillagerBench's B = 1 - σ(t'), t' the min-max normalised count
of each bot's confirmed actions (take, place, dig); B is 1 when all counts are equal and
undefined (None) for one bot.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.families.blueprint import Blueprint, Position
from minecraft.families.build_commands import BuildSyntaxError, parse_build_command
from minecraft.families.metrics import Placed, completion_rate, view_hit_rate


def balance(active: Sequence[int]) -> float | None:
    """VillagerBench's balance B of per-agent active amounts (their eqs. 1-2)."""
    if len(active) < 2:
        return None
    low, high = min(active), max(active)
    if high == low:
        return 1.0
    scaled = [(t - low) / (high - low) for t in active]
    return 1.0 - statistics.pstdev(scaled)


def construction_metrics(header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    blueprint = Blueprint.model_validate(header["blueprint"])
    agents = [str(a) for a in header.get("agent_names") or ["Alex", "Steve", "Ellie", "Kai"][: int(header.get("agents", 2))]]
    site: dict[Position, Placed] = {}
    actions = dict.fromkeys(agents, 0)
    placed = dict.fromkeys(agents, 0)
    for step in steps:
        for verdict in step.get("verdicts") or []:
            if not verdict.get("ok"):
                continue
            try:
                command = parse_build_command(str(verdict.get("command", "")), agents)
            except BuildSyntaxError:
                continue
            if command.verb == "noop":
                continue
            actions[command.agent] += 1
            if command.verb == "place" and command.pos and command.material:
                site[command.pos] = Placed(command.material, command.facing)
                placed[command.agent] += 1
            elif command.verb == "dig" and command.pos:
                site.pop(command.pos, None)
    return {"completion_C": round(completion_rate(blueprint, site), 4),
            "view_hit_rate": round(view_hit_rate(blueprint, site), 4),
            "blocks_placed_per_agent": placed, "actions_per_agent": actions,
            "balance_B": None if (b := balance(list(actions.values()))) is None else round(b, 4)}
