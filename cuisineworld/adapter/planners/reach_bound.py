"""The split-kitchen part of the upper bound: who must do which command, and how long hand-offs take.

On a level whose agents each reach only part of the kitchen, counting the team's commands against
n(t + 1) is loose: a side served by one agent cannot borrow the other side's idle hands, and an
item that crosses a counter spends steps in transit. Two relaxations add that back, both sound:

**Forced work per group of agents.** A command at a place can only be issued by an agent that
reaches it. For every move of an item (from the places it comes from to the places it goes to, as
in `RecipeBook.handoffs`), the commands below are distinct, and each is issued by an agent of a
known set, so for every set S of agents the commands forced on agents inside S are at most
|S|(t + 1) by the end of step t (plus one per agent of S that starts away from a serving table:
its first get may need no goto):

- the item's first get, at a place it comes from (R(sources): the agents reaching one), and for a
  base ingredient the goto before it (an agent arrives at a storage by a goto, and between two of
  its gets there it must have destroyed the first item by a put into storage, which no other
  count takes);
- the item's first put into a place it goes to, and the goto before it (its carrier got it at a
  place that was not yet one of those), both by R(dests);
- when no agent reaches both ends (`TeamReach.hops` >= 1): the first getter cannot deliver it, so
  it puts it down elsewhere (a put, and a goto unless a place it comes from is itself a relay for
  it), both by R(sources); and the carrier of the first put into a destination got it from
  someone else's relay (that get, by R(dests), is not the first get);
- each activation and the steps its operator is held, by the agents reaching a tool of that type.

A product child built on inside its parent's tool type (`RecipeBook.in_place_nodes`) may never
move, so none of its move's commands are counted (a relaxation: at most one child per parent can).
The whole team keeps the existing count (`RecipeBook.work` plus three commands per crossing).

**Hand-offs on the critical path.** A crossing adds at least two steps to an item's path: every
carrier gets it, goes elsewhere (a goto) and puts it, and the next carrier's get can at best share
the step of that put; so an edge of h crossings arrives 2h steps later than a direct carry. A base
ingredient is put at step 3 at the earliest (goto, get, goto, put), or 2 if some agent starts at a
storage.

Example::

    level = load_level("relay_sashimi")
    forced_work(RecipeBook(level), "salmonSashimi", 3)   # {frozenset({0}): 4, ...}
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from itertools import combinations

from cuisineworld import World
from cuisineworld.adapter.planners.recipes import RecipeBook
from cuisineworld.reach import TeamReach

Group = frozenset[int]


def _performers(team: TeamReach, places: Iterable[str]) -> Group:
    names = tuple(places)
    return frozenset(a for a in range(team.n) if any(p in team.reach[a] for p in names))


def _sources(book: RecipeBook, item: str) -> tuple[str, ...]:
    recipe = book.recipe.get(item)
    if recipe is None or item in book.base:
        return book.storages
    return tuple(t.name for t in book.tools_of.get(recipe.tool, ()))


def _moves(book: RecipeBook, dish: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(item, places it goes to) for every move of the dish's tree a play must make; a product
    child of its parent's tool type may stay inside that tool, so its move is left out."""
    yield dish, book.servings
    queue = [dish]
    while queue:
        product = queue.pop()
        recipe = book.recipe.get(product)
        if recipe is None or product in book.base:
            continue
        dests = tuple(t.name for t in book.tools_of.get(recipe.tool, ()))
        for item in recipe.ingredients:
            child = book.recipe.get(item)
            is_product = child is not None and item not in book.base
            if is_product:
                queue.append(item)
            if not (is_product and child is not None and child.tool == recipe.tool):
                yield item, dests


def forced_work(book: RecipeBook, dish: str, n_agents: int) -> dict[Group, int]:
    """Commands one `dish` needs, keyed by the set of agents that can issue them (see above)."""
    team = book.team(n_agents)
    out: dict[Group, int] = {}
    if team is None:
        return out

    def add(group: Group, count: int) -> None:
        out[group] = out.get(group, 0) + count

    for item, dests in _moves(book, dish):
        sources = _sources(book, item)
        src, dst = _performers(team, sources), _performers(team, dests)
        relays = team.relays_for(item)
        hops = team.hops(sources, dests, relays) or 0
        add(src, 1 + (1 if item in book.base else 0))
        add(dst, 2)
        if hops:
            add(src, 1 + (0 if any(s in relays for s in sources) else 1))
            add(dst, 1)
    for tool_type in book.activations(dish):
        tools = book.tools_of.get(tool_type, ())
        wait = max(0, min(t.cook for t in tools) - 1) if tools and all(t.operator_busy for t in tools) else 0
        add(_performers(team, (t.name for t in tools)), 1 + wait)
    return out


@functools.lru_cache(maxsize=256)
def _starts(book: RecipeBook, n_agents: int) -> tuple[str, ...]:
    world = World(book.level, n_agents=n_agents)
    world.reset()
    return tuple(world.agent_location(a) for a in range(n_agents))


def start_credit(book: RecipeBook, n_agents: int, group: Group) -> int:
    """Agents of `group` that start away from a serving table (each may save one goto)."""
    starts = _starts(book, n_agents)
    return sum(1 for a in group if starts[a] not in book.servings)


def proper_groups(n_agents: int) -> Iterator[Group]:
    """Every non-empty set of agents but the whole team, smallest first (deterministic order)."""
    for size in range(1, n_agents):
        for group in combinations(range(n_agents), size):
            yield frozenset(group)


def group_work(work: dict[Group, int], group: Group) -> int:
    """Commands forced on agents inside `group`: those whose performers all belong to it."""
    return sum(count for performers, count in work.items() if performers <= group)


def critical_path(book: RecipeBook, dish: str, n_agents: int) -> int:
    """`RecipeBook.critical_path` with two steps per crossing on each edge (see above)."""
    team = book.team(n_agents)
    if team is None:
        return book.critical_path(dish)
    base_put = 2 if any(s in book.storages for s in _starts(book, n_agents)) else 3

    def crossings(item: str, dests: tuple[str, ...]) -> int:
        return team.hops(_sources(book, item), dests, team.relays_for(item)) or 0

    def ready(product: str) -> int:
        recipe = book.recipe[product]
        dests = tuple(t.name for t in book.tools_of.get(recipe.tool, ()))
        last = 0
        for item in recipe.ingredients:
            child = book.recipe.get(item)
            if child is None or item in book.base:
                arrive = base_put + 2 * crossings(item, dests)
            elif child.tool == recipe.tool:
                arrive = ready(item)
            else:
                arrive = ready(item) + 2 + 2 * crossings(item, dests)
            last = max(last, arrive)
        return last + book.cook.get(recipe.tool, 0)

    return ready(dish) + 2 + 2 * crossings(dish, book.servings) + 1
