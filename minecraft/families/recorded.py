"""Process metrics of a recorded construction episode (`mindagent metrics`), from its header's
blueprint and the commands the world confirmed.

The site is rebuilt from the accepted ``place`` and ``dig`` commands in order, with the facing
as commanded (the live score C is read from the server; the two agree unless a block's facing
came out otherwise). The team figures (`team_metrics`: balance B and the agent contribution rate)
take each bot's confirmed actions (take, place, dig) as its activity and the blueprint blocks it
placed right as its contribution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.families.blueprint import Blueprint, Position
from minecraft.families.build_commands import BuildSyntaxError, parse_build_command
from minecraft.families.metrics import Placed, completion_rate, view_hit_rate
from minecraft.families.team_metrics import team_figures


def construction_metrics(header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    blueprint = Blueprint.model_validate(header["blueprint"])
    agents = [str(a) for a in header.get("agent_names") or ["Alex", "Steve", "Ellie", "Kai"][: int(header.get("agents", 2))]]
    site: dict[Position, Placed] = {}
    actions = dict.fromkeys(agents, 0)
    placed = dict.fromkeys(agents, 0)
    right = dict.fromkeys(agents, 0)
    want = blueprint.at()
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
                block = want.get(command.pos)
                if block is not None and Placed(block.material, block.facing) == site[command.pos]:
                    right[command.agent] += 1
            elif command.verb == "dig" and command.pos:
                site.pop(command.pos, None)
    return {"completion_C": round(completion_rate(blueprint, site), 4),
            "view_hit_rate": round(view_hit_rate(blueprint, site), 4),
            "blocks_placed_per_agent": placed, "actions_per_agent": actions,
            **team_figures(actions, right)}
