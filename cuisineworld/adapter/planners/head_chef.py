"""The planner's head-chef language: a few short instructions it can follow, and its replies.

A language model reads a head chef's words in its prompt; the planner reads no prompt, so it
understands a small fixed language instead (case and spaces do not matter; dish names may be
written ``tunaSushi``, ``tuna sushi`` or ``tuna_sushi``):

- ``make X``         keep making X ahead: a spare X goes before any other spare
- ``only X``         (also ``only X and Y``) cook nothing but X (and Y): other orders are left to expire
- ``no X``           never cook X (orders for X are left to expire)
- ``agentK do X``    agent K works on X only; the rest of the team plans as usual
- ``stop``           the planner's agents wait until the next instruction
- ``go`` / ``go on`` / ``resume`` / ``as you like``   forget the earlier instructions

Instructions stand (they are re-read every step from the session's standing instructions, the
newest last, and a later one overrides an earlier one on the same dish). A line the planner
cannot read, or one that names a dish this level does not serve, gets one reply, which the room
shows in its event log. Example::

    orders = read_orders(["only tuna sushi", "agent1 do salmonSushi"], ("salmonSushi", "tunaSushi"), 2)
    orders.allowed            # frozenset({'tunaSushi'})
    orders.replies            # ["agent1 do salmonSushi: ... only tunaSushi ..."]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The language in one line, for replies and the page.
LANGUAGE = 'make X, only X, no X, agentK do X, stop, go on (X: a dish of this level)'

_AGENT_DO = re.compile(r"^agent\s*(\d+)\s*(?:,|:)?\s*(?:do|make|cook|works? on)\s+(.+)$")


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


@dataclass
class ChefOrders:
    """What the standing instructions ask of the planner."""

    allowed: frozenset[str] | None = None  # None: every dish
    banned: set[str] = field(default_factory=set)
    make: str | None = None
    assigned: dict[int, str] = field(default_factory=dict)  # agent -> dish
    stopped: bool = False
    replies: list[str] = field(default_factory=list)

    def permits(self, dish: str) -> bool:
        return dish not in self.banned and (self.allowed is None or dish in self.allowed)


def read_orders(lines: list[str], dishes: tuple[str, ...], n_agents: int) -> ChefOrders:
    """Read standing instructions, oldest first, into `ChefOrders` (with a reply per unreadable line)."""
    by_key = {_key(d): d for d in dishes}
    orders = ChefOrders()

    def dish_list(text: str, line: str) -> list[str] | None:
        names = [p for p in re.split(r"\s*(?:,|\band\b|&|\+)\s*", text) if p.strip()]
        found = [by_key.get(_key(n)) for n in names]
        if not names or any(f is None for f in found):
            orders.replies.append(f"The planner cannot follow \"{line}\": this kitchen's dishes are "
                                  f"{', '.join(dishes)}.")
            return None
        return [f for f in found if f is not None]

    for raw in lines:
        line = " ".join(raw.split()).strip(" .!")
        low = line.lower()
        if low in ("stop", "stop all", "everyone stop", "wait", "hold"):
            orders.stopped = True
        elif low in ("go", "go on", "resume", "continue", "as you like", "carry on", "start"):
            orders = ChefOrders(replies=orders.replies)
        elif low.startswith("only "):
            picked = dish_list(line[5:], line)
            if picked is not None:
                orders.allowed, orders.stopped = frozenset(picked), False
                orders.banned -= set(picked)
        elif low.startswith("no "):
            picked = dish_list(line[3:], line)
            if picked is not None:
                orders.banned |= set(picked)
                orders.stopped = False
        elif low.startswith("make "):
            picked = dish_list(line[5:], line)
            if picked is not None:
                orders.make, orders.stopped = picked[0], False
                orders.banned.discard(picked[0])
        elif match := _AGENT_DO.match(low):
            agent = int(match.group(1))
            if agent >= n_agents:
                orders.replies.append(f"The planner cannot follow \"{line}\": there is no agent{agent}.")
            elif (picked := dish_list(line[match.start(2):], line)) is not None:
                orders.assigned[agent] = picked[0]
                orders.stopped = False
        else:
            orders.replies.append(f"The planner cannot follow \"{line}\"; it understands: {LANGUAGE}.")
    for agent, dish in list(orders.assigned.items()):
        if not orders.permits(dish):
            orders.replies.append(f"agent{agent} cannot do {dish}: another instruction rules {dish} out.")
            del orders.assigned[agent]
    return orders


__all__ = ["LANGUAGE", "ChefOrders", "read_orders"]
