"""The CuisineWorld engine: state, one joint step, look-ahead and legal commands.

A step follows reference section 6 in order: read the joint command list, execute it command by
command in the order written, count busy tools and agents down, settle orders (expire, serve),
advance time and let new orders arrive. The state lives in flat lists so `step` stays cheap
enough for RL and for sweeping hundreds of episodes; `check` runs the same code on a copy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

from cuisineworld.commands import Command, parse_command
from cuisineworld.kitchen_state import Kitchen
from cuisineworld.level import Level
from cuisineworld.orders import Order, OrderBook
from cuisineworld.reasons import Code, Reason

_PARSE_CACHE_LIMIT = 8192
T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict one command got: `ok`, or refused with a structured `reason`."""

    command: str
    ok: bool
    reason: Reason | None = None


@dataclass(frozen=True, slots=True)
class StepResult:
    step: int  # the step that was executed (time before it advanced)
    outcomes: list[Outcome]
    notes: list[Reason]
    completed: list[str]
    failed: list[str]
    arrived: list[str]


@dataclass(frozen=True, slots=True)
class EpisodeCounts:
    completed: int
    failed: int
    active: int


@dataclass(slots=True)
class AgentStats:
    """What one agent did this episode: successful and refused commands per verb."""

    ok: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("noop", "goto", "get", "put", "activate"), 0))
    refused: int = 0


class KitchenView(NamedTuple):
    """The live state lists of a kitchen, indexed by agent or by location (the level's order).

    They are the engine's own lists, not copies, so an encoder that reads every field each step
    (an RL observation) pays no method call per field; they change with every step and must not be
    written to. `at` holds location indices into `Level.location_names`."""

    at: list[int]
    hold: list[str | None]
    agent_busy: list[int]
    content: list[list[str]]
    loc_busy: list[int]
    gettable: list[bool]


class EpisodeOver(RuntimeError):
    """`step` was called after the last step of the episode; call `reset()` for the next one."""


class World:
    """One kitchen with N agents under a level's rule set.

    Example::

        world = World(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
        world.reset()
        result = world.step(["goto_agent0_storage0", "noop_agent1"])
        result.outcomes[0].ok          # True
    """

    def __init__(
        self, level: Level, n_agents: int = 2, tau: float = 1.0, seed: int = 0, max_steps: int | None = None
    ) -> None:
        if n_agents < 1:
            raise ValueError("a kitchen needs at least one agent")
        if tau <= 0:
            raise ValueError("tau must be positive")
        self.level = level
        self.rules = level.rules
        self.n_agents = n_agents
        self.tau = tau
        self.seed = seed
        self.max_steps = level.max_steps if max_steps is None else max_steps
        self.interval = level.interval(tau)
        self.lifetimes = level.lifetimes(tau)
        self.episode = 0
        self._rng = random.Random(seed)
        self._names = level.location_names
        self._name_set = frozenset(self._names)
        self._parse_cache: dict[str, Command | Reason] = {}
        self._kitchen = Kitchen(level, n_agents)
        self._orders = OrderBook(level.dishes, self.lifetimes, self.interval, self._rng)
        self.time = 0
        self.stats: list[AgentStats] = []
        self._started = False
        self._counts: EpisodeCounts | None = None
        # the order generator's state when the current episode started (what a recording keeps)
        self.episode_start_state: list[object] = self.generator_state()
        self._legal_static = _LegalTables.strings(level, n_agents)
        self._view: KitchenView | None = None

    # ----------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, generator_state: list[object] | None = None) -> None:
        """Start the next episode. The order generator carries on from the previous episode (as
        the reference does) unless a new `seed` is given, or a saved `generator_state` (from
        `generator_state()`, e.g. in a recording header) puts it back where it was."""
        if seed is not None:
            self.seed = seed
            self._rng.seed(seed)
        if generator_state is not None:
            self._rng.setstate(_rng_state(generator_state))
        self.episode += 1
        self.episode_start_state = self.generator_state()
        self._kitchen.clear()
        self._view = None  # clear() made new lists
        self._orders.start()
        self.time = 0
        self.stats = [AgentStats() for _ in range(self.n_agents)]
        self._started = True

    def generator_state(self) -> list[object]:
        """The order generator's state as JSON-able data (restore it with `reset(generator_state=...)`)."""
        version, internal, gauss = self._rng.getstate()
        return [version, list(internal), gauss]

    def _ensure_started(self) -> None:
        if not self._started:
            self.reset()

    @property
    def done(self) -> bool:
        return self._started and self.time >= self.max_steps

    @property
    def counts(self) -> EpisodeCounts:
        if not self._started:
            self.reset()
        book = self._orders
        last = self._counts
        # RL rewards read the counts every step and they rarely change: reuse the (immutable) last answer
        if last is None or last.completed != book.completed or last.failed != book.failed \
                or last.active != len(book.active):
            last = self._counts = EpisodeCounts(book.completed, book.failed, len(book.active))
        return last

    @property
    def orders(self) -> list[Order]:
        """Active orders, most urgent first (lifetime, then dish name)."""
        self._ensure_started()
        return list(self._orders.active)

    def orders_view(self) -> list[Order]:
        """The active orders as the engine's own list, most urgent first: no copy, so an encoder that
        reads them every step pays nothing extra. Read-only by contract, valid until the next step."""
        self._ensure_started()
        return self._orders.active

    @property
    def completed_dishes(self) -> list[str]:
        return list(self._orders.completed_dishes)

    @property
    def failed_dishes(self) -> list[str]:
        return list(self._orders.failed_dishes)

    # ------------------------------------------------------------------- views
    def agent_location(self, agent: int) -> str:
        return self._names[self._kitchen.at[agent]]

    def agent_holding(self, agent: int) -> str | None:
        return self._kitchen.hold[agent]

    def agent_busy(self, agent: int) -> int:
        return self._kitchen.agent_busy[agent]

    def location_content(self, name: str) -> list[str]:
        return list(self._kitchen.content[self.level.location_index[name]])

    def location_busy(self, name: str) -> int:
        return self._kitchen.loc_busy[self.level.location_index[name]]

    def location_gettable(self, name: str) -> bool:
        return self._kitchen.is_gettable(self.level.location_index[name])

    def kitchen_view(self) -> KitchenView:
        """The kitchen's live lists, read-only by contract (see `KitchenView`); valid until the next reset."""
        view = self._view
        if view is None or not self._started:
            self._ensure_started()
            k = self._kitchen
            view = self._view = KitchenView(k.at, k.hold, k.agent_busy, k.content, k.loc_busy, k.gettable)
        return view

    def state_text(self) -> str:
        from cuisineworld.state_text import render_state

        self._ensure_started()
        return render_state(self)

    def clone(self, order_seed: int | None = None) -> World:
        """An independent copy (state and generator) for search; the level is shared.

        A plain clone draws the same future orders as the original, which a fair look-ahead
        must not know: pass `order_seed` to give the copy its own order generator (arrival
        times stay the same, the dishes are redrawn).
        """
        self._ensure_started()
        twin = object.__new__(World)
        for name in ("level", "rules", "n_agents", "tau", "seed", "max_steps", "interval", "lifetimes", "episode",
                     "_names", "_name_set", "_parse_cache", "time", "_started", "_legal_static",
                     "episode_start_state"):
            setattr(twin, name, getattr(self, name))
        twin._rng = random.Random()
        if order_seed is None:
            twin._rng.setstate(self._rng.getstate())
        else:
            twin._rng.seed(order_seed)
        twin._kitchen = self._kitchen.copy()
        twin._view = None
        twin._counts = None
        twin._orders = self._orders.copy(twin._rng)
        twin.stats = [AgentStats(dict(s.ok), s.refused) for s in self.stats]
        return twin

    # ----------------------------------------------------------------- parsing
    def parse(self, command: str | Command) -> Command | Reason:
        if isinstance(command, Command):
            if not 0 <= command.agent < self.n_agents:
                return Reason(Code.UNKNOWN_AGENT, agent=command.agent, command=str(command))
            if command.location is not None and command.location not in self._name_set:
                return Reason(Code.UNKNOWN_LOCATION, agent=command.agent, location=command.location)
            return command
        cached = self._parse_cache.get(command)
        if cached is None:
            cached = parse_command(command, self.n_agents, self._name_set)
            if len(self._parse_cache) < _PARSE_CACHE_LIMIT:
                self._parse_cache[command] = cached
        return cached

    def _read(self, commands: Sequence[str | Command]) -> tuple[list[Command | None], list[Reason | None], Reason | None]:
        """Parse the joint action; the third value is what rejects all of it (reference rules)."""
        parsed: list[Command | None] = []
        errors: list[Reason | None] = []
        seen: set[int] = set()
        sink: Reason | None = None
        for raw in commands:
            item = self.parse(raw)
            if isinstance(item, Reason):
                parsed.append(None)
                errors.append(item)
                sink = sink or item
                continue
            if item.agent in seen:
                dup = Reason(Code.DUPLICATE_AGENT, agent=item.agent, command=str(raw))
                parsed.append(None)
                errors.append(dup)
                continue
            seen.add(item.agent)
            parsed.append(item)
            errors.append(None)
        if sink is None:
            sink = next((e for e in errors if e is not None), None)
        if not self.rules.reject_whole_joint_action:
            sink = None
        return parsed, errors, sink

    # ---------------------------------------------------------------- stepping
    def step(self, commands: Sequence[str | Command]) -> StepResult:
        """Execute one joint action and advance time by one step."""
        self._ensure_started()
        if self.time >= self.max_steps:
            raise EpisodeOver(f"episode {self.episode} is over after {self.max_steps} steps; call reset()")
        outcomes, notes = self._run(self._kitchen, commands, record=True)
        self._kitchen.count_down()
        completed, failed = self._orders.settle(self._kitchen, self.rules)
        step = self.time
        self.time += 1
        arrived = self._orders.tick()
        return StepResult(step, outcomes, notes, completed, failed, arrived)

    def check(self, commands: Sequence[str | Command]) -> list[Outcome]:
        """The verdict each command would get if this joint action ran now; changes nothing."""
        self._ensure_started()
        outcomes, _ = self._run(self._kitchen.copy(), commands, record=False)
        return outcomes

    def _run(self, kitchen: Kitchen, commands: Sequence[str | Command], record: bool) -> tuple[list[Outcome], list[Reason]]:
        parsed, errors, sink = self._read(commands)
        notes: list[Reason] = []
        outcomes: list[Outcome] = []
        if not commands:
            notes.append(Reason(Code.NO_COMMANDS))
        elif sink is not None:
            notes.append(sink)
            for raw, error in zip(commands, errors, strict=True):
                reason = error or Reason(Code.JOINT_REJECTED, cause=sink, command=str(raw))
                outcomes.append(Outcome(str(raw), False, reason))
            if record:
                self._tally(parsed, outcomes)
            return outcomes, notes
        elif all(c is not None and c.verb == "noop" for c in parsed):
            notes.append(Reason(Code.NOTHING_DONE))
        open_orders = self._orders.count_for
        for raw, cmd, error in zip(commands, parsed, errors, strict=True):
            if cmd is None:
                outcomes.append(Outcome(str(raw), False, error))
                continue
            refusal = kitchen.execute(cmd, open_orders)
            outcomes.append(Outcome(str(raw), refusal is None, refusal))
        if record:
            self._tally(parsed, outcomes)
        return outcomes, notes

    def _tally(self, parsed: list[Command | None], outcomes: list[Outcome]) -> None:
        for cmd, outcome in zip(parsed, outcomes, strict=True):
            if cmd is None:
                continue
            stats = self.stats[cmd.agent]
            if outcome.ok:
                stats.ok[cmd.verb] += 1
            else:
                stats.refused += 1

    # ------------------------------------------------------------ legal moves
    def legal_commands(self, agent: int) -> list[str]:
        """Every command that would succeed for `agent` as the first command now.

        A get from a tool is listed in both forms the reference reads (``get_agent0_pot0`` and
        ``get_agent0_cookedRice_pot0``); puts in the three-part form (a put's item is ignored,
        so its four-part spellings are not enumerated).
        """
        self._ensure_started()
        if not 0 <= agent < self.n_agents:
            raise IndexError(f"agent {agent} is not in this kitchen of {self.n_agents}")
        return self._kitchen.legal(agent, self._legal_static, self._orders.count_for)

    def legal_labels(self, label: Callable[[str], U]) -> LegalLabels[U]:
        """A reusable way to list legal moves as labels instead of strings (e.g. RL action indices).

        `label` is called once per command spelling now, never while playing; a get from a tool is
        listed once (its three-part spelling). Use with `legal_labelled`::

            labels = world.legal_labels(table.index)
            world.legal_labelled(0, labels)     # [0, 1, 2, ...]: same moves as legal_commands(0)
        """
        return LegalLabels(self._legal_static.relabel(label))

    def legal_labelled(self, agent: int, labels: LegalLabels[U]) -> list[U]:
        """`legal_commands(agent)` as labels (the rules are the same code; only the spelling differs)."""
        self._ensure_started()
        return self._kitchen.legal(agent, labels.tables, self._orders.count_for)

    def legal_labelled_all(self, labels: LegalLabels[U]) -> list[U]:
        """Every agent's `legal_labelled` list, concatenated in agent order (one call per step for a team)."""
        self._ensure_started()
        kitchen, tables, count_for = self._kitchen, labels.tables, self._orders.count_for
        out: list[U] = []
        for agent in range(self.n_agents):
            out += kitchen.legal(agent, tables, count_for)
        return out


class LegalLabels(Generic[U]):
    """Legal-move tables relabelled by `World.legal_labels` (opaque: pass it to `legal_labelled`)."""

    __slots__ = ("tables",)

    def __init__(self, tables: _LegalTables[U]) -> None:
        self.tables = tables


def _rng_state(saved: list[object]) -> tuple[object, ...]:
    """`generator_state()` as it comes back from JSON: `setstate` wants the words as a tuple again.

    A saved state is data from a file, so a wrong shape is refused here with a plain message
    rather than deep inside `random`.
    """
    version, internal, gauss = saved
    if not isinstance(version, int) or not isinstance(internal, list | tuple):
        raise ValueError("not an order generator state saved by World.generator_state()")
    return (version, tuple(int(x) for x in internal), gauss)


class _LegalTables(Generic[T]):
    """Command strings (or, via `relabel`, any other label such as RL action indices) precomputed
    per agent, so enumerating legal moves is list work only."""

    __slots__ = ("noop", "goto", "get_base", "get_tool", "put", "activate", "get_prefix")

    def __init__(self, noop: list[T], goto: list[list[T]], get_base: list[list[list[T]]], get_tool: list[list[T]],
                 put: list[list[T]], activate: list[list[T]], get_prefix: list[str] | None) -> None:
        self.noop, self.goto, self.get_base, self.get_tool = noop, goto, get_base, get_tool
        self.put, self.activate = put, activate
        # the second spelling of a get from a tool (with the item); None: list the first spelling only
        self.get_prefix = get_prefix

    @staticmethod
    def strings(level: Level, n_agents: int) -> _LegalTables[str]:
        names = level.location_names
        agents = range(n_agents)
        profiles = level.team_profiles(n_agents)
        return _LegalTables(
            [f"noop_agent{a}" for a in agents],
            [[f"goto_agent{a}_{n}" for n in names if profiles is None or n in profiles[a].reach] for a in agents],
            [[[f"get_agent{a}_{b}_{n}" for b in level.base_ingredients] for n in names] for a in agents],
            [[f"get_agent{a}_{n}" for n in names] for a in agents],
            [[f"put_agent{a}_{n}" for n in names] for a in agents],
            [[f"activate_agent{a}_{n}" for n in names] for a in agents],
            [f"get_agent{a}_" for a in agents],
        )

    def relabel(self, label: Callable[[T], U]) -> _LegalTables[U]:
        """The same tables with every entry replaced by `label(entry)`, listing each tool get once."""
        def rows(table: list[list[T]]) -> list[list[U]]:
            return [[label(c) for c in row] for row in table]

        return _LegalTables([label(c) for c in self.noop], rows(self.goto), [rows(r) for r in self.get_base],
                            rows(self.get_tool), rows(self.put), rows(self.activate), None)
