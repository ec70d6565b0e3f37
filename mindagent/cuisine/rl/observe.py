"""The kitchen as a fixed-length vector in [0, 1], for learning agents.

Layout (all blocks in a fixed order, so a policy can be trained on one level and read back):
time; the order interval (tau's effect, so one policy can serve several taus); per agent its
location (one-hot), what it holds (one-hot over the level's items, plus "nothing") and whether it
is busy; per location its content (one flag per item, a count for serving tables), how long it
stays busy and whether a get would work; per order slot (6) the dish (one-hot), its remaining
lifetime and whether the slot is used; the observing agent's id.

`encode` runs once per environment step, so it reads the engine's live lists
(`World.kitchen_view`), copies a template holding what never changes, writes the few features
that are set into a plain `array` (a Python item write costs a tenth of a NumPy one, and a fancy
write from a list pays for converting the list) and hands NumPy the buffer without copying it.

Example::

    enc = Observer(load_level("level_0"), n_agents=2)
    enc.encode(world, agent=0).shape == (enc.size,)
"""

from __future__ import annotations

from array import array

import numpy as np

from cuisineworld import MAX_ACTIVE_ORDERS, Level, World
from mindagent.cuisine.rl.actions import level_ingredients

SERVED_SCALE = 3.0  # dishes waiting on a serving table: count / 3, clipped to 1
MAX_TAU = 3.0  # the paper's largest tau: intervals are scaled by the interval at this tau


class Observer:
    def __init__(self, level: Level, n_agents: int) -> None:
        self.level = level
        self.n_agents = n_agents
        self.locations = level.location_names
        products = [r.product for r in level.recipes]
        self.items = tuple(dict.fromkeys([*level_ingredients(level), *products, *level.dishes]))
        self.item_index = {name: i for i, name in enumerate(self.items)}
        self.dishes = tuple(dict.fromkeys(level.dishes))
        self.dish_index = {d: k for k, d in enumerate(self.dishes)}
        self.max_cook = max([1, *(loc.cook_time for loc in level.locations)])
        self.max_life = max(1, max(level.lifetimes(MAX_TAU).values()))
        self.max_interval = max(1, level.interval(MAX_TAU))
        n_loc, n_items = len(self.locations), len(self.items)
        self._agent_block = n_loc + n_items + 1 + 1
        self._loc_block = n_items + 2
        self._order_block = len(self.dishes) + 2
        self._agents_at = 2
        self._locs_at = self._agents_at + n_agents * self._agent_block
        self._orders_at = self._locs_at + n_loc * self._loc_block
        self._id_at = self._orders_at + MAX_ACTIVE_ORDERS * self._order_block
        self.size = self._id_at + n_agents
        # held item -> slot in the agent block ("nothing" and items outside the level share the last one)
        self._held_slot: dict[str | None, int] = {name: n_loc + i for i, name in enumerate(self.items)}
        self._held_slot[None] = n_loc + n_items
        locs = level.locations
        # what never changes is written once into a template: storages and serving tables are always gettable
        self._template = array("f", bytes(4 * self.size))
        for j, loc in enumerate(locs):
            if loc.gettable == "always":
                self._template[self._locs_at + j * self._loc_block + n_items + 1] = 1.0
        # per location that can hold things: (index, content offset, busy slot, gettable slot or -1, serving?)
        self._holders = [(j, self._locs_at + j * self._loc_block, self._locs_at + j * self._loc_block + n_items,
                          self._locs_at + j * self._loc_block + n_items + 1 if loc.gettable == "after_activation" else -1,
                          loc.role == "serving")
                         for j, loc in enumerate(locs) if loc.role != "storage"]

    def encode(self, world: World, agent: int | None = None) -> np.ndarray:
        """The vector for `agent` (its id flag set), or without an id when `agent` is None."""
        view = world.kitchen_view()
        out = self._template[:]
        out[0] = min(1.0, world.time / max(1, world.max_steps))
        out[1] = min(1.0, world.interval / self.max_interval)
        held_slot = self._held_slot
        nothing = held_slot[None]
        max_cook = self.max_cook
        base = self._agents_at
        block = self._agent_block
        for a in range(self.n_agents):
            out[base + view.at[a]] = 1.0
            out[base + held_slot.get(view.hold[a], nothing)] = 1.0
            busy = view.agent_busy[a]
            if busy:
                out[base + block - 1] = min(1.0, busy / max_cook)
            base += block
        item_index = self.item_index
        contents, loc_busy, gettable = view.content, view.loc_busy, view.gettable
        for j, offset, busy_slot, get_slot, serving in self._holders:
            content = contents[j]
            if content:
                for item in content:
                    k = item_index.get(item)
                    if k is not None:
                        out[offset + k] = min(1.0, out[offset + k] + 1.0 / SERVED_SCALE) if serving else 1.0
            busy = loc_busy[j]
            if busy:
                out[busy_slot] = min(1.0, busy / max_cook)
            if get_slot >= 0 and gettable[j]:
                out[get_slot] = 1.0
        base = self._orders_at
        n_dishes = len(self.dishes)
        for order in world.orders[:MAX_ACTIVE_ORDERS]:
            out[base + self.dish_index[order.dish]] = 1.0
            out[base + n_dishes + 1] = 1.0
            if order.lifetime > 0:
                out[base + n_dishes] = min(1.0, order.lifetime / self.max_life)
            base += self._order_block
        if agent is not None:
            out[self._id_at + agent] = 1.0
        return np.frombuffer(out, dtype=np.float32)

    def for_agent(self, shared: np.ndarray, agent: int) -> np.ndarray:
        """`shared` (encoded with no agent) with `agent`'s id flag set: one encode serves the team."""
        out = shared.copy()
        out[self._id_at + agent] = 1.0
        return out
