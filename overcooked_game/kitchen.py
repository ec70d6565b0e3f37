"""The kitchen as commands see it: named stations, who can reach what, and what is feasible now.

`Kitchen` is built once per session from a layout. It names the stations (``pot0``, ``k3``...)
in reading order, knows which floor region each chef stands in (forced_coordination splits the
floor in two), and answers, for a parsed `Command` and a package `OvercookedState`, either None
(feasible) or a `Refusal`: LLM-Coordination's feasible-action filter, with a reason.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from overcooked_game.commands import Command
from overcooked_game.layouts import Layout, build_mdp, motion_planner

Pos = tuple[int, int]
Motion = tuple[Pos, tuple[int, int]]
#: Cooking time of a three-onion soup under the classic dynamics (the package's default recipe time).
COOK_TIME = 20


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a command cannot run now. `code` names the rule; `detail` fills the wording table."""

    code: str
    chef: int | None = None
    detail: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "chef": self.chef, **dict(self.detail)}

    def get(self, key: str) -> str:
        return dict(self.detail).get(key, "")


def refuse(code: str, chef: int | None = None, **detail: object) -> Refusal:
    return Refusal(code, chef, tuple((k, str(v)) for k, v in sorted(detail.items())))


@dataclass(frozen=True, slots=True)
class Pot:
    """What a pot holds now: 0-3 onions, and cooking progress once it has three."""

    onions: int
    cooking: bool
    ready: bool
    remaining: int

    @property
    def fillable(self) -> bool:
        return self.onions < 3 and not self.cooking and not self.ready


class Kitchen:
    """Stations, regions and feasibility for one layout. Example::

        kitchen = Kitchen(load_layout("cramped_room"))
        kitchen.refusal(state, Command("put_onion", 0, "pot0"))   # Refusal("hands_empty", 0, ...)
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.mdp = build_mdp(layout)
        self.mp = motion_planner(layout.rows)
        cells = {(x, y): c for y, row in enumerate(layout.rows) for x, c in enumerate(row)}
        self.terrain = {p: (" " if c in "12" else c) for p, c in cells.items()}
        self.floor = frozenset(p for p, c in self.terrain.items() if c == " ")

        def of(letter: str) -> tuple[Pos, ...]:
            return tuple(sorted((p for p, c in self.terrain.items() if c == letter), key=lambda p: (p[1], p[0])))

        self.pots, self.counters = of("P"), of("X")
        self.onion_dispensers, self.dish_dispensers, self.serving = of("O"), of("D"), of("S")
        self.names: dict[Pos, str] = {p: f"pot{i}" for i, p in enumerate(self.pots)}
        self.names.update({p: f"k{i}" for i, p in enumerate(self.counters)})
        self.by_name = {n: p for p, n in self.names.items()}
        self.region = self._regions()
        self.touch: dict[Pos, frozenset[int]] = {
            p: frozenset(self.region[n] for n in neighbours(p) if n in self.floor)
            for p, c in self.terrain.items() if c != " "}

    def _regions(self) -> dict[Pos, int]:
        """Connected floor areas, numbered in reading order of their first cell."""
        region: dict[Pos, int] = {}
        for start in sorted(self.floor, key=lambda p: (p[1], p[0])):
            if start in region:
                continue
            label = len(set(region.values()))
            queue = deque([start])
            region[start] = label
            while queue:
                for n in neighbours(queue.popleft()):
                    if n in self.floor and n not in region:
                        region[n] = label
                        queue.append(n)
        return region

    # ------------------------------------------------------------------ what is where
    def reaches(self, pos: Pos, station: Pos) -> bool:
        return self.region.get(pos, -1) in self.touch.get(station, frozenset())

    def pot(self, state: Any, pos: Pos) -> Pot:
        soup = state.objects.get(pos)
        if soup is None:
            return Pot(0, False, False, 0)
        ready = bool(soup.is_ready)
        cooking = bool(soup.is_cooking) and not ready
        left = int(soup.cook_time_remaining) if cooking else 0
        return Pot(len(soup.ingredients), cooking, ready, left)

    def counter_items(self, state: Any, name: str) -> list[Pos]:
        """Counters holding an item called `name` (``onion``, ``dish``, ``soup``), in reading order."""
        return [p for p in self.counters if p in state.objects and state.objects[p].name == name]

    def empty_counters(self, state: Any) -> list[Pos]:
        return [p for p in self.counters if p not in state.objects]

    def sources(self, state: Any, verb: str, pos: Pos) -> list[Pos]:
        """Where a chef standing at `pos` picks up: a dispenser it can reach, else a counter
        holding the item. Counters are for hand-overs: a chef with its own dispenser never takes
        back what was left on a counter for its partner (forced_coordination)."""
        item = verb.removeprefix("pickup_")
        dispensers = {"onion": self.onion_dispensers, "dish": self.dish_dispensers}.get(item, ())
        own = [d for d in dispensers if self.reaches(pos, d)]
        return own or self.counter_items(state, item)

    def targets(self, state: Any, command: Command) -> list[Pos]:
        """The stations a medium-level command may end at (empty for wait, move away, primitives)."""
        verb = command.verb
        if verb.startswith("pickup_"):
            return self.sources(state, verb, state.players[command.chef].position)
        if verb == "deliver":
            return list(self.serving)
        if command.target is not None and command.target in self.by_name:
            return [self.by_name[command.target]]
        return []

    # --------------------------------------------------------------- feasibility
    def refusal(self, state: Any, command: Command) -> Refusal | None:
        """None when `command` can start now, else why not (hands, station state, reach)."""
        if command.primitive or command.verb in ("wait", "move_away"):
            return None
        chef = command.chef
        player = state.players[chef]
        held = player.held_object.name if player.held_object is not None else None
        verb = command.verb
        needs = {"pickup_onion": None, "pickup_dish": None, "pickup_soup": None, "put_onion": "onion",
                 "fill_dish": "dish", "deliver": "soup"}
        if verb == "place":
            if held is None:
                return refuse("hands_empty", chef, verb=verb)
        elif needs[verb] is None and held is not None:
            return refuse("hands_full", chef, verb=verb, held=held)
        elif needs[verb] is not None and held != needs[verb]:
            return refuse("hands_empty" if held is None else "wrong_item", chef, verb=verb, need=needs[verb],
                          held=held or "nothing")
        return self._station_refusal(state, command, player.position)

    def _station_refusal(self, state: Any, command: Command, pos: Pos) -> Refusal | None:
        chef, verb, target = command.chef, command.verb, command.target
        if target is not None:
            station = self.by_name.get(target)
            kind = "pot" if target.startswith("pot") else "counter"
            if station is None:
                return refuse("no_such_station", chef, target=target, kind=kind)
            if verb == "put_onion":
                pot = self.pot(state, station)
                if not pot.fillable:
                    return refuse("pot_full", chef, target=target, state="cooking" if pot.cooking else
                                  "ready" if pot.ready else "full")
            if verb == "fill_dish":
                pot = self.pot(state, station)
                if not (pot.cooking or pot.ready):
                    return refuse("pot_not_cooking", chef, target=target, onions=pot.onions)
            if verb == "place" and station in state.objects:
                return refuse("counter_taken", chef, target=target, item=state.objects[station].name)
            if not self.reaches(pos, station):
                return refuse("unreachable", chef, target=target)
            return None
        stations = self.targets(state, command)
        if not any(self.reaches(pos, s) for s in stations):
            return refuse("nothing_reachable", chef, verb=verb)
        return None

    # ------------------------------------------------------------------ motion
    def best_goal(self, state: Any, chef: int, stations: Iterable[Pos],
                  free_only: bool = False) -> tuple[Pos, Motion, int] | None:
        """The reachable station, standing cell and facing with the cheapest plan from where the
        chef stands (the package's motion planner), a standing cell the partner occupies costing
        three more (`free_only`: left out); ties go to reading order. None when nothing is reachable."""
        player = state.players[chef]
        start = (player.position, player.orientation)
        taken = {p.position for i, p in enumerate(state.players) if i != chef}
        best: tuple[int, tuple[int, int], Pos, Motion] | None = None
        for station in stations:
            for goal in self.mp.motion_goals_for_pos.get(station, ()):
                plan = self.mp.all_plans.get((start, goal))
                if plan is None or (free_only and goal[0] in taken):
                    continue
                cost = int(plan[2]) + (3 if goal[0] in taken else 0)
                key = (cost, (station[1], station[0]), station, goal)
                if best is None or key[:2] < best[:2]:
                    best = key
        return None if best is None else (best[2], best[3], best[0])

    def first_action(self, state: Any, chef: int, goal: Motion) -> Any:
        """The first action of the package planner's plan to `goal` (interact once there)."""
        player = state.players[chef]
        return self.mp.all_plans[((player.position, player.orientation), goal)][0][0]

    def detour(self, start: Pos, goal: Pos, blocked: set[Pos]) -> tuple[int, int] | None:
        """The first move of a shortest floor path from `start` to `goal` around `blocked` cells
        (the partner), or None when there is none."""
        found = self.route(start, goal, blocked)
        return None if found is None else found[0]

    def walk(self, start: Pos, goal: Pos, blocked: set[Pos]) -> int | None:
        """Floor steps of a shortest path from `start` to `goal` around `blocked` cells (None: no path)."""
        if start == goal:
            return 0
        found = self.route(start, goal, blocked)
        return None if found is None else found[1]

    def route(self, start: Pos, goal: Pos, blocked: set[Pos]) -> tuple[tuple[int, int], int] | None:
        """(first move, steps) of a shortest floor path from `start` to a different `goal` around
        `blocked` cells, or None. Breadth-first, neighbours in a fixed order, so ties break the same
        way every time."""
        if start == goal:
            return None
        first: dict[Pos, tuple[int, int]] = {}
        queue = deque([(start, 0)])
        seen = {start}
        while queue:
            here, steps = queue.popleft()
            for step in DIRECTIONS:
                n = (here[0] + step[0], here[1] + step[1])
                if n in seen or n not in self.floor or n in blocked:
                    continue
                seen.add(n)
                first[n] = first.get(here, step)
                if n == goal:
                    return first[n], steps + 1
                queue.append((n, steps + 1))
        return None

#: North, south, east, west: the package's direction tuples, in its order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, -1), (0, 1), (1, 0), (-1, 0))
DIRECTION_NAMES = {(0, -1): "north", (0, 1): "south", (1, 0): "east", (-1, 0): "west"}


def neighbours(p: Pos) -> list[Pos]:
    return [(p[0] + dx, p[1] + dy) for dx, dy in DIRECTIONS]
