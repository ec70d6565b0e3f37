"""Orders of the Minecraft kitchen: which cooked meat to deliver to the chest, and by when.

The reference release draws one order every 10 dispatcher steps, each living 15 steps, over a
60-step episode. We keep that exact setting at tau = 2.0 and scale both linearly with tau for
the paper's five difficulty factors (tau 1.0 is the most intense):

    interval(tau) = ceil(5 * tau)         -> 5, 8, 10, 13, 15  for tau 1.0, 1.5, 2.0, 2.5, 3.0
    lifetime(tau) = ceil(1.5 * interval)  -> 8, 12, 15, 20, 23

One `random.Random` per (tau, seed) draws the cooked meat of each order and nothing else, so an
episode's order stream depends only on those two numbers. A second one, also per (tau, seed),
then turns each drawn order into the crafted dish (mushroom stew) with probability 1/5, so each of
the five dishes is asked for equally often; the meat draws, and so every order that stays a meat
order, are the same as before the crafted dish existed. One order arrives at reset, then one every
`interval` steps, skipped while `MAX_ACTIVE` are open. An order is completed when the chest
holds more of its dish than was already credited (oldest order first); it fails when its
lifetime runs out.

A dish that reaches the chest while no open order asks for it (typically cooked meat that
arrives after its order expired) is credited at once and counts for nothing: it never completes
a later order by itself. The step reports it (`unmatched`), so the dispatcher hears why. The
reference release would let it complete the next order of that dish; we do not, because that
credits an order at a step where nobody acted for it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from minecraft.kitchen import CRAFTED_DISHES, DISHES

TAUS: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)
MAX_ACTIVE = 6
#: chance that a drawn order becomes a crafted dish instead of its cooked meat
CRAFTED_SHARE = 0.2


def interval_for(tau: float) -> int:
    return math.ceil(5 * tau)


def lifetime_for(tau: float) -> int:
    return math.ceil(1.5 * interval_for(tau))


@dataclass(slots=True)
class Order:
    dish: str
    created: int
    lifetime: int

    def remaining(self, step: int) -> int:
        return self.created + self.lifetime - step


@dataclass(slots=True)
class OrderBook:
    """The order stream of one session. Example::

        book = OrderBook(tau=2.0, seed=0)
        book.reset(step=0, chest={})
        done, failed = book.advance(step=1, chest={"cooked_beef": 1})
    """

    tau: float
    seed: int = 0
    dishes: tuple[str, ...] = DISHES
    #: crafted dishes that may replace a drawn meat order (empty: meat orders only)
    crafted: tuple[str, ...] = CRAFTED_DISHES
    active: list[Order] = field(default_factory=list)
    completed: list[Order] = field(default_factory=list)
    failed: list[Order] = field(default_factory=list)
    credited: dict[str, int] = field(default_factory=dict)
    #: dishes that reached the chest in the last `advance` with no open order for them
    unmatched: dict[str, int] = field(default_factory=dict)
    rng: random.Random = field(init=False)
    craft_rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"minecraft-orders:{self.tau}:{self.seed}")
        self.craft_rng = random.Random(f"minecraft-crafted-orders:{self.tau}:{self.seed}")

    @property
    def pool(self) -> tuple[str, ...]:
        """Every dish an order may ask for."""
        return self.dishes + self.crafted

    @property
    def interval(self) -> int:
        return interval_for(self.tau)

    @property
    def lifetime(self) -> int:
        return lifetime_for(self.tau)

    def reset(self, step: int, chest: dict[str, int]) -> None:
        """New episode: forget orders, credit what the chest already holds, open one order.

        The generator carries over between episodes, as in the reference.
        """
        self.active, self.completed, self.failed, self.unmatched = [], [], [], {}
        self.credited = {d: chest.get(d, 0) for d in self.pool}
        self._draw(step)

    def advance(self, step: int, chest: dict[str, int]) -> tuple[list[Order], list[Order]]:
        """Close the step that just ended at `step`: credit deliveries, expire, maybe draw."""
        done = self.credit(step, chest)
        return done, self.tick(step)

    def credit(self, step: int, chest: dict[str, int]) -> list[Order]:
        """Complete the open orders the delivered counts in `chest` pay for (oldest first) and
        note deliveries no order asked for; `chest` is cumulative (what was delivered so far)."""
        done: list[Order] = []
        for order in sorted(self.active, key=lambda o: (o.remaining(step), o.created)):
            if chest.get(order.dish, 0) > self.credited.get(order.dish, 0):
                self.credited[order.dish] = self.credited.get(order.dish, 0) + 1
                done.append(order)
        for order in done:
            self.active.remove(order)
        self.unmatched = {}
        for dish, n in chest.items():
            surplus = n - self.credited.get(dish, 0)
            if dish in self.pool and surplus > 0:
                self.credited[dish] = n
                self.unmatched[dish] = surplus
        self.completed += done
        return done

    def tick(self, step: int) -> list[Order]:
        """Order time reached `step`: expire what ran out, draw when an interval ends. Called once
        per step of order time, so a clock that jumps (a server's own) is walked through."""
        expired = [o for o in self.active if o.remaining(step) <= 0]
        for order in expired:
            self.active.remove(order)
        self.failed += expired
        if step % self.interval == 0:
            self._draw(step)
        return expired

    def _draw(self, step: int) -> None:
        if len(self.active) >= MAX_ACTIVE:
            return
        dish = self.rng.choice(self.dishes)
        if self.crafted and self.craft_rng.random() < CRAFTED_SHARE:
            dish = self.craft_rng.choice(self.crafted)
        self.active.append(Order(dish, step, self.lifetime))
