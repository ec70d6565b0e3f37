"""A level compiled for play: instances named, active recipes indexed, timings derivable.

Compilation happens once per `load_level`; the engine's hot loop then only does dict and list
look-ups on what is built here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cuisineworld.levels import LevelData, LevelFileError, load_level_data
from cuisineworld.levels.limits import MAX_LEVEL_NUMBER
from cuisineworld.rules import Rules, rules_named
from cuisineworld.timing import dish_lifetime, dish_weight, level_interval


@dataclass(frozen=True, slots=True)
class LocationSpec:
    name: str  # instance name, e.g. "pot1"
    type: str  # location type, e.g. "pot"
    role: str  # "storage" | "serving" | "tool"
    cook_time: int
    capacity: int  # -1 = unlimited
    operator_busy: bool
    gettable: str  # "always" | "never" | "after_activation"


@dataclass(frozen=True, slots=True)
class AgentProfile:
    """Where one agent may act (location names) and which products' recipe trees it is told
    (None: all of them). Knowledge is information for the prompts only; the engine enforces reach."""

    reach: frozenset[str]
    knows: frozenset[str] | None = None

    def merged(self, other: AgentProfile) -> AgentProfile:
        knows = None if self.knows is None or other.knows is None else self.knows | other.knows
        return AgentProfile(self.reach | other.reach, knows)


@dataclass(frozen=True, slots=True)
class Recipe:
    product: str
    tool: str
    ingredients: tuple[str, ...]


@dataclass(frozen=True)
class Level:
    """Everything the engine needs to know about a level under one rule set."""

    name: str
    dishes: tuple[str, ...]
    locations: tuple[LocationSpec, ...]
    base_ingredients: tuple[str, ...]
    recipes: tuple[Recipe, ...]  # the dependency closure of the dishes, breadth-first order
    rules: Rules
    max_steps: int = 60
    source: str = ""
    difficulty: str | None = None
    in_paper: bool = False
    profiles: tuple[AgentProfile, ...] = ()  # empty: a homogeneous team (everyone reaches everything)
    location_index: dict[str, int] = field(default_factory=dict)
    cook_time_by_type: dict[str, int] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)
    _by_key: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)
    _combos: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    _allow_cache: dict[tuple[str, tuple[str, ...]], frozenset[str]] = field(default_factory=dict)

    @property
    def kitchen(self) -> tuple[str, ...]:
        return tuple(loc.type for loc in self.locations)

    @property
    def location_names(self) -> tuple[str, ...]:
        return tuple(loc.name for loc in self.locations)

    def product_of(self, tool_type: str, content: list[str] | tuple[str, ...]) -> str | None:
        """What activating a tool with this content makes, or None (it would be waste)."""
        return self._by_key.get((tool_type, tuple(sorted(content))))

    def can_extend(self, tool_type: str, content: list[str], item: str) -> bool:
        """The reference's waste rule: `item` must extend `content` toward some recipe of the tool."""
        key = (tool_type, tuple(content))
        allowed = self._allow_cache.get(key)
        if allowed is None:
            allowed = self._allowed(tool_type, content)
            self._allow_cache[key] = allowed
        return item in allowed

    def _allowed(self, tool_type: str, content: list[str]) -> frozenset[str]:
        names: dict[str, None] = {}
        have = Counter(content)
        for combo in self._combos.get(tool_type, ()):
            if content and not all(i in combo for i in content):
                continue
            for name in Counter(combo) - have:
                names[name] = None
        return frozenset(names)

    def interval(self, tau: float) -> int:
        return level_interval(tau, [self.weights[d] for d in self.dishes])

    def lifetime(self, dish: str, tau: float) -> int:
        return dish_lifetime(tau, self.weights[dish])

    def lifetimes(self, tau: float) -> dict[str, int]:
        return {d: self.lifetime(d, tau) for d in self.dishes}

    @property
    def heterogeneous(self) -> bool:
        return bool(self.profiles)

    def team_profiles(self, n_agents: int) -> tuple[AgentProfile, ...] | None:
        """Each agent's profile in a team of `n_agents`, or None for a homogeneous level.

        Profiles are dealt round-robin: agent i plays profile i mod P; with fewer agents than
        profiles, agent i plays every profile p with p mod n == i (their union), so any team
        size keeps every station in someone's reach and hand-offs stay necessary when n >= 2.
        """
        if not self.profiles:
            return None
        count = len(self.profiles)
        if n_agents >= count:
            return tuple(self.profiles[i % count] for i in range(n_agents))
        out = []
        for i in range(n_agents):
            profile = self.profiles[i]
            for p in range(i + n_agents, count, n_agents):
                profile = profile.merged(self.profiles[p])
            out.append(profile)
        return tuple(out)

    def known_recipes(self, knows: frozenset[str] | None) -> tuple[Recipe, ...]:
        """The active recipes an agent with this knowledge is told: the trees of what it knows."""
        if knows is None:
            return self.recipes
        by_product = {r.product: r for r in self.recipes}
        seen: dict[str, None] = {}
        queue = sorted(knows)
        while queue:
            name = queue.pop(0)
            recipe = by_product.get(name)
            if recipe is None or name in seen:
                continue
            seen[name] = None
            queue.extend(recipe.ingredients)
        return tuple(r for r in self.recipes if r.product in seen)

    def recipe_for(self, product: str) -> Recipe | None:
        for r in self.recipes:
            if r.product == product:
                return r
        return None


def _closure(dishes: tuple[str, ...], makes: dict[str, Recipe]) -> tuple[Recipe, ...]:
    order: dict[str, Recipe] = {}
    queue = list(dishes)
    head = 0
    while head < len(queue):
        name = queue[head]
        head += 1
        recipe = makes.get(name)
        if recipe is None or name in order:
            continue
        order[name] = recipe
        queue.extend(recipe.ingredients)
    return tuple(order.values())


def compile_level(data: LevelData, rules: str | Rules = "reference") -> Level:
    ruleset = rules_named(rules)
    spec = data.level
    kitchen = spec.kitchen_fixed if (ruleset.use_fixed_kitchen and spec.kitchen_fixed) else spec.kitchen
    types = {t.name: t for t in data.location_types}
    counters: dict[str, int] = {}
    locations = []
    for type_name in kitchen:
        t = types[type_name]
        index = counters.get(type_name, 0)
        counters[type_name] = index + 1
        locations.append(
            LocationSpec(
                name=f"{type_name}{index}",
                type=type_name,
                role=t.role,
                cook_time=t.cook_time,
                capacity=-1 if t.capacity is None else t.capacity,
                operator_busy=t.operator_busy,
                gettable=t.gettable,
            )
        )
    makes = {r.product: Recipe(r.product, r.tool, tuple(r.ingredients)) for r in data.recipes}
    active = _closure(tuple(spec.dishes), makes)
    cook = {t.name: t.cook_time for t in data.location_types}
    graph = {r.product: (r.tool, r.ingredients) for r in makes.values()}
    weights = {d: dish_weight(d, graph, cook) for d in spec.dishes}  # the loader bounded the tree walked here
    for i, dish in enumerate(spec.dishes):
        if dish_lifetime(1.0, weights[dish]) > MAX_LEVEL_NUMBER:
            raise LevelFileError(data.source, f"dishes.{i}", f"{dish!r} would live {dish_lifetime(1.0, weights[dish])} "
                                 f"steps at tau 1 (its interval {level_interval(1.0, [weights[dish]])}), over the "
                                 f"limit of {MAX_LEVEL_NUMBER}")
    combos: dict[str, list[tuple[str, ...]]] = {}
    for r in active:
        combos.setdefault(r.tool, []).append(r.ingredients)
    level = Level(
        name=spec.name,
        profiles=_profiles(data, locations),
        dishes=tuple(spec.dishes),
        locations=tuple(locations),
        base_ingredients=tuple(data.base_ingredients),
        recipes=active,
        rules=ruleset,
        max_steps=spec.max_steps,
        source=data.source,
        difficulty=spec.difficulty,
        in_paper=spec.in_paper,
        location_index={loc.name: i for i, loc in enumerate(locations)},
        cook_time_by_type=cook,
        weights=weights,
        _by_key={(r.tool, tuple(sorted(r.ingredients))): r.product for r in active},
        _combos={k: tuple(v) for k, v in combos.items()},
    )
    from cuisineworld.reach import check_team  # reach.py reads a compiled Level

    check_team(level)
    return level


def _profiles(data: LevelData, locations: list[LocationSpec]) -> tuple[AgentProfile, ...]:
    """The level file's per-agent profiles with types expanded to this kitchen's instance names."""
    if not data.level.agents:
        return ()
    out = []
    for spec in data.level.agents:
        wanted = set(spec.reach)
        reach = frozenset(loc.name for loc in locations if loc.name in wanted or loc.type in wanted)
        out.append(AgentProfile(reach, None if spec.knows is None else frozenset(spec.knows)))
    return tuple(out)


def load_level(
    name_or_path: str | Path, rules: str | Rules = "reference", recipes: str | Path | None = None
) -> Level:
    """Load a shipped level (``"level_3"``) or a level file, compiled under a rule set.

    Raises `levels.LevelFileError` naming the file, field and problem when the data is bad.
    """
    return compile_level(load_level_data(name_or_path, recipes), rules)
