"""The kitchen as a fixed-length vector in [0, 1], for learning agents.

Layout (all blocks in a fixed order, so a policy can be trained on one level and read back):
time; the order interval (tau's effect, so one policy can serve several taus); per agent its
location (one-hot), what it holds (one-hot over the level's items, plus "nothing") and whether it
is busy; per location its content (one flag per item, a count for serving tables), how long it
stays busy and whether a get would work; per order slot (6) the dish (one-hot), its remaining
lifetime and whether the slot is used; the observing agent's id. `feature_names` spells that
layout entry by entry (``"agent0.holds.tomato"``, ``"order2.lifetime"``, ...); the first
`state_size` entries (all but the id) are the centralised state the parallel env's `state()` gives.

`encode` runs once per environment step, so it reads the engine's live lists
(`World.kitchen_view`), copies a template holding what never changes (per episode length and
interval), writes the few features that are set into a plain `array` (a Python item write costs a
tenth of a NumPy one, and a fancy write from a list pays for converting the list) at absolute
slots and with scaled values looked up in tables built once per level, and hands NumPy the buffer
without copying it.

Example::

    enc = Observer(load_level("level_0"), n_agents=2)
    enc.encode(world, agent=0).shape == (enc.size,)
"""

from __future__ import annotations

from array import array

import numpy as np

from cuisineworld import MAX_ACTIVE_ORDERS, Level, World
from cuisineworld.adapter.rl.actions import level_ingredients

SERVED_SCALE = 3.0  # dishes waiting on a serving table: count / 3, clipped to 1
MAX_TAU = 3.0  # the paper's largest tau: intervals are scaled by the interval at this tau
_F32 = np.dtype(np.float32)  # passed positionally: NumPy parses a dtype keyword slower than the call itself


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
        self.state_size = self._id_at  # the kitchen without the observer's id: the centralised state
        self.feature_names = self._names()
        # held item -> slot in the agent block ("nothing" and items outside the level share the last one)
        self._held_slot: dict[str | None, int] = {name: n_loc + i for i, name in enumerate(self.items)}
        self._held_slot[None] = n_loc + n_items
        locs = level.locations
        # what never changes is written once into a template: storages and serving tables are always gettable
        self._template = array("f", bytes(4 * self.size))
        for j, loc in enumerate(locs):
            if loc.gettable == "always":
                self._template[self._locs_at + j * self._loc_block + n_items + 1] = 1.0
        # busy counters are bounded by the longest cook time: their scaled values, looked up
        self._busy_value = [min(1.0, b / self.max_cook) for b in range(self.max_cook + 1)]
        # per agent, absolute slots: (first location slot, held item -> slot, the "nothing" slot, busy slot)
        self._agent_rows = []
        for a in range(n_agents):
            base = self._agents_at + a * self._agent_block
            held = {name: base + slot for name, slot in self._held_slot.items()}
            self._agent_rows.append((base, held, base + n_loc + n_items, base + self._agent_block - 1))
        # per tool, absolute slots: (index, item -> content slot, busy slot, gettable slot or -1)
        self._tools = [(j, {name: self._locs_at + j * self._loc_block + k for k, name in enumerate(self.items)},
                        self._locs_at + j * self._loc_block + n_items,
                        self._locs_at + j * self._loc_block + n_items + 1 if loc.gettable == "after_activation" else -1)
                       for j, loc in enumerate(locs) if loc.role == "tool"]
        # serving tables count their dishes: (index, content offset, busy slot)
        self._serving = [(j, self._locs_at + j * self._loc_block, self._locs_at + j * self._loc_block + n_items)
                         for j, loc in enumerate(locs) if loc.role == "serving"]
        # remaining lifetimes up to the longest at MAX_TAU (longer ones, at a larger tau, read 1)
        self._life_value = [min(1.0, life / self.max_life) for life in range(self.max_life + 1)]
        self._heads: dict[tuple[int, int], tuple[list[float], array[float]]] = {}
        n_dishes = len(self.dishes)
        # per order slot: (dish -> slot, lifetime slot, used slot)
        self._order_rows = [({d: self._orders_at + s * self._order_block + k for d, k in self.dish_index.items()},
                             self._orders_at + s * self._order_block + n_dishes,
                             self._orders_at + s * self._order_block + n_dishes + 1)
                            for s in range(MAX_ACTIVE_ORDERS)]

    def _names(self) -> tuple[str, ...]:
        """One dotted name per vector entry, in layout order, so a reader (or a saliency plot) can
        tell what entry k means for this level and team without counting blocks by hand."""
        names = ["time", "interval"]
        for a in range(self.n_agents):
            names += [f"agent{a}.at.{loc}" for loc in self.locations]
            names += [f"agent{a}.holds.{item}" for item in self.items]
            names += [f"agent{a}.holds.nothing", f"agent{a}.busy"]
        for loc in self.locations:
            names += [f"{loc}.has.{item}" for item in self.items]
            names += [f"{loc}.busy", f"{loc}.gettable"]
        for slot in range(MAX_ACTIVE_ORDERS):
            names += [f"order{slot}.dish.{dish}" for dish in self.dishes]
            names += [f"order{slot}.lifetime", f"order{slot}.used"]
        names += [f"id.agent{a}" for a in range(self.n_agents)]
        if len(names) != self.size:  # the names are the layout's second description: they must agree
            raise RuntimeError(f"{len(names)} feature names for {self.size} features")
        return tuple(names)

    def encode(self, world: World, agent: int | None = None) -> np.ndarray:
        """The vector for `agent` (its id flag set), or without an id when `agent` is None."""
        at, hold, agent_busy, contents, loc_busy, gettable = world.kitchen_view()
        head = self._heads.get((world.max_steps, world.interval))
        if head is None:
            head = self._head_for(world.max_steps, world.interval)
        out = head[1][:]
        times = head[0]
        t = world.time
        out[0] = times[t] if t < len(times) else 1.0
        busy_value = self._busy_value
        for place, held, busy, (base, held_slot, nothing, busy_slot) in zip(
                at, hold, agent_busy, self._agent_rows, strict=True):
            out[base + place] = 1.0
            out[held_slot.get(held, nothing)] = 1.0
            if busy:
                out[busy_slot] = busy_value[busy]
        for j, slots, busy_slot, get_slot in self._tools:
            content = contents[j]
            if not content:  # the rules keep an empty tool idle and not gettable: only activation sets
                continue     # either, and it leaves the product inside until a get empties the tool
            for item in content:
                k = slots.get(item)
                if k is not None:
                    out[k] = 1.0
            busy = loc_busy[j]
            if busy:
                out[busy_slot] = busy_value[busy]
            if get_slot >= 0 and gettable[j]:
                out[get_slot] = 1.0
        if self._serving:
            item_index = self.item_index
            for j, offset, busy_slot in self._serving:
                for item in contents[j]:
                    k = item_index.get(item)
                    if k is not None:  # the float32 sum of thirds, as written one dish at a time
                        out[offset + k] = min(1.0, out[offset + k] + 1.0 / SERVED_SCALE)
                busy = loc_busy[j]
                if busy:
                    out[busy_slot] = busy_value[busy]
        life_value = self._life_value
        top = len(life_value) - 1
        for order, (dish_slot, life_slot, used_slot) in zip(world.orders_view(), self._order_rows, strict=False):  # at most 6 orders
            out[dish_slot[order.dish]] = 1.0
            out[used_slot] = 1.0
            life = order.lifetime
            if life > 0:
                out[life_slot] = life_value[life] if life < top else 1.0
        if agent is not None:
            out[self._id_at + agent] = 1.0
        return np.frombuffer(out, _F32)

    def _head_for(self, max_steps: int, interval: int) -> tuple[list[float], array[float]]:
        """The time feature per step and a template with the interval written, for one episode length and tau."""
        times = [min(1.0, t / max(1, max_steps)) for t in range(max_steps + 1)]
        template = self._template[:]
        template[1] = min(1.0, interval / self.max_interval)
        head = self._heads[(max_steps, interval)] = (times, template)
        return head

    def for_agent(self, shared: np.ndarray, agent: int) -> np.ndarray:
        """`shared` (encoded with no agent) with `agent`'s id flag set: one encode serves the team."""
        out = shared.copy()
        out[self._id_at + agent] = 1.0
        return out
