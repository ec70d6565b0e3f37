"""A fixed, per-agent list of commands for a level, and the legal-action mask over it.

RL algorithms want a `Discrete(K)` action whose meaning never changes, while the engine speaks
command strings. The list is built once per level: noop, goto every location, get every base
ingredient the level's recipes use from every storage, get from every tool (the engine hands
over the tool's whole content, whatever it is), put to every location, activate every tool.

Example::

    table = ActionTable(load_level("level_0"), n_agents=2)
    table.command(0, 1)              # "goto_agent0_storage0"
    table.mask(world, 0)             # 0/1 per action, 1 where the engine would accept it now

The mask runs every environment step for every agent, so it never touches a command string: the
engine's own legal-move code runs over tables relabelled once with this table's action indices
(`World.legal_labels`), and the indices land in a byte buffer NumPy views without copying.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cuisineworld import LegalLabels, Level, World

_MASK = np.dtype(np.int8)  # Gymnasium's and PettingZoo's `space.sample(mask=...)` take int8 only


def level_ingredients(level: Level) -> tuple[str, ...]:
    """Base ingredients that some active recipe of the level uses, in the level's base order."""
    used = {i for r in level.recipes for i in r.ingredients}
    return tuple(b for b in level.base_ingredients if b in used)


class _Lookup(dict[str, int]):
    """command -> flat action index; a spelling with no action maps to the sink cell."""

    def __init__(self, sink: int, entries: dict[str, int]) -> None:
        super().__init__(entries)
        self.sink = sink

    def __missing__(self, key: str) -> int:
        return self.sink


class ActionTable:
    def __init__(self, level: Level, n_agents: int, all_ingredients: bool = False) -> None:
        self.level = level
        self.n_agents = n_agents
        names = level.location_names
        storages = [loc.name for loc in level.locations if loc.role == "storage"]
        tools = [loc.name for loc in level.locations if loc.role == "tool"]
        # places a single item is taken from: tools, and the counters of a heterogeneous team's hand-offs
        takes = [loc.name for loc in level.locations if loc.role in ("tool", "counter")]
        ingredients = level.base_ingredients if all_ingredients else level_ingredients(level)
        # templates: (verb, location, item); "{a}" is filled per agent
        self.templates: list[tuple[str, str | None, str | None]] = [("noop", None, None)]
        self.templates += [("goto", n, None) for n in names]
        self.templates += [("get", s, b) for s in storages for b in ingredients]
        self.templates += [("get", t, None) for t in takes]
        self.templates += [("put", n, None) for n in names]
        self.templates += [("activate", t, None) for t in tools]
        self._index = {tpl: i for i, tpl in enumerate(self.templates)}
        self._storages = frozenset(storages)
        self._commands = [[self._render(a, tpl) for tpl in self.templates] for a in range(n_agents)]
        self._lookup = [self._lookup_for(a, takes) for a in range(n_agents)]
        # the same, as flat indices into an (n_agents * size + 1) vector whose last cell takes the
        # spellings no action stands for (gets of base ingredients no recipe of the level uses)
        sink = n_agents * self.size
        self._flat = _Lookup(sink, {c: a * self.size + i for a in range(n_agents) for c, i in self._lookup[a].items()})
        self._shape = (n_agents, self.size)
        self._labels: LegalLabels[int] | None = None  # the engine's legal-move tables, spelled as flat indices

    def _lookup_for(self, agent: int, tools: list[str]) -> dict[str, int]:
        """Every spelling `World.legal_commands` may list for `agent` -> its action index."""
        out = {command: i for i, command in enumerate(self._commands[agent])}
        items = {*self.level.base_ingredients, *(r.product for r in self.level.recipes), *self.level.dishes}
        for tool in tools:
            i = self._index[("get", tool, None)]
            out.update({f"get_agent{agent}_{item}_{tool}": i for item in items})
        return out

    @property
    def size(self) -> int:
        return len(self.templates)

    @staticmethod
    def _render(agent: int, tpl: tuple[str, str | None, str | None]) -> str:
        verb, loc, item = tpl
        if verb == "noop":
            return f"noop_agent{agent}"
        if item is not None:
            return f"{verb}_agent{agent}_{item}_{loc}"
        return f"{verb}_agent{agent}_{loc}"

    def command(self, agent: int, action: int) -> str:
        return self._commands[agent][int(action)]

    def commands(self, actions: Sequence[int]) -> list[str]:
        """One command per agent for a joint action (one action index per agent, in agent order)."""
        return [row[a] for row, a in zip(self._commands, actions, strict=True)]

    def index_of(self, command: str) -> int | None:
        """The action of a canonical legal command (`World.legal_commands` spelling)."""
        parts = command.split("_")
        verb = parts[0]
        if verb == "noop":
            return 0
        loc = parts[-1]
        item = parts[2] if (verb == "get" and len(parts) == 4 and loc in self._storages) else None
        return self._index.get((verb, loc, item))

    def legal_actions(self, world: World, agent: int) -> list[int]:
        """The action indices the engine accepts for `agent` as the step's first command."""
        lookup = self._lookup[agent]
        return [lookup[c] for c in world.legal_commands(agent) if c in lookup]

    def mask(self, world: World, agent: int) -> np.ndarray:
        """1 for each action the engine accepts for `agent` as the step's first command."""
        out = np.zeros(self.size, dtype=np.int8)
        out[self.legal_actions(world, agent)] = 1
        return out

    def masks(self, world: World) -> np.ndarray:
        """One mask row per agent, shape ``(n_agents, size)``, 0/1 as int8.

        int8, not bool: `Discrete.sample(mask=row)` and `MultiDiscrete.sample(mask=tuple(rows))`
        refuse any other dtype, and maskable trainers (sb3-contrib, RLlib) read 0/1 alike."""
        if self._labels is None:
            self._labels = world.legal_labels(self._flat.__getitem__)
        buf = bytearray(self.n_agents * self.size + 1)  # byte writes, then one zero-copy view
        for i in world.legal_labelled_all(self._labels):
            buf[i] = 1
        return np.ndarray(self._shape, _MASK, buf)  # positional: a dtype keyword costs more than the call
