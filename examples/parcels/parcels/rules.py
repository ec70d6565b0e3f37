"""The rules of Parcels: pure, seeded, no I/O, and nothing of mindagent.

Places are ``depot`` and ``house0`` .. ``houseN-1``. Every `interval` steps a parcel for a random
house arrives at the depot with `lifetime` steps to live. Couriers `move` to a place, `take` the
most urgent waiting parcel at the depot, `drop` a parcel at its house (an order completed), or
`wait`. A parcel whose lifetime ends fails, carried or not.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

VERBS = ("move", "take", "drop", "wait")
COMMAND = re.compile(r"\b(move|take|drop|wait)_agent([0-9]{1,2})(?:_(depot|house[0-9]))?\b", re.ASCII)


@dataclass(frozen=True)
class Refusal:
    """Why a command was refused: a code from `REASONS` and the facts behind it."""

    code: str
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "detail": self.detail}


#: One wording table for every refusal (the feedback the dispatcher reads).
REASONS = {
    "malformed": "is not a Parcels command",
    "unknown_agent": "names no courier of this team",
    "unknown_place": "names no place on this street",
    "twice": "gives a courier a second command in one step",
    "same_place": "moves a courier to where it already is",
    "not_here": "needs the courier at that place",
    "hands_full": "needs empty hands",
    "nothing_waiting": "finds no parcel waiting at the depot",
    "not_carrying": "needs a parcel in hand",
    "wrong_house": "drops a parcel at a house it is not for",
}


@dataclass
class Order:
    id: int
    house: int
    lifetime: int
    carrier: int | None = None


@dataclass
class Street:
    """One episode's world. Example: ``Street.new(houses=3, agents=2, tau=1.0, seed=0)``."""

    houses: int
    agents: int
    interval: int
    lifetime: int
    rng: random.Random
    places: list[str] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    step_index: int = 0
    next_id: int = 1
    completed: int = 0
    failed: int = 0

    @classmethod
    def new(cls, houses: int, agents: int, tau: float, seed: int) -> Street:
        street = cls(houses, agents, interval=max(1, round(3 * tau)), lifetime=round((6 + 2 * houses) * tau),
                     rng=random.Random(seed), places=["depot"] * agents)
        street._arrive()
        return street

    def place_names(self) -> list[str]:
        return ["depot", *(f"house{h}" for h in range(self.houses))]

    def carrying(self, agent: int) -> Order | None:
        return next((o for o in self.orders if o.carrier == agent), None)

    def waiting(self) -> list[Order]:
        return sorted((o for o in self.orders if o.carrier is None), key=lambda o: (o.lifetime, o.id))

    def judge(self, verb: str, agent: int, place: str | None) -> Refusal | None:
        """Why `verb` by `agent` would be refused now (None: it would succeed)."""
        if not 0 <= agent < self.agents:
            return Refusal("unknown_agent", f"agent{agent}")
        if place is not None and place not in self.place_names():
            return Refusal("unknown_place", place)
        here = self.places[agent]
        held = self.carrying(agent)
        if verb == "move":
            if place is None:
                return Refusal("malformed", "move needs a place")
            return Refusal("same_place", place) if place == here else None
        if verb == "take":
            if place != "depot" or here != "depot":
                return Refusal("not_here", "depot")
            if held is not None:
                return Refusal("hands_full", f"parcel {held.id}")
            return None if self.waiting() else Refusal("nothing_waiting")
        if verb == "drop":
            if place is None or place != here:
                return Refusal("not_here", place or "?")
            if held is None:
                return Refusal("not_carrying")
            return None if place == f"house{held.house}" else Refusal("wrong_house", f"parcel {held.id} is for house{held.house}")
        return None if place is None else Refusal("malformed", "wait takes no place")

    def apply(self, verb: str, agent: int, place: str | None) -> list[str]:
        """Carry out a judged command; returns what it completed (order names)."""
        if verb == "move" and place is not None:
            self.places[agent] = place
        elif verb == "take":
            self.waiting()[0].carrier = agent
        elif verb == "drop":
            held = self.carrying(agent)
            assert held is not None
            self.orders.remove(held)
            self.completed += 1
            return [f"parcel{held.id}"]
        return []

    def end_step(self) -> list[str]:
        """Age the parcels, fail the expired ones, maybe draw a new one; returns the failed."""
        failed = []
        for order in list(self.orders):
            order.lifetime -= 1
            if order.lifetime <= 0:
                self.orders.remove(order)
                self.failed += 1
                failed.append(f"parcel{order.id}")
        self.step_index += 1
        if self.step_index % self.interval == 0:
            self._arrive()
        return failed

    def _arrive(self) -> None:
        self.orders.append(Order(self.next_id, self.rng.randrange(self.houses), self.lifetime))
        self.next_id += 1


def parse(command: str) -> tuple[str, int, str | None] | None:
    """``move_agent0_house2`` → ``("move", 0, "house2")``; None for anything else."""
    found = COMMAND.fullmatch(command.strip())
    if found is None:
        return None
    return found.group(1), int(found.group(2)), found.group(3)
