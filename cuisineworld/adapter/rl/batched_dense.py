"""The ``dense`` reward of `rewards.DenseReward`, computed for all the batched kitchens at once.

Trainers use ``dense`` by default, so `mindagent train --vec batched` needs it; it is held to the
single env's reward value for value (`tests/cuisine/rl/test_batched_dense.py` compares every
step's float bit for bit), which fixes how it is computed:

- the per-order credit ledger (which recipe-tree nodes of each open order were already paid for)
  is an array beside the order slots, ``(W, 6 slots, items)``; `BatchedKitchens` moves it with the
  orders when they are settled or inserted, so it is always slot-aligned (a removed order's credit
  goes with it, a new order starts at zero, as the engine's ledger keyed by order id does);
- the terms are added in the single env's order (served and expired, then each agent's outcome
  in execution order, then the fetch potential), one array operation per term, so each
  kitchen's float sum is the same sequence of IEEE operations as the Python loop's;
- an activation is credited from the content of its place after the whole step (what
  `World.location_content` shows the single env's reward), to the most urgent open order whose
  tree still has an unpaid node of the product.

``dense-v1`` (fetches paid from the ledger, the farmed variant) is not computed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cuisineworld import MAX_ACTIVE_ORDERS
from cuisineworld.adapter.rl.rewards import DenseWeights, subtree_counts

if TYPE_CHECKING:
    from cuisineworld.adapter.rl.batched import BatchedKitchens


class BatchedDense:
    """Tables for the dense reward of one `BatchedKitchens`, and the reward of a step."""

    def __init__(self, kitchens: BatchedKitchens, weights: DenseWeights | None = None) -> None:
        self.weights = weights or DenseWeights()
        level, items = kitchens.level, kitchens.items
        index = {name: i for i, name in enumerate(items)}
        # tree node counts per dish; the extra last row is an empty slot (dish -1) and asks for nothing
        self.need = np.zeros((kitchens.n_dishes + 1, kitchens.n_items), dtype=np.int64)
        for d, dish in enumerate(kitchens.dishes):
            for name, count in subtree_counts(level, dish).items():
                self.need[d, index[name]] = count
        trees = {name for dish in kitchens.dishes for name in subtree_counts(level, dish)}
        self.base = np.array([name in trees and level.recipe_for(name) is None for name in items], dtype=bool)
        self.kitchens = kitchens
        n = kitchens.n_worlds
        kitchens._ledger = np.zeros((n, MAX_ACTIVE_ORDERS, kitchens.n_items), dtype=np.int64)
        kitchens._activated = np.full((n, kitchens.n_agents), -1, dtype=np.int64)
        self.stock_last = np.zeros(n, dtype=np.float64)

    def stock(self, rows: np.ndarray | slice) -> np.ndarray:
        """The fetch potential: needed base ingredients held or lying in tools, each worth `fetched`."""
        k = self.kitchens
        hold = k.hold[rows]
        have = np.zeros((hold.shape[0], k.n_items + 1), dtype=np.int64)  # last column: holding nothing
        lines = np.arange(hold.shape[0])
        for a in range(k.n_agents):
            have[lines, hold[:, a]] += 1
        have = have[:, :k.n_items] + ((k.content[rows][:, k.tools, None] >> k.shifts) & 1).sum(axis=1)
        need = self.need[k.order_dish[rows]].sum(axis=1)
        counted = (np.minimum(have, need) * self.base).sum(axis=1)
        return np.asarray(self.weights.fetched * counted)

    def restart(self, rows: np.ndarray) -> None:
        """New episodes in `rows`: nothing paid yet, the potential measured from the first state."""
        self.kitchens._ledger[rows] = 0  # type: ignore[index]
        self.stock_last[rows] = self.stock(rows)

    def reward(self, done: np.ndarray, failed: np.ndarray, accepted: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """The step's reward per kitchen: `done` / `failed` orders in it, `accepted` each command's
        flag in execution order (as the kitchens' `_activated` is), `ended` the kitchens whose
        episode just ran out (their potential drops to 0)."""
        k, w = self.kitchens, self.weights
        ledger, activated = k._ledger, k._activated
        assert ledger is not None and activated is not None
        total = (1.0 + w.served) * done.astype(np.float64) - (1.0 + w.expired) * failed.astype(np.float64)
        for p in range(k.n_agents):
            total = np.where(accepted[:, p], total, total - w.refused)
            place = activated[:, p]
            hit = np.flatnonzero(place >= 0)
            if hit.size:
                content = k.content[hit, place[hit]]
                single = (content != 0) & ((content & (content - 1)) == 0)
                hit, content = hit[single], content[single]
                item = np.log2(content).astype(np.int64)
                paid = ledger[hit, :, item]  # (kitchens, slots)
                owed = paid < self.need[k.order_dish[hit], item[:, None]]  # the empty slots owe nothing
                has = owed.any(axis=1)
                hit, item, slot = hit[has], item[has], owed[has].argmax(axis=1)  # the most urgent order owed
                ledger[hit, slot, item] += 1
                credited = np.zeros(k.n_worlds, dtype=bool)
                credited[hit] = True
                total = np.where(credited, total + w.made, total)
        now = np.where(ended, 0.0, self.stock(slice(None)))
        total = total + (k.gamma * now - self.stock_last)
        self.stock_last = now
        return np.asarray(total)
