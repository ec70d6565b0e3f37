"""Who did what in one episode: each agent's timeline and the contribution a person sees at the end.

The room feeds it every step's actions; the page shows the team's score next to the player's own
share (dishes they served, steps they worked, items they made) and a per-agent timeline, so a
person can see what they added and how the machines worked around them. What counts as serving
or making is the domain's call (`DomainSession.credit`), so this module knows no game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AgentCard:
    served: int = 0
    made: int = 0
    worked: int = 0
    refused: int = 0
    by: set[str] = field(default_factory=set)
    timeline: list[dict[str, Any]] = field(default_factory=list)


class Scorecard:
    """Example::

        card = Scorecard(2, credit=lambda command: "made" if command.startswith("activate") else None)
        card.add(0, [{"agent": 0, "command": "activate_agent0_pot0", "ok": True, "by": "human", "idle": False}])
        card.summary(["agent0", "agent1"])[0]["made"]   # 1
    """

    def __init__(self, n_agents: int, credit: Callable[[str], str | None],
                 shares: Callable[[], list[float] | None] | None = None) -> None:
        self.cards = [AgentCard() for _ in range(n_agents)]
        self._credit = credit
        #: each agent's share of the completed orders, where the game follows who worked on them
        self._shares = shares

    def add(self, step: int, actions: list[dict[str, Any]]) -> None:
        for action in actions:
            card = self.cards[action["agent"]]
            card.by.add(action["by"])
            worked = action["ok"] and not action["idle"] and not action.get("wait", False)
            kind = self._credit(action["command"]) if action["ok"] else None
            card.worked += worked
            card.refused += not action["ok"]
            card.served += kind == "served"
            card.made += kind == "made"
            card.timeline.append({"step": step, "command": action["command"], "ok": action["ok"],
                                  "idle": action["idle"] or not worked and action["ok"], "by": action["by"],
                                  **({"credit": kind} if kind else {})})

    def summary(self, names: list[str]) -> list[dict[str, Any]]:
        """Per agent; ``share`` (when the game follows contributions, `DishShares`) is the agent's
        part of the completed orders: each order split equally among the agents that worked on it,
        so a hand-off counts, not only the serving put (``served``)."""
        shares = self._shares() if self._shares is not None else None
        return [{"agent": a, "name": names[a], "by": sorted(c.by), "served": c.served, "made": c.made,
                 "worked": c.worked, "refused": c.refused, "timeline": c.timeline,
                 **({"share": round(shares[a], 3)} if shares is not None and a < len(shares) else {})}
                for a, c in enumerate(self.cards)]
