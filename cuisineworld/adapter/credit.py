"""Who made each served dish: a ledger of the agents that touched every item on its way.

Counting only the serving put ("served by agent1") gives a person who fetched, chopped and
passed every part of two dishes a share of zero. The ledger instead follows every item: a `get`
from a storage starts an item with its fetcher as contributor, a `get` or `put` adds the agent
that moved it (so a hand-off over a counter counts for both sides), an `activate` adds the cook,
and a tool's product inherits everyone who contributed to its ingredients. When an order is
completed, the dish is shared equally by its contributors: each gets 1/k of that dish. An agent's
share of the served dishes is the sum of its parts; the shares add up to the dishes completed.

The ledger mirrors the engine from outside (the rules package stays untouched): it replays the
accepted commands of a step in order, then reconciles its item names with the kitchen the engine
reports, so anything it cannot follow (an item that vanished, a product it did not foresee) is
corrected at once and only its contributors are uncertain.

Example::

    ledger = DishLedger(world)
    result = world.step(commands)
    ledger.record(world, result)
    ledger.shares          # [1.5, 0.5]: agent0 worked on both dishes alone, agent1 shared one
"""

from __future__ import annotations

from cuisineworld import World
from cuisineworld.commands import Command
from cuisineworld.world import StepResult

Part = tuple[str, frozenset[int]]  # an item and the agents that contributed to it


class DishLedger:
    """Contributors of every item in the kitchen, and each agent's share of the served dishes."""

    def __init__(self, world: World) -> None:
        self._roles = {loc.name: loc.role for loc in world.level.locations}
        self._storages = frozenset(n for n, r in self._roles.items() if r == "storage")
        self._servings = frozenset(n for n, r in self._roles.items() if r == "serving")
        self.shares = [0.0] * world.n_agents
        self.dishes = 0
        self._hands: list[Part | None] = [None] * world.n_agents
        self._places: dict[str, list[Part]] = {n: [] for n in self._roles if n not in self._storages}
        self.reset(world)

    def reset(self, world: World) -> None:
        """Start a new episode: whatever the kitchen holds now has no contributor yet."""
        self.shares = [0.0] * world.n_agents
        self.dishes = 0
        self._hands = [None if (h := world.agent_holding(a)) is None else (h, frozenset())
                       for a in range(world.n_agents)]
        self._places = {n: [(i, frozenset()) for i in world.location_content(n)] for n in self._places}

    def record(self, world: World, result: StepResult) -> None:
        """Follow one step's accepted commands, then settle completed orders and reconcile."""
        for outcome in result.outcomes:
            if outcome.ok:
                cmd = world.parse(outcome.command)
                if isinstance(cmd, Command):
                    self._follow(cmd)
        self._reconcile(world, list(result.completed))

    def _follow(self, cmd: Command) -> None:
        a, place = cmd.agent, cmd.location
        if cmd.verb == "get" and place is not None:
            if place in self._storages:
                self._hands[a] = (cmd.item or "", frozenset((a,)))
            elif self._places.get(place):
                item, who = self._places[place][0]
                self._hands[a] = (item, who | {a})
                self._places[place] = []
        elif cmd.verb == "put" and place is not None:
            held, self._hands[a] = self._hands[a], None
            if held is not None and place in self._places:
                self._places[place].append((held[0], held[1] | {a}))
        elif cmd.verb == "activate" and place in self._places:
            self._places[place] = [(i, w | {a}) for i, w in self._places[place]]

    def _reconcile(self, world: World, completed: list[str]) -> None:
        for place, parts in self._places.items():
            actual = world.location_content(place)
            if [i for i, _ in parts] == actual:
                continue
            kept: list[Part] = []
            left = list(parts)
            for item in actual:
                match = next((p for p in left if p[0] == item), None)
                if match is not None:
                    left.remove(match)
                kept.append(match or (item, frozenset()))
            if place in self._servings:
                for item, who in left:
                    if item in completed:
                        completed.remove(item)
                        self._credit(who)
                left = []
            # a product made from what vanished inherits its contributors
            gone = frozenset().union(*(w for _, w in left)) if left else frozenset()
            self._places[place] = [(i, w | gone) if i not in {p[0] for p in parts} else (i, w) for i, w in kept]
        self.dishes += len(completed)  # dishes completed without passing a table the ledger saw
        for a in range(world.n_agents):
            held = world.agent_holding(a)
            mine = self._hands[a]
            if held is None:
                self._hands[a] = None
            elif mine is None or mine[0] != held:
                self._hands[a] = (held, frozenset())

    def _credit(self, who: frozenset[int]) -> None:
        self.dishes += 1
        if who:
            part = 1.0 / len(who)
            for a in sorted(who):
                self.shares[a] += part


__all__ = ["DishLedger"]
