"""Process metrics of a recorded escape episode (`mindagent metrics`), from its header's room and
what the server confirmed, step by step.

- ``solved`` and ``steps_to_escape``: whether and at which step every bot was out (the steps'
  ``completed`` lists name each bot out, written from the server's state);
- ``completion_C``: VillagerBench's C (appendix A.7) with each room weighted by its conditions
  and the exit one condition more: conditions met over D + 1, D their dependency complexity;
- the team figures of every family (`team_metrics`): ``balance_B`` over each bot's confirmed
  actions (waits not counted) and ``agent_contribution`` over the confirmed actions that work a
  mechanism (stand, flip, take, unlock). VillagerBench defines its agent contribution rate over
  the items of farm-to-table cooking; working a mechanism is this family's nearest reading;
  ``mechanism_share_per_agent`` gives each bot's share of those actions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.families.escape_commands import EscapeSyntaxError, parse_escape_command
from minecraft.families.escape_room import Room
from minecraft.families.team_metrics import team_figures

MECHANISM_VERBS = ("stand", "flip", "take", "unlock")


def escape_metrics(header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    room = Room.model_validate(header["room"])
    agents = [str(a) for a in header.get("agent_names") or ["Alex", "Steve", "Ellie", "Kai"][: int(header.get("agents", 2))]]
    actions = dict.fromkeys(agents, 0)
    worked = dict.fromkeys(agents, 0)
    opened: set[int] = set()
    escaped_at: int | None = None
    out: set[str] = set()
    for t, step in enumerate(steps):
        for verdict in step.get("verdicts") or []:
            if not verdict.get("ok"):
                continue
            try:
                command = parse_escape_command(str(verdict.get("command", "")), agents)
            except EscapeSyntaxError:
                continue
            if command.verb != "wait":
                actions[command.agent] += 1
            if command.verb in MECHANISM_VERBS:
                worked[command.agent] += 1
        for label in step.get("completed") or []:
            text = str(label)
            if text.startswith("door") and text.endswith(" open") and text[4:-5].isdigit():
                opened.add(int(text[4:-5]) - 1)
            elif text.endswith(" out") and text[:-4] in actions:
                out.add(text[:-4])
        if escaped_at is None and out == set(agents):
            escaped_at = t + 1
    met = sum(s.conditions for r, s in enumerate(room.stages) if r in opened) + int(escaped_at is not None)
    total_worked = sum(worked.values())
    return {"solved": escaped_at is not None, "steps_to_escape": escaped_at,
            "completion_C": round(met / (room.dependency + 1), 4), "dependency_D": room.dependency,
            "doors_opened": len(opened), "actions_per_agent": actions,
            "mechanism_share_per_agent": {a: round(n / total_worked, 4) if total_worked else 0.0
                                          for a, n in worked.items()},
            **team_figures(actions, worked)}
