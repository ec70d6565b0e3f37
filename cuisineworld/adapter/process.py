"""The kitchen's process metrics, read by re-playing a recording through the engine.

Collab-Overcooked (seeds 000, 002) scores trajectory efficiency against reference action
sequences (TES, and ITES between two collaborative actions) and progress completeness (PC);
VillagerBench (seed 001) scores each agent's contribution. Ours differ because a CuisineWorld
episode has N agents and a stream of orders, not one dish for two:

- **tes**: the recipe-tree minimum for the dishes served (`RecipeBook.work`: 4 commands per tree
  node plus operator waits, the upper bound's count) over the productive commands the team issued
  (ok and not idle). 1.0 means no command was spent beyond what the served dishes needed.
- **ites**: the same per stretch between collaborative actions: a stretch ends at each step with a
  hand-off and at the episode's end; its value is 4 x (items put in place: an ingredient into a
  tool, a dish onto a table) over its productive commands, capped at 1 (a stretch may finish an
  item whose get fell in the stretch before), and ites is the mean over the stretches.
- **handoffs**: items made or fetched by one agent (its owner) and used by another: taken out of
  a tool or off a table, or cooked by another agent's activation; **multi_agent_dishes**: the
  share of served dishes that more than one agent touched.
- **pc**: per order, the fraction of its recipe tree that existed (held or in a tool or on a table)
  when it was served (1.0) or failed, averaged over the orders that ended.
- **nodes_per_agent**: tree nodes each agent made (a base ingredient fetched, a product cooked by
  its activation): the contribution figure.

Items carry no identity in the engine, so contributions are followed by what each ok command
does (get, put, activate) and reconciled with the engine's own state after every step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cuisineworld import Command, Reason, load_level
from cuisineworld.adapter.planners.recipes import ACTIONS_PER_ITEM, RecipeBook
from cuisineworld.adapter.session import CuisineSession

Who = frozenset[int]
#: An item as followed here: its name, every agent who touched it, and its owner (who made or
#: fetched it; -1 when unknown, e.g. an item the engine shows that no followed command explains).
Entry = tuple[str, Who, int]


@dataclass
class _Tracker:
    """Who touched each item in hands and locations (storage excluded: it holds everything)."""

    held: dict[int, Entry | None]
    places: dict[str, list[Entry]]
    pending: dict[str, Who] = field(default_factory=dict)
    starter: dict[str, int] = field(default_factory=dict)
    handoffs: int = 0
    nodes: Counter[int] = field(default_factory=Counter)


def _parse(session: CuisineSession, text: str) -> Command | None:
    parsed = session.world.parse(text)
    return None if isinstance(parsed, Reason) else parsed


def _apply(t: _Tracker, cmd: Command, roles: Mapping[str, str], served: list[Entry]) -> bool:
    """Follow one ok command; True when it put an item in place (into a tool or onto a table)."""
    a, loc = cmd.agent, cmd.location
    if cmd.verb == "get" and loc is not None:
        if roles.get(loc) == "storage" and cmd.item is not None:
            t.held[a] = (cmd.item, frozenset({a}), a)
            t.nodes[a] += 1
            return False
        content = t.places.get(loc) or []
        if content:
            name, touched, owner = content.pop(0)
            if owner not in (-1, a):  # someone else's item taken over
                t.handoffs += 1
            t.held[a] = (name, touched | {a}, owner)
        return False
    if cmd.verb == "put" and loc is not None:
        held = t.held.get(a)
        t.held[a] = None
        if held is not None and roles.get(loc) != "storage":
            entry = (held[0], held[1] | {a}, held[2])
            t.places.setdefault(loc, []).append(entry)
            if roles.get(loc) == "serving":
                served.append(entry)
            return True
        return False
    if cmd.verb == "activate" and loc is not None:
        who: Who = frozenset({a})
        for _, hands, _owner in t.places.get(loc, []):
            who |= hands
        t.pending[loc] = who
        t.starter[loc] = a
    return False


def _reconcile(t: _Tracker, session: CuisineSession, roles: Mapping[str, str]) -> int:
    """Make the tracker agree with the engine; returns tree nodes cooked this step."""
    world = session.world
    made = 0
    for loc, role in roles.items():
        if role == "storage":
            continue
        actual = world.location_content(loc)
        tracked = t.places.get(loc, [])
        names = [entry[0] for entry in tracked]
        if names == actual:
            continue
        if len(actual) == 1 and actual[0] not in names:  # a tool finished its product
            who = t.pending.pop(loc, frozenset())
            starter = t.starter.pop(loc, -1)
            for _, hands, owner in tracked:
                who |= hands
                if owner not in (-1, starter) and starter != -1:  # someone else's ingredient cooked
                    t.handoffs += 1
            t.places[loc] = [(actual[0], who, starter)]
            if role == "tool":
                made += 1
                if starter != -1:
                    t.nodes[starter] += 1
            continue
        pool = list(tracked)
        rebuilt: list[Entry] = []
        for item in actual:
            match = next((k for k, entry in enumerate(pool) if entry[0] == item), None)
            rebuilt.append(pool.pop(match) if match is not None else (item, frozenset(), -1))
        t.places[loc] = rebuilt
    for a in range(session.n_agents):
        holding = world.agent_holding(a)
        held = t.held.get(a)
        if (held[0] if held else None) != holding:
            t.held[a] = None if holding is None else (holding, frozenset(), -1)
    return made


def _existing(t: _Tracker) -> Counter[str]:
    out: Counter[str] = Counter(h[0] for h in t.held.values() if h is not None)
    for content in t.places.values():
        out.update(entry[0] for entry in content)
    return out


def _tree_done(book: RecipeBook, dish: str, existing: Counter[str]) -> int:
    """Nodes of the dish's tree already made: a whole subtree when its root exists."""
    if existing.get(dish, 0) > 0:
        return book.size(dish)
    recipe = book.recipe.get(dish)
    if recipe is None or dish in book.base:
        return 0
    return sum(_tree_done(book, i, existing) for i in recipe.ingredients)


def process_metrics(header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Re-play the recorded commands and measure the process (see the module docstring)."""
    level = load_level(str(header["level"]), rules=str(header.get("rules") or "reference"),
                       recipes=header.get("recipes"))
    session = CuisineSession(level, n_agents=int(header["agents"]), tau=float(header["tau"]),
                             seed=int(header["seed"]), max_steps=header.get("max_steps"))
    state = header.get("generator_state")
    session.world.reset(generator_state=state if isinstance(state, list) and len(state) == 3 else None)
    book = RecipeBook(level)
    roles = {loc.name: loc.role for loc in level.locations}
    idle = {session.idle_command(a) for a in range(session.n_agents)}
    t = _Tracker({a: None for a in range(session.n_agents)}, {})
    productive = 0
    served_work = 0
    served_dishes: list[Who] = []
    pcs: list[float] = []
    windows: list[float] = []
    window_puts = window_commands = 0
    for record in steps:
        commands = [str(c) for c in record.get("commands") or []]
        result = session.step_now(commands)
        handoffs_before = t.handoffs
        served: list[Entry] = []
        for verdict in result.verdicts:
            if not verdict.ok or verdict.command in idle:
                continue
            cmd = _parse(session, verdict.command)
            if cmd is None or cmd.verb == "noop":
                continue
            productive += 1
            window_commands += 1
            if _apply(t, cmd, roles, served):
                window_puts += 1
        _reconcile(t, session, roles)
        for dish in result.completed:
            served_work += book.work(dish)
            pcs.append(1.0)
            match = next((k for k, entry in enumerate(served) if entry[0] == dish), None)
            served_dishes.append(served.pop(match)[1] if match is not None else frozenset())
        existing = _existing(t)
        for dish in result.failed:
            size = book.size(dish)
            pcs.append(min(1.0, _tree_done(book, dish, existing) / size) if size else 0.0)
        if t.handoffs > handoffs_before and window_commands:
            windows.append(min(1.0, ACTIONS_PER_ITEM * window_puts / window_commands))
            window_puts = window_commands = 0
    if window_commands:
        windows.append(min(1.0, ACTIONS_PER_ITEM * window_puts / window_commands))
    return {
        "tes": round(served_work / productive, 6) if productive else None,
        "ites": round(sum(windows) / len(windows), 6) if windows else None,
        "handoffs": t.handoffs,
        "multi_agent_dishes": round(sum(len(w) > 1 for w in served_dishes) / len(served_dishes), 6)
        if served_dishes else None,
        "pc": round(sum(pcs) / len(pcs), 6) if pcs else None,
        "productive_commands": productive,
        "nodes_per_agent": [t.nodes.get(a, 0) for a in range(session.n_agents)],
    }
