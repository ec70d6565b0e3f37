"""The order stream: arrivals every task interval, lifetimes, expiry and serving.

One generator per World, seeded once and shared by consecutive episodes (the reference draws
the first order of episode 2 right after the last draw of episode 1). Draws use
`random.Random.choice` over the level's dish list in file order, as the reference does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cuisineworld.kitchen_state import Kitchen
    from cuisineworld.rules import Rules

MAX_ACTIVE_ORDERS = 6


@dataclass(slots=True)
class Order:
    id: int
    dish: str
    lifetime: int
    arrival: int


def _urgency(order: Order) -> tuple[int, str, int]:
    return (order.lifetime, order.dish, order.id)


class OrderBook:
    __slots__ = ("dishes", "lifetimes", "interval", "rng", "active", "timer", "clock", "next_id",
                 "completed", "failed", "completed_dishes", "failed_dishes")

    def __init__(self, dishes: tuple[str, ...], lifetimes: dict[str, int], interval: int, rng: random.Random) -> None:
        self.dishes = list(dishes)
        self.lifetimes = lifetimes
        self.interval = interval
        self.rng = rng
        self.active: list[Order] = []
        self.timer = 0
        self.clock = 0
        self.next_id = 0
        self.completed = 0
        self.failed = 0
        self.completed_dishes: list[str] = []
        self.failed_dishes: list[str] = []

    def copy(self, rng: random.Random) -> OrderBook:
        twin = OrderBook(tuple(self.dishes), self.lifetimes, self.interval, rng)
        twin.active = [Order(o.id, o.dish, o.lifetime, o.arrival) for o in self.active]
        twin.timer, twin.clock, twin.next_id = self.timer, self.clock, self.next_id
        twin.completed, twin.failed = self.completed, self.failed
        twin.completed_dishes = list(self.completed_dishes)
        twin.failed_dishes = list(self.failed_dishes)
        return twin

    def start(self) -> None:
        self.active = []
        self.timer = 0
        self.clock = 0
        self.next_id = 0
        self.completed = 0
        self.failed = 0
        self.completed_dishes = []
        self.failed_dishes = []
        self._arrive()

    def _arrive(self) -> str:
        dish = self.rng.choice(self.dishes)
        self.active.append(Order(self.next_id, dish, self.lifetimes[dish], self.clock))
        self.next_id += 1
        return dish

    def count_for(self, dish: str) -> int:
        n = 0
        for order in self.active:
            if order.dish == dish:
                n += 1
        return n

    def settle(self, kitchen: Kitchen, rules: Rules) -> tuple[list[str], list[str]]:
        """Expire and serve orders; returns (dishes completed, dishes failed) this step."""
        active = self.active
        if not active:
            return [], []
        completed: list[str] = []
        failed: list[str] = []
        if rules.expire_before_serve:
            keep = []
            for order in active:
                if order.lifetime == 0:
                    failed.append(order.dish)
                else:
                    keep.append(order)
            active = keep
        remaining = []
        for order in active:
            if kitchen.take_served(order.dish):
                completed.append(order.dish)
            elif order.lifetime == 0:
                failed.append(order.dish)
            else:
                remaining.append(order)
        self.active = remaining
        if completed:
            self.completed += len(completed)
            self.completed_dishes.extend(completed)
        if failed:
            self.failed += 1 if rules.count_failures_per_step else len(failed)
            self.failed_dishes.extend(failed)
        return completed, failed

    def tick(self) -> list[str]:
        """Advance one step: lifetimes drop, the interval timer runs, an order may arrive."""
        self.clock += 1
        for order in self.active:
            order.lifetime -= 1
        arrived: list[str] = []
        self.timer += 1
        if self.timer == self.interval:
            if len(self.active) < MAX_ACTIVE_ORDERS:
                arrived.append(self._arrive())
            self.timer = 0
        if len(self.active) > 1:
            self.active.sort(key=_urgency)
        return arrived
