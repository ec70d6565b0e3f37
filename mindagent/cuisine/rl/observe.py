"""The kitchen as a fixed-length vector in [0, 1], for learning agents.

Layout (all blocks in a fixed order, so a policy can be trained on one level and read back):
time; per agent its location (one-hot), what it holds (one-hot over the level's items, plus
"nothing") and whether it is busy; per location its content (one flag per item, a count for
serving tables), how long it stays busy and whether a get would work; per order slot (6) the
dish (one-hot), its remaining lifetime and whether the slot is used; the observing agent's id.

Example::

    enc = Observer(load_level("level_0"), n_agents=2)
    enc.encode(world, agent=0).shape == (enc.size,)
"""

from __future__ import annotations

import numpy as np

from cuisineworld import MAX_ACTIVE_ORDERS, Level, World
from mindagent.cuisine.rl.actions import level_ingredients

SERVED_SCALE = 3.0  # dishes waiting on a serving table: count / 3, clipped to 1


class Observer:
    def __init__(self, level: Level, n_agents: int) -> None:
        self.level = level
        self.n_agents = n_agents
        self.locations = level.location_names
        products = [r.product for r in level.recipes]
        self.items = tuple(dict.fromkeys([*level_ingredients(level), *products, *level.dishes]))
        self.item_index = {name: i for i, name in enumerate(self.items)}
        self.dishes = tuple(dict.fromkeys(level.dishes))
        self.max_cook = max([1, *(loc.cook_time for loc in level.locations)])
        self.max_life = max(1, max(level.lifetimes(3.0).values()))
        n_loc, n_items = len(self.locations), len(self.items)
        self._agent_block = n_loc + n_items + 1 + 1
        self._loc_block = n_items + 2
        self._order_block = len(self.dishes) + 2
        self.size = (1 + n_agents * self._agent_block + n_loc * self._loc_block
                     + MAX_ACTIVE_ORDERS * self._order_block + n_agents)

    def encode(self, world: World, agent: int | None = None) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        out[0] = min(1.0, world.time / max(1, world.max_steps))
        i = 1
        n_items = len(self.items)
        loc_index = {name: j for j, name in enumerate(self.locations)}
        for a in range(self.n_agents):
            out[i + loc_index[world.agent_location(a)]] = 1.0
            held = world.agent_holding(a)
            slot = self.item_index.get(held, n_items) if held is not None else n_items
            out[i + len(self.locations) + slot] = 1.0
            out[i + len(self.locations) + n_items + 1] = min(1.0, world.agent_busy(a) / self.max_cook)
            i += self._agent_block
        for name in self.locations:
            serving = self.level.locations[loc_index[name]].role == "serving"
            for item in world.location_content(name):
                j = self.item_index.get(item)
                if j is None:
                    continue
                out[i + j] = min(1.0, out[i + j] + 1.0 / SERVED_SCALE) if serving else 1.0
            out[i + n_items] = min(1.0, world.location_busy(name) / self.max_cook)
            out[i + n_items + 1] = 1.0 if world.location_gettable(name) else 0.0
            i += self._loc_block
        dish_index = {d: k for k, d in enumerate(self.dishes)}
        for k, order in enumerate(world.orders[:MAX_ACTIVE_ORDERS]):
            base = i + k * self._order_block
            out[base + dish_index[order.dish]] = 1.0
            out[base + len(self.dishes)] = min(1.0, max(0, order.lifetime) / self.max_life)
            out[base + len(self.dishes) + 1] = 1.0
        i += MAX_ACTIVE_ORDERS * self._order_block
        if agent is not None:
            out[i + agent] = 1.0
        return out
