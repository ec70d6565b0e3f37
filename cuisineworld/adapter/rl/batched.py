"""Many CuisineWorld kitchens stepped at once: the rules of `cuisineworld` over NumPy arrays.

A trainer that wants thousands of environment steps a second pays, with one `World` per env, a
Python round trip per kitchen per step. `BatchedKitchens` keeps the state of W kitchens of one
level as arrays (agents by world, locations by world, the order list by world) and runs one joint
action per kitchen in a few dozen array operations per agent, so the cost per kitchen falls as W
grows (at one kitchen it is far slower than the engine; it overtakes it between 10 and 100).

It is a second implementation of the rules, so it is held to the engine, not trusted:
`tests/cuisine/rl/test_batched.py` plays thousands of planner, random legal and random illegal
joint actions on ten levels under both rule sets and compares every step with W `CuisineJointEnv`s
(the engine): observation, masks, reward, accepted commands, score and episode ends. Kitchen i is
exactly ``CuisineJointEnv(...).reset(seed=seed + i)`` followed by seedless resets (what
vector-env wrappers do), order streams and tau draws included.

How the state is held:

- an item is an index into `Observer.items` (every item an action can produce); a tool's content
  is a bitmask of items (the engine never holds two copies of an item in a tool), a serving
  table's content is a count per dish;
- the open orders are six slots per kitchen kept in the engine's urgency order (lifetime, dish
  name, id): every lifetime drops by one each step, so the order only changes where an order
  arrives, and that one is inserted at its place;
- each kitchen has an order stream per tau, as the single env has a `World` per tau: Python's
  `random.Random` seeds it and hands its MT19937 state to NumPy, which yields the same 32-bit words
  64 at a time; dishes are taken from them exactly as `Random.choice` takes them, and only the
  kitchens whose buffer ran dry go back to the generator;
- masks: only the agent's own place can offer a get, put or activation, so an agent's legal set
  is fixed by its place and five flags, and one precomputed row per (place, flags) is looked up.

Execution order: ``"agent"`` or ``"shuffle"`` (each kitchen draws its permutation from its own
generator, as the single env does: a Python loop over kitchens per step). Rewards: ``sparse``,
``potential`` and ``dense`` (`batched_dense`, value for value the single env's; not ``dense-v1``).
Limits: levels with at most 62 distinct items, without counters or per-agent reach. Memory: each
kitchen keeps a generator (about 6 kB) per tau it has played, so 10,000 kitchens over the five
paper taus hold about 300 MB of them.

Example::

    kitchens = BatchedKitchens("level_3", n_agents=2, n_worlds=1000)
    obs, masks = kitchens.reset(seed=0)            # (1000, obs size), (1000, 2, actions)
    step = kitchens.step(np.zeros((1000, 2), dtype=np.int64))
    step.obs, step.rewards, step.dones, step.accepted
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from cuisineworld import MAX_ACTIVE_ORDERS, Level, load_level
from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.batched_dense import BatchedDense
from cuisineworld.adapter.rl.observe import SERVED_SCALE, Observer
from cuisineworld.adapter.rl.rewards import PROGRESS_WEIGHT, subtree_counts

try:  # Gymnasium 1.1 and later name the autoreset modes; 1.0 knew only its default
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: object = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - gymnasium 1.0
    _SAME_STEP = "SameStep"

BATCHED_REWARDS = ("sparse", "potential", "dense")
BATCHED_ORDERS = ("agent", "shuffle")
MAX_ITEMS = 62  # a tool's content is an int64 bitmask
_RAW_WORDS = 256  # 32-bit words taken from an order stream at a time (refills are a Python loop over kitchens)

_STORAGE, _SERVING, _TOOL = 0, 1, 2
_NOOP, _GOTO, _GET, _PUT, _ACTIVATE = 0, 1, 2, 3, 4
_VERB_CODES = {"noop": _NOOP, "goto": _GOTO, "get": _GET, "put": _PUT, "activate": _ACTIVATE}
_ROLE_CODES = {"storage": _STORAGE, "serving": _SERVING, "tool": _TOOL}


def _python_stream(seed: int) -> np.random.MT19937:
    """The order generator `World` gets from ``random.Random(seed)``, as a NumPy bit generator.

    Both are MT19937: Python seeds it and hands over its state, and NumPy then yields the same
    32-bit words in bulk, from which `_draw` takes dishes exactly as `Random.choice` does."""
    _, internal, _ = random.Random(seed).getstate()
    stream = np.random.MT19937(0)
    stream.state = {"bit_generator": "MT19937", "state": {"key": np.array(internal[:624], dtype=np.uint32),
                                                         "pos": internal[624]}}
    return stream


def _popcount(x: np.ndarray, bits: int) -> np.ndarray:
    count = getattr(np, "bitwise_count", None)
    if count is not None:
        return np.asarray(count(x), dtype=np.int64)
    out = np.zeros(x.shape, dtype=np.int64)
    for i in range(bits):
        out += (x >> i) & 1
    return out


@dataclass(frozen=True, slots=True)
class BatchStep:
    """What one call of `BatchedKitchens.step` returns (arrays over kitchens).

    `obs` and `masks` are of the kitchens' current state: for a kitchen whose episode ended in this
    step that is the first state of its next episode, and the last state of the ended one is in
    `final_obs` (rows of the other kitchens are zeros)."""

    obs: np.ndarray  # (W, obs size) float32
    masks: np.ndarray  # (W, n_agents, actions) int8 0/1, as `ActionTable.masks`
    rewards: np.ndarray  # (W,) float64
    dones: np.ndarray  # (W,) bool: the episode hit its step budget (a truncation; there is no other end)
    accepted: np.ndarray  # (W, n_agents) bool: each agent's command was carried out
    final_obs: np.ndarray | None  # (W, obs size) or None when no episode ended
    final_counts: np.ndarray | None  # (W, 3) completed, failed, active orders of the ended episodes


class BatchedKitchens:
    """W kitchens of one level, rule set and team, stepped together (see the module doc)."""

    def __init__(self, level: str | Level, n_agents: int, n_worlds: int, tau: float | Sequence[float] = 1.0,
                 rules: str = "reference", max_steps: int | None = None, reward: str = "sparse",
                 order: str = "agent", gamma: float = 0.99) -> None:
        if n_worlds < 1:
            raise ValueError("at least one kitchen")
        if n_agents < 1:
            raise ValueError("a kitchen needs at least one agent")
        if order not in BATCHED_ORDERS:
            raise ValueError(f"the batched env runs commands in {' or '.join(BATCHED_ORDERS)} order, not {order!r}")
        if reward not in BATCHED_REWARDS:
            raise ValueError(f"the batched env computes the rewards {', '.join(BATCHED_REWARDS)}, not {reward!r} "
                             "(use the single env, --vec single)")
        compiled = level if isinstance(level, Level) else load_level(level, rules)
        taus = [float(tau)] if isinstance(tau, int | float) else [float(t) for t in tau]
        if not taus or any(t <= 0 for t in taus):
            raise ValueError("give at least one positive tau")
        self.level = compiled
        self.rules = compiled.rules
        self.n_agents = n_agents
        self.n_worlds = n_worlds
        self.taus = taus
        self.max_steps = compiled.max_steps if max_steps is None else max_steps
        self.reward_name = reward
        self.shuffle = order == "shuffle" and n_agents > 1
        self.gamma = gamma
        self.table = ActionTable(compiled, n_agents)
        self.observer = Observer(compiled, n_agents)
        self._compile_level()
        self._compile_actions()
        self._compile_observation()
        self._compile_orders()
        if reward == "potential":
            self._compile_potential()
        self._rows = np.arange(n_worlds)
        self._row_starts = (self._rows * self.obs_size)[:, None]
        self._alloc()
        self._dense = BatchedDense(self) if reward == "dense" else None
        self._generators: list[np.random.Generator] = []
        self._streams: dict[tuple[int, int], np.random.MT19937] = {}
        self._started = False
        #: Training only (`curriculum.DishCurriculum`): given the kitchens and the dishes just drawn
        #: for `rows`, the dishes to order instead. None (the default) leaves the engine's stream.
        self.order_filter: Callable[[BatchedKitchens, np.ndarray, np.ndarray], np.ndarray] | None = None

    # ------------------------------------------------------------- compiling
    def _compile_level(self) -> None:
        level, obs = self.level, self.observer
        self.items = obs.items
        self.n_items = k = len(self.items)
        if k > MAX_ITEMS:
            raise ValueError(f"{level.name} has {k} items; the batched env holds at most {MAX_ITEMS}")
        item = obs.item_index
        locs = level.locations
        if any(loc.role not in _ROLE_CODES for loc in locs) or level.team_profiles(self.n_agents) is not None:
            raise ValueError(f"{level.name} has counters or per-agent reach, which the batched env does not model "
                             "yet; use the single env (CuisineJointEnv)")
        self.n_locs = m = len(locs)
        self.role = np.array([_ROLE_CODES[loc.role] for loc in locs], dtype=np.int64)
        types = sorted({loc.type for loc in locs})
        type_id = {t: i for i, t in enumerate(types)}
        self.type_of = np.array([type_id[loc.type] for loc in locs], dtype=np.int64)
        self.cap = np.array([loc.capacity for loc in locs], dtype=np.int64)
        self.cook = np.array([loc.cook_time for loc in locs], dtype=np.int64)
        self.watch = np.array([loc.operator_busy for loc in locs], dtype=bool)
        self.always = np.array([loc.gettable == "always" for loc in locs], dtype=bool)
        self.after = np.array([loc.gettable == "after_activation" for loc in locs], dtype=bool)
        self.start = next(j for j, loc in enumerate(locs) if loc.role == "serving")
        self.serving = [j for j, loc in enumerate(locs) if loc.role == "serving"]
        self.serving_capped = any(self.cap[j] != -1 for j in self.serving)
        self.serving_slot = np.full(m, 0, dtype=np.int64)
        for s, j in enumerate(self.serving):
            self.serving_slot[j] = s
        self.dishes = obs.dishes
        self.n_dishes = len(self.dishes)
        self.dish_item = np.array([item[d] for d in self.dishes], dtype=np.int64)
        # item -> dish index, -1 for items no order asks for (the serving table refuses them)
        self.item_dish = np.full(k + 1, -1, dtype=np.int64)
        for d, name in enumerate(self.dishes):
            self.item_dish[item[name]] = d
        # recipes as (tool type, content bitmask, product); a recipe naming an ingredient twice can
        # never be made (a tool holds one copy of an item), as in the engine
        self.recipes: list[tuple[int, int, int]] = []
        self.combos: list[tuple[int, int]] = []
        for r in level.recipes:
            if r.tool not in type_id:
                continue
            mask = 0
            for i in r.ingredients:
                mask |= 1 << item[i]
            self.combos.append((type_id[r.tool], mask))
            if len(set(r.ingredients)) == len(r.ingredients):
                self.recipes.append((type_id[r.tool], mask, item[r.product]))
        # the same per tool type, padded: (types, most combos) masks, products (-1: none) and validity
        width = max([1, *(sum(1 for t, _ in self.combos if t == kind) for kind in range(len(types)))])
        self.combo_mask = np.zeros((len(types), width), dtype=np.int64)
        self.combo_valid = np.zeros((len(types), width), dtype=bool)
        self.combo_product = np.full((len(types), width), -1, dtype=np.int64)
        filled = [0] * len(types)
        makes = {(tool, mask): product for tool, mask, product in self.recipes}
        for tool, mask in self.combos:
            c = filled[tool]
            filled[tool] += 1
            self.combo_mask[tool, c], self.combo_valid[tool, c] = mask, True
            self.combo_product[tool, c] = makes.get((tool, mask), -1)
        # with few items, both as tables over (tool type << items | content): the product (or -1), and
        # the items a put may add (every combo holding the content lends its ingredients)
        self._product_table: np.ndarray | None = None
        self._allowed_table: np.ndarray | None = None
        if k <= 14:
            self._product_table = np.full(len(types) << k, -1, dtype=np.int64)
            self._allowed_table = np.zeros(len(types) << k, dtype=np.int64)
            for tool, mask, product in self.recipes:
                self._product_table[(tool << k) | mask] = product
            for tool, mask in self.combos:
                sub = mask
                while True:  # every content this combo can still grow from: the submasks of its mask
                    self._allowed_table[(tool << k) | sub] |= mask
                    if sub == 0:
                        break
                    sub = (sub - 1) & mask
        self.duplicate_refused = self.rules.duplicate_put == "refuse"
        self.serve_needs_order = not self.rules.serve_without_order

    def _compile_actions(self) -> None:
        table, item = self.table, self.observer.item_index
        index = self.level.location_index
        size = self.n_actions = table.size
        self.a_verb = np.array([_VERB_CODES[v] for v, _, _ in table.templates], dtype=np.int64)
        self.a_loc = np.array([index[loc] if loc is not None else 0 for _, loc, _ in table.templates], dtype=np.int64)
        self.a_item = np.array([item[b] if b is not None else -1 for _, _, b in table.templates], dtype=np.int64)
        m, sink = self.n_locs, size  # column `size` of an agent's mask row takes "no such action"
        self.goto_cols = np.array([i for i, (v, _, _) in enumerate(table.templates) if v == "goto"], dtype=np.int64)
        self.put_col = np.full(m, sink, dtype=np.int64)
        self.tool_get_col = np.full(m, sink, dtype=np.int64)
        self.activate_col = np.full(m, sink, dtype=np.int64)
        gets: list[list[int]] = [[] for _ in range(m)]
        for i, (verb, loc, ingredient) in enumerate(table.templates):
            if loc is None:
                continue
            j = index[loc]
            if verb == "put":
                self.put_col[j] = i
            elif verb == "activate":
                self.activate_col[j] = i
            elif verb == "get" and ingredient is None:
                self.tool_get_col[j] = i
            elif verb == "get":
                gets[j].append(i)
        width = max(1, max(len(g) for g in gets))
        self.storage_get_cols = np.full((m, width), sink, dtype=np.int64)
        for j, cols in enumerate(gets):
            self.storage_get_cols[j, :len(cols)] = cols

        self._mask_rows = self._build_mask_rows()
        self._compile_flag_table()

    def _compile_observation(self) -> None:
        obs = self.observer
        k = self.n_items
        self.busy_value = np.array(obs._busy_value, dtype=np.float64)
        self.life_value = np.array(obs._life_value, dtype=np.float64)
        # a serving table's dish count as `Observer.encode` writes it: thirds summed in float32, capped at 1
        served = [0.0]
        value = np.float32(0.0)
        while float(value) < 1.0:
            value = np.float32(min(1.0, float(value) + 1.0 / SERVED_SCALE))
            served.append(float(value))
        self.served_value = np.array(served, dtype=np.float32)
        self.agents_at, self.agent_block = obs._agents_at, obs._agent_block
        self.locs_at, self.loc_block = obs._locs_at, obs._loc_block
        self.orders_at, self.order_block = obs._orders_at, obs._order_block
        self.obs_size = obs.size
        self.tools = np.array([j for j in range(self.n_locs) if self.role[j] == _TOOL], dtype=np.int64)
        self.after_locs = np.flatnonzero(self.after)
        self.always_locs = np.flatnonzero(self.always)
        self.shifts = np.arange(k, dtype=np.int64)
        agents = np.arange(self.n_agents, dtype=np.int64)
        self._agent_bases = self.agents_at + agents * self.agent_block
        self._held_bases = self._agent_bases + self.n_locs
        self._agent_busy_cols = self._agent_bases + self.agent_block - 1
        slots = np.arange(MAX_ACTIVE_ORDERS, dtype=np.int64)
        self._order_bases = self.orders_at + slots * self.order_block
        self._order_life_cols = self._order_bases + self.n_dishes
        self._order_used_cols = self._order_bases + self.n_dishes + 1
        self._id_at = obs._id_at
        self._compile_blocks()

    def _compile_blocks(self) -> None:
        """The observation's blocks as tables, one row per value of what the block depends on.

        Agent block: (place, held item or nothing, busy) -> location one-hot, held one-hot, busy.
        Location block: (content bitmask, busy, gettable flag) -> item flags, busy, gettable; only
        for levels whose table stays small (up to about a million floats), others unpack the bits.
        Order block: (dish or empty, lifetime clipped at the longest one scaled) -> dish one-hot,
        lifetime, used."""
        k, m, b = self.n_items, self.n_locs, len(self.busy_value)
        self.n_busy = b
        place, held, busy = np.meshgrid(np.arange(m), np.arange(k + 1), np.arange(b), indexing="ij")
        rows = np.zeros((m * (k + 1) * b, self.agent_block), dtype=np.float32)
        index = np.arange(rows.shape[0])
        rows[index, place.reshape(-1)] = 1.0  # held k+1 (the code's hold + 1 = 0) is "nothing": slot m + k
        rows[index, m + (held.reshape(-1) - 1) % (k + 1)] = 1.0
        rows[:, -1] = self.busy_value[busy.reshape(-1)]
        self._agent_rows_table = rows
        self._loc_rows_table: np.ndarray | None = None
        if (2 ** k) * b * 2 * self.loc_block <= 1 << 20:
            content, busy, flag = np.meshgrid(np.arange(2 ** k, dtype=np.int64), np.arange(b), np.arange(2),
                                              indexing="ij")
            table = np.zeros((content.size, self.loc_block), dtype=np.float32)
            table[:, :k] = (content.reshape(-1, 1) >> np.arange(k)) & 1
            table[:, k] = self.busy_value[busy.reshape(-1)]
            table[:, k + 1] = flag.reshape(-1)
            self._loc_rows_table = table
        top = len(self.life_value) - 1
        self.n_lives = top + 1
        table = np.zeros(((self.n_dishes + 1) * self.n_lives, self.order_block), dtype=np.float32)
        for d in range(self.n_dishes):
            for life in range(self.n_lives):
                row = table[(d + 1) * self.n_lives + life]
                row[d] = 1.0
                row[self.n_dishes] = 0.0 if life <= 0 else (1.0 if life >= top else self.life_value[life])
                row[self.n_dishes + 1] = 1.0
        self._order_rows_table = table

    def _compile_orders(self) -> None:
        level = self.level
        self.draw_dish = np.array([self.dishes.index(d) for d in level.dishes], dtype=np.int64)
        # `random.Random.choice` over n dishes takes the top bits of 32-bit words, rejecting values >= n
        self.draw_shift = 32 - len(level.dishes).bit_length()
        self.draw_count = len(level.dishes)
        ranks = sorted(range(self.n_dishes), key=lambda d: self.dishes[d])
        self.name_rank = np.empty(self.n_dishes, dtype=np.int64)
        for r, d in enumerate(ranks):
            self.name_rank[d] = r
        self.intervals = np.array([level.interval(t) for t in self.taus], dtype=np.int64)
        self.lifetimes = np.array([[level.lifetime(d, t) for d in self.dishes] for t in self.taus], dtype=np.int64)
        self.interval_value = np.array([min(1.0, int(i) / self.observer.max_interval) for i in self.intervals])
        self.time_value = np.array([min(1.0, t / max(1, self.max_steps)) for t in range(self.max_steps + 1)])
        self.draw_buffer = _RAW_WORDS

    def _compile_potential(self) -> None:
        """`rewards.RecipeProgress` as a matrix: phi = scale * sum(min(have, need) * subtree size)."""
        level, item = self.level, self.observer.item_index
        trees = {dish: subtree_counts(level, dish) for dish in self.dishes}
        self.need = np.zeros((self.n_dishes + 1, self.n_items), dtype=np.int64)  # last row: an empty slot
        for d, dish in enumerate(self.dishes):
            for name, count in trees[dish].items():
                self.need[d, item[name]] = count
        sizes = {name: sum(subtree_counts(level, name).values()) for tree in trees.values() for name in tree}
        self.node_size = np.array([sizes.get(name, 0) for name in self.items], dtype=np.int64)
        self.phi_scale = PROGRESS_WEIGHT / max(sizes[d] for d in self.dishes)

    # ------------------------------------------------------------------ state
    def _alloc(self) -> None:
        w, n, m, o = self.n_worlds, self.n_agents, self.n_locs, MAX_ACTIVE_ORDERS
        self.at = np.full((w, n), self.start, dtype=np.int64)
        self.hold = np.full((w, n), -1, dtype=np.int64)
        self.agent_busy = np.zeros((w, n), dtype=np.int64)
        self.content = np.zeros((w, m), dtype=np.int64)  # tools: item bitmask
        self.served = np.zeros((w, len(self.serving), self.n_dishes), dtype=np.int64)  # serving tables
        self.loc_busy = np.zeros((w, m), dtype=np.int64)
        self.gettable = np.zeros((w, m), dtype=bool)
        self.order_dish = np.full((w, o), -1, dtype=np.int64)
        self.order_life = np.zeros((w, o), dtype=np.int64)
        self.order_id = np.zeros((w, o), dtype=np.int64)
        self.time = np.zeros(w, dtype=np.int64)
        self.timer = np.zeros(w, dtype=np.int64)
        self.next_id = np.zeros(w, dtype=np.int64)
        self.completed = np.zeros(w, dtype=np.int64)
        self.failed = np.zeros(w, dtype=np.int64)
        self.tau_index = np.zeros(w, dtype=np.int64)
        self.interval = np.zeros(w, dtype=np.int64)  # the order interval of each kitchen's tau
        self._asked = np.zeros((w, self.n_dishes), dtype=np.int64)
        self._ledger: np.ndarray | None = None  # the dense reward's credits paid per order slot and item
        self.seeded = np.zeros((w, len(self.taus)), dtype=bool)
        small = np.int8 if len(self.level.dishes) < 128 else np.int32  # a draw is an index into the level's dish list
        self.draws = np.zeros((w, len(self.taus), self.draw_buffer), dtype=small)
        self.draw_at = np.zeros((w, len(self.taus)), dtype=np.int64)
        self.draw_len = np.zeros((w, len(self.taus)), dtype=np.int64)  # buffered draws; empty when draw_at reaches it
        self.phi_last = np.zeros(w, dtype=np.float64)
        self._activated: np.ndarray | None = None  # set by the dense reward: activated place per agent

    # ---------------------------------------------------------------- episodes
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every kitchen starts an episode; kitchen i is seeded with ``seed + i`` (None: fresh entropy)."""
        seeds = [None if seed is None else seed + i for i in range(self.n_worlds)]
        self._generators = [seeding.np_random(s)[0] for s in seeds]
        self._streams = {}
        self.seeded[:] = False
        self.draw_at[:] = 0
        self.draw_len[:] = 0
        self._reset_worlds(self._rows, seeds)
        self._count_asked()
        self._started = True
        return self.observe(), self.masks()

    def _reset_worlds(self, rows: np.ndarray, seeds: Sequence[int | None] | None = None) -> None:
        """`KitchenCore.reset` for each of `rows`: draw the tau, seed its stream on first use, clear."""
        n_taus = len(self.taus)
        if n_taus == 1 and seeds is None:  # no tau to draw: only kitchens never seeded need their generator
            self.tau_index[rows] = 0
            rows, everyone = rows[~self.seeded[rows, 0]], rows
        else:
            everyone = rows
        for pos, w in enumerate(rows.tolist()):
            rng = self._generators[w]
            k = int(rng.integers(n_taus)) if n_taus > 1 else 0
            seed = None if seeds is None else seeds[pos]
            if seed is None and not self.seeded[w, k]:
                seed = int(rng.integers(2**31 - 1))
            if seed is not None:
                self.seeded[w, k] = True
                self._streams[(w, k)] = _python_stream(seed)
                self.draw_at[w, k] = self.draw_len[w, k] = 0  # the buffered draws were of the old stream
            self.tau_index[w] = k
        rows = everyone
        sel: slice | np.ndarray = slice(None) if rows.size == self.n_worlds else rows
        self.interval[sel] = self.intervals[self.tau_index[sel]]
        self.at[sel] = self.start
        self.hold[sel] = -1
        self.agent_busy[sel] = 0
        self.content[sel] = 0
        self.served[sel] = 0
        self.loc_busy[sel] = 0
        self.gettable[sel] = False
        self.order_dish[sel] = -1
        self.order_life[sel] = 0
        self.order_id[sel] = 0
        self.time[sel] = 0
        self.timer[sel] = 0
        self.next_id[sel] = 0
        self.completed[sel] = 0
        self.failed[sel] = 0
        self._arrive(rows)
        if self.reward_name == "potential":
            self.phi_last[rows] = self._phi(rows)
        if self._dense is not None:
            self._dense.restart(rows)

    def _draw(self, rows: np.ndarray) -> np.ndarray:
        """The next dish of each row's current order stream (refilling buffers in Python as needed)."""
        k = self.tau_index[rows]
        empty = rows[self.draw_at[rows, k] >= self.draw_len[rows, k]]
        if empty.size:
            shift, count = self.draw_shift, self.draw_count
            for w in empty.tolist():
                tau = int(self.tau_index[w])
                stream = self._streams[(w, tau)]
                drawn: np.ndarray = np.zeros(0, dtype=np.uint64)
                while not drawn.size:  # one dish would take 256 unlucky words in a row to come back empty
                    drawn = stream.random_raw(_RAW_WORDS) >> shift
                    drawn = drawn[drawn < count]
                self.draws[w, tau, :drawn.size] = drawn
                self.draw_at[w, tau], self.draw_len[w, tau] = 0, drawn.size
        at = self.draw_at[rows, k]
        drawn = self.draws[rows, k, at]
        self.draw_at[rows, k] = at + 1
        return np.asarray(self.draw_dish[drawn])

    def _arrive(self, rows: np.ndarray) -> None:
        """A new order in each of `rows` (sorted, with room), inserted at its place in urgency order.

        Kitchens started together get their orders in the same steps, so `rows` is often every
        kitchen: then whole arrays are read and written rather than gathered and scattered."""
        if not rows.size:
            return
        sel: slice | np.ndarray = slice(None) if rows.size == self.n_worlds else rows
        dish = self._draw(rows)
        if self.order_filter is not None:
            dish = self.order_filter(self, rows, dish)
        life = self.lifetimes[self.tau_index[sel], dish]
        ident = self.next_id[sel].copy()  # `sel` may be a slice: a view, which the next line changes
        self.next_id[sel] = ident + 1
        od, ol, oi = self.order_dish[sel], self.order_life[sel], self.order_id[sel]
        rank = np.take(self.name_rank, np.maximum(od, 0))
        new_rank = np.take(self.name_rank, dish)[:, None]
        life_col = life[:, None]
        before = (od >= 0) & ((ol < life_col) | ((ol == life_col) & (rank <= new_rank)))
        pos = before.sum(axis=1)[:, None]
        slots = np.arange(MAX_ACTIVE_ORDERS)[None, :]
        src = slots - (slots > pos)
        here = slots == pos
        take = np.take_along_axis
        self.order_dish[sel] = np.where(here, dish[:, None], take(od, src, axis=1))
        self.order_life[sel] = np.where(here, life_col, take(ol, src, axis=1))
        self.order_id[sel] = np.where(here, ident[:, None], take(oi, src, axis=1))
        if self._ledger is not None:
            self._ledger[sel] = np.where(here[:, :, None], 0, take(self._ledger[sel], src[:, :, None], axis=1))

    # ------------------------------------------------------------------ rules
    def _here(self, j: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Location `j`'s content, busy counter and whether a get works there (`rows` picks the kitchens)."""
        idx = rows * self.n_locs + j  # flat indices: `np.take` gathers several times faster than a fancy index
        flag = np.take(self.gettable, idx)
        gettable = np.take(self.always, j) | (np.take(self.after, j) & flag)
        return np.take(self.content, idx), np.take(self.loc_busy, idx), gettable

    def _product(self, j: np.ndarray, content: np.ndarray) -> np.ndarray:
        """What activating `j` with `content` makes (an item), or -1.

        Small levels look it up in a table over (tool type, content); otherwise the few combos of a
        tool type are looped over in Python (NumPy reduces over a short last axis far slower than
        it compares whole columns)."""
        kind = np.take(self.type_of, j)
        if self._product_table is not None:
            return np.take(self._product_table, (kind << self.n_items) | content)
        masks = np.take(self.combo_mask, kind, axis=0)
        products = np.take(self.combo_product, kind, axis=0)
        out = np.full(content.shape, -1, dtype=np.int64)
        for c in range(masks.shape[-1]):
            out = np.where(masks[..., c] == content, products[..., c], out)  # padding has product -1
        return out

    def _can_extend(self, j: np.ndarray, content: np.ndarray, item: np.ndarray) -> np.ndarray:
        """The waste rule: some recipe of `j`'s tool uses `item` and everything already inside."""
        kind = np.take(self.type_of, j)
        if self._allowed_table is not None:
            return np.asarray(((np.take(self._allowed_table, (kind << self.n_items) | content) >> item) & 1) == 1)
        masks = np.take(self.combo_mask, kind, axis=0)
        valid = np.take(self.combo_valid, kind, axis=0)
        ok = np.zeros(content.shape, dtype=bool)
        for c in range(masks.shape[-1]):
            mask = masks[..., c]
            ok |= valid[..., c] & ((content & ~mask) == 0) & (((mask >> item) & 1) == 1)
        return ok

    def _open_minus_served(self, dish: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Open orders for `dish` minus copies already waiting on serving tables (the fixed rules' test)."""
        d = np.maximum(dish, 0)
        asked = self._asked[rows, d]
        for t in range(len(self.serving)):
            asked = asked - self.served[rows, t, d]
        return np.asarray(asked)

    def _count_asked(self) -> None:
        """Open orders per kitchen and dish, ``(W, dishes)``, for the serving test: counted once
        per state (one `bincount`), since the orders only change between two steps' commands."""
        if not self.serve_needs_order:
            return
        w, d = self.n_worlds, self.n_dishes + 1
        flat = (self._rows * d)[:, None] + self.order_dish + 1  # an empty slot counts in column 0
        self._asked = np.bincount(flat.reshape(-1), minlength=w * d).reshape(w, d)[:, 1:]

    def _put_ok(self, held: np.ndarray, free: np.ndarray, j: np.ndarray, content: np.ndarray, busy: np.ndarray,
                rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether an agent holding `held` may put it at `j` (its position checked by the caller); and `inside`.

        Works on any shape: one agent over kitchens, or all agents at once (`rows` broadcast to it)."""
        item = np.maximum(held, 0)
        role = np.take(self.role, j)
        inside = ((content >> item) & 1) == 1
        dish = np.take(self.item_dish, item)
        serve_ok = dish >= 0
        if self.serve_needs_order:
            serve_ok &= self._open_minus_served(dish, rows) > 0
        tool_ok = (inside & (not self.duplicate_refused)) | (~inside & self._can_extend(j, content, item))
        role_ok = (role == _STORAGE) | ((role == _SERVING) & serve_ok) | ((role == _TOOL) & tool_ok)
        cap = np.take(self.cap, j)
        if self.serving_capped:
            slot = self.serving_slot[j]
            length = np.where(role == _SERVING, self.served[rows, slot].sum(axis=-1), _popcount(content, self.n_items))
            waiting = self.served[rows, slot, np.maximum(dish, 0)] > 0
            present = np.where(role == _SERVING, waiting & (dish >= 0), inside)
        else:  # serving tables take any number of dishes: only tools have a capacity
            length = _popcount(content, self.n_items)
            present = inside
        cap_ok = (cap == -1) | (length < cap) | present
        ok = (held >= 0) & role_ok & free & (busy == 0) & cap_ok
        return ok, inside

    def masks(self) -> np.ndarray:
        """``(W, n_agents, actions)``: what `ActionTable.masks` gives for each kitchen.

        Only the agent's own location can offer a get, put or activation, so each agent's legal
        set is fixed by its location and five flags; the row for (location, flags) is built once
        (`_mask_rows`) and every agent of every kitchen looks its row up in one gather. Where the
        flags depend on the agent's place and hands alone (no serving test against the open
        orders, no capped serving table) and the level is small, they are looked up too
        (`_compile_flag_table`)."""
        rows = self._rows[:, None]
        j = self.at
        free = self.agent_busy == 0
        content, busy, gettable = self._here(j, rows)
        if self._flag_table is not None:
            index = ((j << self.n_items) | content) * (self.n_items + 1) + self.hold + 1
            index = ((index * 2 + free) * 2 + (busy == 0)) * 2 + gettable
            return np.take(self._mask_rows, np.take(self._flag_table, index), axis=0)
        return np.take(self._mask_rows, j * 32 + self._flags(j, content, busy, gettable, self.hold, free, rows), axis=0)

    def _flags(self, j: np.ndarray, content: np.ndarray, busy: np.ndarray, gettable: np.ndarray, hold: np.ndarray,
               free: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The five flags of `_build_mask_rows` for agents at `j` holding `hold` (any shape)."""
        empty = free & (busy == 0) & (hold < 0)
        role = np.take(self.role, j)
        take = empty & gettable
        code = free.astype(np.int64)
        code += (take & (role == _STORAGE)) * 2
        code += (take & (role != _STORAGE) & (_popcount(content, self.n_items) == 1)) * 4
        code += (empty & (content != 0) & (self._product(j, content) >= 0)) * 8
        code += self._put_ok(hold, free, j, content, busy, rows)[0] * 16
        return code

    def _compile_flag_table(self) -> None:
        """``place * 32 + flags`` for every (place, content, held item, free, place idle, gettable), when
        that is all the flags depend on and the table has at most 2M entries; else None."""
        self._flag_table: np.ndarray | None = None
        k, m = self.n_items, self.n_locs
        if self.serve_needs_order or self.serving_capped or m * (2 ** k) * (k + 1) * 8 > 1 << 21:
            return
        j, content, held, free, idle, gettable = (g.reshape(-1) for g in np.meshgrid(
            np.arange(m), np.arange(2 ** k), np.arange(k + 1), [0, 1], [0, 1], [0, 1], indexing="ij"))
        flags = self._flags(j, content, 1 - idle, gettable.astype(bool), held - 1, free.astype(bool), j)
        self._flag_table = (j * 32 + flags).astype(np.int32)

    def _build_mask_rows(self) -> np.ndarray:
        """One legal-action row per (location, flags): noop always; goto if free; then the location's
        storage gets (2), tool get (4), activation (8) and put (16) where their flag is set."""
        m, size = self.n_locs, self.n_actions
        out = np.zeros((m * 32, size + 1), dtype=np.int8)  # int8 like `ActionTable.masks`: what `sample(mask=)` takes
        for j in range(m):
            for flags in range(32):
                row = out[j * 32 + flags]
                row[0] = 1
                if flags & 1:
                    row[self.goto_cols] = 1
                if flags & 2:
                    row[self.storage_get_cols[j]] = 1
                if flags & 4:
                    row[self.tool_get_col[j]] = 1
                if flags & 8:
                    row[self.activate_col[j]] = 1
                if flags & 16:
                    row[self.put_col[j]] = 1
        return np.ascontiguousarray(out[:, :size])

    def _execute(self, actions: np.ndarray) -> np.ndarray:
        """Each agent's command in agent order, all kitchens at once; returns the accepted flags.

        A noop or goto is settled over all kitchens in two array operations; a get, put or
        activation needs the location's state, so only the kitchens whose agent issues one at its
        own place (usually a minority) are gathered and worked on. Accepted activations are kept
        in `_activated` (the place per agent, -1 for none) for the dense reward."""
        accepted = np.empty((self.n_worlds, self.n_agents), dtype=bool)
        activated = self._activated
        for a in range(self.n_agents):
            act = actions[:, a]
            verb = np.take(self.a_verb, act)
            j = np.take(self.a_loc, act)
            free = self.agent_busy[:, a] == 0
            at = self.at[:, a]
            moved = (verb == _GOTO) & free
            np.copyto(at, j, where=moved)
            ok = (verb == _NOOP) | moved
            rows = np.flatnonzero((verb >= _GET) & (at == j))  # the position check comes first for these verbs
            if activated is not None:
                activated[:, a] = -1
            if rows.size:
                ok[rows] = self._act_here(a, rows, verb[rows], j[rows], act[rows], free[rows])
            accepted[:, a] = ok
        return accepted

    def _execute_shuffled(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`_execute` in a fresh order per kitchen, as the single env's ``order="shuffle"``.

        Each kitchen draws its permutation from its own generator (the one its tau draws come
        from, as the single env draws from its `np_random`), so the draws are a Python loop over
        kitchens, about a microsecond each. The agents' columns are permuted, run in column order
        and put back. Returns the accepted flags by agent and in execution order."""
        perm = np.stack([g.permutation(self.n_agents) for g in self._generators])
        back = np.argsort(perm, axis=1)
        columns = (self.at, self.hold, self.agent_busy)
        for array in columns:
            array[...] = np.take_along_axis(array, perm, axis=1)
        in_order = self._execute(np.take_along_axis(actions, perm, axis=1))
        for array in columns:
            array[...] = np.take_along_axis(array, back, axis=1)
        return np.take_along_axis(in_order, back, axis=1), in_order

    def _act_here(self, a: int, rows: np.ndarray, verb: np.ndarray, j: np.ndarray, act: np.ndarray,
                  free: np.ndarray) -> np.ndarray:
        """Agent `a`'s get, put or activation at its own place `j` in kitchens `rows`; whether each worked."""
        content, busy, gettable = self._here(j, rows)
        held = self.hold[rows, a]
        empty = free & (held < 0) & (busy == 0)
        role = np.take(self.role, j)
        get = (verb == _GET) & gettable & empty
        from_storage = get & (role == _STORAGE)
        if from_storage.any():
            self.hold[rows[from_storage], a] = np.take(self.a_item, act[from_storage])
        from_tool = get & (role != _STORAGE) & (content != 0) & (_popcount(content, self.n_items) == 1)
        if from_tool.any():
            where, cols = rows[from_tool], j[from_tool]
            self.hold[where, a] = np.log2(content[from_tool]).astype(np.int64)
            self.content[where, cols] = 0
            self.gettable[where, cols] &= ~self.after[cols]
        activate = (verb == _ACTIVATE) & empty & (content != 0)
        if activate.any():
            product = self._product(j, content)
            activate &= product >= 0
            where, cols = rows[activate], j[activate]
            self.content[where, cols] = np.left_shift(1, product[activate])
            cook = self.cook[cols]
            self.loc_busy[where, cols] = cook
            watch = self.watch[cols]
            self.agent_busy[where[watch], a] = cook[watch]
            self.gettable[where, cols] |= self.after[cols]
            if self._activated is not None:
                self._activated[where, a] = cols
        put = verb == _PUT
        if put.any():
            can, inside = self._put_ok(held, free, j, content, busy, rows)
            put &= can
            where, cols = rows[put], j[put]
            item = held[put]
            serving = self.role[cols] == _SERVING
            if serving.any():
                np.add.at(self.served, (where[serving], self.serving_slot[cols[serving]],
                                        self.item_dish[item[serving]]), 1)
            tool = (self.role[cols] == _TOOL) & ~inside[put]
            self.content[where[tool], cols[tool]] |= np.left_shift(1, item[tool])
            self.hold[where, a] = -1
        return np.asarray(from_storage | from_tool | activate | put)

    def _settle(self) -> tuple[np.ndarray, np.ndarray]:
        """`OrderBook.settle`: expire and serve; returns (orders completed, failures counted) per kitchen.

        Serving is sequential (the most urgent order takes a waiting dish first), so it loops over
        the six slots, but only over the kitchens that have a dish waiting on a serving table."""
        od, ol = self.order_dish, self.order_life
        w = self.n_worlds
        expiring = (ol == 0) & (od >= 0)
        done = np.zeros(od.shape, dtype=bool)
        live_orders = od >= 0
        if self.rules.expire_before_serve:  # what expires now fails before any dish is counted
            live_orders &= ~expiring
        # only kitchens with a dish waiting that some open order asks for can serve: dishes no
        # order wants pile up on the tables (the reference rules take them), so most kitchens of a
        # long random run have a dish waiting, and the sequential loop below is kept to the few
        n_tables, n_dishes = len(self.serving), self.n_dishes
        flat = (self._rows * (n_tables * n_dishes))[:, None] + np.maximum(od, 0)
        servable = np.zeros(od.shape, dtype=bool)
        for t in range(n_tables):
            servable |= np.take(self.served, flat + t * n_dishes) > 0
        waiting = np.flatnonzero((live_orders & servable).any(axis=1))
        if waiting.size:
            dishes = od[waiting]
            open_ = live_orders[waiting]
            served = self.served[waiting]
            rows = np.arange(waiting.size)
            took = np.zeros(dishes.shape, dtype=bool)
            for s in range(MAX_ACTIVE_ORDERS):
                live = open_[:, s]
                if not live.any():
                    continue
                dish = np.maximum(dishes[:, s], 0)
                want = live.copy()
                for t in range(len(self.serving)):
                    hit = want & (served[rows, t, dish] > 0)
                    served[rows[hit], t, dish[hit]] -= 1
                    want &= ~hit
                took[:, s] = live & ~want
            self.served[waiting] = served
            done[waiting] = took
        failed = expiring & ~done
        removed = done | failed
        hit = np.flatnonzero(removed.any(axis=1))
        n_done = np.zeros(w, dtype=np.int64)
        n_failed = np.zeros(w, dtype=np.int64)
        if not hit.size:
            return n_done, n_failed
        sel: slice | np.ndarray = slice(None) if hit.size == w else hit  # expiries come in step across kitchens
        gone = removed[sel]
        n_done[sel] = done[sel].sum(axis=1)
        lost = failed[sel].sum(axis=1)
        n_failed[sel] = (lost > 0) if self.rules.count_failures_per_step else lost
        # the orders left keep their order and move to the front: kept slot s goes to the number of
        # kept slots before it (a scatter, not a sort: sorting ten thousand short rows is slow)
        line, slot = np.nonzero(~gone)
        dest = (np.cumsum(~gone, axis=1) - 1)[line, slot]
        for name, empty in (("order_dish", -1), ("order_life", 0), ("order_id", 0)):
            array = getattr(self, name)
            old = array[sel]
            packed = np.full(old.shape, empty, dtype=old.dtype)
            packed[line, dest] = old[line, slot]
            array[sel] = packed
        if self._ledger is not None:
            old = self._ledger[sel]
            packed = np.zeros_like(old)
            packed[line, dest] = old[line, slot]
            self._ledger[sel] = packed
        self.completed += n_done
        self.failed += n_failed
        return n_done, n_failed

    def _tick(self) -> None:
        """`OrderBook.tick`: lifetimes drop, the interval timer runs, an order may arrive.

        Open orders always fill the first slots (settling and arrivals keep them packed), so a
        kitchen has room for an order exactly when its last slot is empty."""
        np.subtract(self.order_life, self.order_dish >= 0, out=self.order_life)
        self.timer += 1
        due = self.timer == self.interval
        self.timer[due] = 0
        self._arrive(np.flatnonzero(due & (self.order_dish[:, -1] < 0)))

    def _phi(self, rows: np.ndarray) -> np.ndarray:
        """`RecipeProgress` for `rows`: recipe-tree nodes lying in the kitchen toward the open orders."""
        need = self.need[self.order_dish[rows]].sum(axis=1)  # empty slots index the zero row (-1)
        have = np.zeros((rows.size, self.n_items + 1), dtype=np.int64)
        held = self.hold[rows]
        np.add.at(have, (np.repeat(np.arange(rows.size), self.n_agents), held.reshape(-1)), 1)  # -1: last column
        have = have[:, :self.n_items]
        bits = (self.content[rows][:, self.tools, None] >> self.shifts) & 1
        have += bits.sum(axis=1)
        total = (np.minimum(have, need) * self.node_size).sum(axis=1)
        return np.asarray(self.phi_scale * total.astype(np.float64))

    # ------------------------------------------------------------------ stepping
    def step(self, actions: np.ndarray) -> BatchStep:
        """One joint action per kitchen, ``(W, n_agents)`` action indices; ended episodes restart."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.n_worlds, self.n_agents)
        if actions.min() < 0 or actions.max() >= self.n_actions:
            raise ValueError(f"action indices must lie in [0, {self.n_actions})")
        before_completed, before_failed = self.completed.copy(), self.failed.copy()
        if self.shuffle:
            accepted, in_order = self._execute_shuffled(actions)
        else:
            accepted = in_order = self._execute(actions)
        np.subtract(self.agent_busy, 1, out=self.agent_busy, where=self.agent_busy > 0)
        np.subtract(self.loc_busy, 1, out=self.loc_busy, where=self.loc_busy > 0)
        self._settle()
        self.time += 1
        self._tick()
        done, failed = self.completed - before_completed, self.failed - before_failed
        dones = self.time >= self.max_steps
        if self._dense is not None:
            rewards = self._dense.reward(done, failed, in_order, dones)
        else:
            rewards = (done - failed).astype(np.float64)
        if self.reward_name == "potential":
            now = np.where(dones, 0.0, self._phi(self._rows))
            rewards = rewards + (self.gamma * now - self.phi_last)
            self.phi_last = now
        final_obs = final_counts = None
        if dones.any():
            final_obs = self.observe()
            final_obs[~dones] = 0.0
            active = (self.order_dish >= 0).sum(axis=1)
            final_counts = np.stack([self.completed, self.failed, active], axis=1)
            self._reset_worlds(self._rows[dones])
        self._count_asked()
        return BatchStep(self.observe(), self.masks(), rewards, dones, accepted, final_obs, final_counts)

    def observe(self) -> np.ndarray:
        """``(W, obs size)`` float32: `Observer.encode` of each kitchen (no agent id: the joint view).

        Each agent, location and order slot is a block that depends on a few small numbers (place,
        held item, busy counter; content, busy, gettable; dish, lifetime), so each block is looked
        up whole from a table built once (`_compile_blocks`): one gather per kind of block, then
        one copy into the output (a gather into a strided view of it is three times slower)."""
        w = self.n_worlds
        out = np.zeros((w, self.obs_size), dtype=np.float32)  # the agent id columns stay 0
        out[:, 0] = np.take(self.time_value, np.minimum(self.time, self.max_steps))
        out[:, 1] = np.take(self.interval_value, self.tau_index)
        agents = out[:, self.agents_at:self.locs_at].reshape(w, self.n_agents, self.agent_block)
        code = (self.at * (self.n_items + 1) + self.hold + 1) * self.n_busy + self.agent_busy
        agents[...] = np.take(self._agent_rows_table, code, axis=0)
        locs = out[:, self.locs_at:self.orders_at].reshape(w, self.n_locs, self.loc_block)
        if self._loc_rows_table is not None:
            code = (self.content * self.n_busy + self.loc_busy) * 2 + self.gettable
            locs[...] = np.take(self._loc_rows_table, code, axis=0)
            locs[:, self.always_locs, self.n_items + 1] = 1.0
        else:
            self._locs_unpacked(locs)
        for t, j in enumerate(self.serving):
            counts = np.minimum(self.served[:, t], len(self.served_value) - 1)
            locs[:, j, self.dish_item] = np.take(self.served_value, counts)
        orders = out[:, self.orders_at:self._id_at].reshape(w, MAX_ACTIVE_ORDERS, self.order_block)
        code = (self.order_dish + 1) * self.n_lives + np.minimum(self.order_life, self.n_lives - 1)
        orders[...] = np.take(self._order_rows_table, code, axis=0)
        return out

    def _locs_unpacked(self, locs: np.ndarray) -> None:
        """The location blocks of levels with too many items for a table: content bits unpacked."""
        k = self.n_items
        locs[:, :, :k] = np.unpackbits(self.content[:, :, None].view(np.uint8), axis=2, count=k, bitorder="little")
        locs[:, :, k] = np.take(self.busy_value, self.loc_busy)
        locs[:, :, k + 1] = self.gettable & self.after
        locs[:, self.always_locs, k + 1] = 1.0

    def counts(self) -> np.ndarray:
        """``(W, 3)``: completed, failed and open orders of each kitchen's current episode."""
        return np.stack([self.completed, self.failed, (self.order_dish >= 0).sum(axis=1)], axis=1)


class CuisineVectorEnv(VectorEnv):
    """`BatchedKitchens` as a Gymnasium vector env: ``num_envs`` copies of `CuisineJointEnv`.

    Episodes restart in the step that ends them (Gymnasium's same-step autoreset): the returned
    observation is the new episode's first, the last one is in ``infos["final_obs"]`` (an object
    array, None where no episode ended, with the mask ``infos["_final_obs"]``) and the ended
    episode's score in ``infos["final_info"]``. ``infos["action_mask"]`` holds every kitchen's
    masks, ``(num_envs, n_agents, actions)``; `action_masks()` gives them flat per kitchen.

    Example::

        envs = CuisineVectorEnv("level_1", n_agents=2, num_envs=1000, tau=(1.0, 2.0))
        obs, infos = envs.reset(seed=0)
        obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())
    """

    metadata: dict[str, Any] = {"autoreset_mode": _SAME_STEP}

    def __init__(self, level: str | Level = "level_0", n_agents: int = 2, num_envs: int = 8,
                 tau: float | Sequence[float] = 1.0, rules: str = "reference", max_steps: int | None = None,
                 reward: str = "sparse", order: str = "agent", gamma: float = 0.99) -> None:
        self.kitchens = BatchedKitchens(level, n_agents, num_envs, tau=tau, rules=rules, max_steps=max_steps,
                                        reward=reward, order=order, gamma=gamma)
        self.num_envs = num_envs
        self.single_observation_space = spaces.Box(0.0, 1.0, shape=(self.kitchens.obs_size,), dtype=np.float32)
        self.single_action_space = spaces.MultiDiscrete([self.kitchens.n_actions] * n_agents)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._masks: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every kitchen restarts; kitchen i is seeded with ``seed + i``."""
        if seed is not None:
            self.action_space.seed(seed)
        obs, masks = self.kitchens.reset(seed)
        self._masks = masks
        return obs, {"action_mask": masks}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        out = self.kitchens.step(np.asarray(actions))
        self._masks = out.masks
        infos: dict[str, Any] = {"action_mask": out.masks, "accepted": out.accepted}
        if out.final_obs is not None and out.final_counts is not None:
            ended = out.dones
            final_obs = np.empty(self.num_envs, dtype=object)
            final_info = np.empty(self.num_envs, dtype=object)
            for i in np.flatnonzero(ended).tolist():
                final_obs[i] = out.final_obs[i]
                completed, failed, active = out.final_counts[i].tolist()
                final_info[i] = {"episode_counts": {"completed": completed, "failed": failed, "active": active}}
            infos.update({"final_obs": final_obs, "_final_obs": ended, "final_info": final_info,
                          "_final_info": ended})
        terminations = np.zeros(self.num_envs, dtype=bool)
        return out.obs, out.rewards, terminations, out.dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_agents * actions)`` 0/1 int8: each kitchen's masks, agents concatenated."""
        if self._masks is None:
            raise RuntimeError("call reset() first")
        return self._masks.reshape(self.num_envs, -1)
