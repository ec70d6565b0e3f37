"""Break one wanted dish into where each of its items will come from, reusing what exists.

A job ("one more of dish d, delivered to d's destination") is resolved top-down over the
recipe tree. For every item the resolver takes, in this order of preference, what is furthest
along: an item already in someone's hands, a finished product sitting in a tool (or still
cooking there), a tool whose raw content is a subset of the recipe (adopted and completed), a
free tool of the right type (reserved), and for base ingredients the storage. Every hand and tool
is claimed by at most one job, so jobs resolved first (the most urgent) get the most advanced
material, and lower jobs never disturb their tools.

Each node also gets an optimistic ETA (`put_idx`: the step index, from now, of the put that
delivers it), used to spot orders that can no longer be served in time, and a `tail` (steps from
its delivery to the dish's serving), used to start the longest chains first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cuisineworld.adapter.planners.snapshot import Snapshot

UNREACHABLE = 10**6


@dataclass(slots=True)
class Node:
    item: str
    kind: str  # hand | tool | shelf (on a counter) | storage | make | blocked | none
    dest: str | None  # where the item goes next (a tool, a serving table, a storage as trash)
    job: int
    agent: int | None = None  # kind == "hand"
    tool: str | None = None  # the tool holding (kind "tool"), making ("make") or counter holding ("shelf") it
    source: str | None = None  # the storage (kind "storage")
    children: list[Node] = field(default_factory=list)
    put_idx: int = 0
    tail: int = 0
    queued: bool = False  # the tool still holds another product; this node uses it next


class Resolver:
    """Claims hands and tools for jobs resolved one after the other on one snapshot."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.book = snap.book
        self.hands: set[int] = set()
        self.tools: dict[str, int] = {}  # tool -> job that claimed it
        self.queued: dict[str, Node] = {}  # tool -> the node that uses it once its product is out
        self.products: dict[str, Node] = {}  # tool -> the node taking its product out
        self.makers: dict[str, Node] = {}  # tool -> the node filling and activating it
        self.queue_feeds: list[Node] = []  # storage fetches of queued nodes, for leftover held items
        #: Products a leftover in a tool may be finished into (None: any; set under head-chef orders).
        self.wanted_products: set[str] | None = None
        self.may_queue = True  # whether a job that finds every tool busy may queue behind one
        self.blocked_types: dict[str, int] = {}  # tool type -> most urgent job waiting for one

    def save(self) -> tuple[Any, ...]:
        """The claims so far, to undo a job that turns out not to be worth resolving."""
        return (set(self.hands), dict(self.tools), dict(self.queued), dict(self.products), dict(self.makers),
                list(self.queue_feeds), dict(self.blocked_types))

    def restore(self, saved: tuple[Any, ...]) -> None:
        (self.hands, self.tools, self.queued, self.products, self.makers,
         self.queue_feeds, self.blocked_types) = saved

    def resolve(self, job: int, item: str, dest: str | None, tail: int = 0, force_tool: str | None = None) -> Node:
        node = self._acquire(job, item, dest, force_tool)
        node.tail = tail
        self._finish(node)
        return node

    def _finish(self, node: Node) -> None:
        if node.kind in ("make", "blocked"):
            recipe = self.book.recipe[node.item]
            step = self.book.cook.get(recipe.tool, 0) + 3
            for child in node.children:
                child.tail = node.tail + step
                self._finish(child)

    # ----------------------------------------------------------------- sources
    def _acquire(self, job: int, item: str, dest: str | None, force_tool: str | None = None,
                 hands: bool = True) -> Node:
        snap = self.snap
        if force_tool is None:
            agent = self._hand(item, dest) if hands else None
            if agent is not None and self._behind_the_pass(agent, dest) and snap.shelf and self._shelved(item):
                agent = None  # the same item already waits on a counter, past the pass: use that one first
            if agent is not None:
                self.hands.add(agent)
                delay = snap.busy[agent] + (0 if snap.at[agent] == dest else 1)
                return Node(item, "hand", dest, job, agent=agent, put_idx=delay)
            counter = self._shelved(item) if snap.shelf else None
            if counter is not None:  # left on a counter for a hand-off: furthest along, take it first
                self.tools[counter] = job
                return Node(item, "shelf", dest, job, tool=counter, put_idx=2 if self._someone_at(counter) else 3)
            if item in self.book.base:
                return self._storage(job, item, dest)
            tool = self._product(item)
            if tool is not None:
                self.tools[tool] = job
                ready = snap.tool_busy[tool]
                node = Node(item, "tool", dest, job, tool=tool)
                self.products[tool] = node
                if ready == 0 and not self._someone_at(tool):
                    ready = 1
                node.put_idx = ready + 2
                return node
        if not self.book.makeable(item):
            return Node(item, "none", dest, job, put_idx=UNREACHABLE)
        return self._make(job, item, dest, force_tool)

    def _hand(self, item: str, dest: str | None) -> int | None:
        snap = self.snap
        if snap.team is not None and dest is not None:
            # on a split kitchen: the holder with the fewest hand-offs to go, then one already there
            hops = snap.team.hops_to(dest)
            holders = [a for a in range(snap.n) if snap.hold[a] == item and a not in self.hands]
            return min(holders, key=lambda a: (hops[a] is None, hops[a] or 0, snap.at[a] != dest, a), default=None)
        best = None
        for a in range(snap.n):
            if snap.hold[a] == item and a not in self.hands:
                if snap.at[a] == dest:
                    return a
                if best is None:
                    best = a
        return best

    def _behind_the_pass(self, agent: int, dest: str | None) -> bool:
        """On a split kitchen: `agent` cannot bring its item to `dest` without a hand-off."""
        team = self.snap.team
        if team is None or dest is None:
            return False
        hops = team.hops_to(dest)[agent]
        return hops is None or hops > 0

    def _shelved(self, item: str) -> str | None:
        for counter, items in self.snap.shelves.items():
            if counter not in self.tools and items == [item]:
                return counter
        return None

    def _someone_at(self, location: str) -> bool:
        return any(loc == location for loc in self.snap.at)

    def _storage(self, job: int, item: str, dest: str | None) -> Node:
        storages = self.book.storages
        source = next((s for s in storages if self._someone_at(s)), storages[0] if storages else None)
        if source is None:
            return Node(item, "none", dest, job, put_idx=UNREACHABLE)
        ready = 2 if self._someone_at(source) else 3
        return Node(item, "storage", dest, job, source=source, put_idx=ready)

    def _product(self, item: str) -> str | None:
        snap = self.snap
        best = None
        for t in self.book.tools:
            name = t.name
            if name in self.tools or snap.gettable_item(name) != item or snap.is_raw(name):
                continue
            if best is None or snap.tool_busy[name] < snap.tool_busy[best]:
                best = name
        return best

    # ------------------------------------------------------------------ making
    def _make(self, job: int, item: str, dest: str | None, force_tool: str | None) -> Node:
        recipe = self.book.recipe[item]
        tool, missing = (force_tool, self.book.missing(item, self.snap.content[force_tool])) if force_tool \
            else self._pick_tool(item, recipe.tool)
        if tool is None and force_tool is None and self.may_queue:
            tool = self._queue_tool(recipe.tool)
            if tool is not None:
                self.blocked_types.setdefault(recipe.tool, job)
                node = Node(item, "make", dest, job, tool=tool, queued=True)
                self.queued[tool] = node
                # held items go where they can be put now; a queue is fed from storage and tools
                node.children = [self._acquire(job, i, tool, hands=False) for i in recipe.ingredients]
                self.queue_feeds.extend(c for c in node.children if c.kind == "storage")
                last = max(c.put_idx for c in node.children)
                wait = self._free_at(tool)
                node.put_idx = min(UNREACHABLE, max(last, wait) + self.book.cook.get(recipe.tool, 0) + 2)
                return node
        if tool is None or missing is None:
            self.blocked_types.setdefault(recipe.tool, job)
            node = Node(item, "blocked", dest, job)
            node.children = [self._acquire(job, i, None, hands=False) for i in recipe.ingredients]
        else:
            self.tools[tool] = job
            node = Node(item, "make", dest, job, tool=tool)
            if force_tool is None:
                self.makers[tool] = node
            node.children = [self._acquire(job, i, tool) for i in missing]
        last = max((c.put_idx for c in node.children), default=0 if self._someone_at(tool or "") else 1)
        node.put_idx = min(UNREACHABLE, last + self.book.cook.get(recipe.tool, 0) + 2)
        return node

    def _pick_tool(self, item: str, tool_type: str) -> tuple[str | None, list[str] | None]:
        """The most complete adoptable tool, else an idle empty one (kitchen order).

        A tool holding a finished ingredient of `item` is adoptable too: the rest goes in on top of
        it (a chain of recipes on one tool type). A raw tool is not adopted while the recipe still
        needs a product that nobody has and whose tree needs this tool type, when no other tool of
        the type is free: that product must be made first, and filling the tool now would leave it
        nowhere to be made (one mixer, surfTurfDough = fishTunaDough + lamb: lamb first is a dead
        end; found by running the planner over generated levels).
        """
        snap = self.snap
        best: str | None = None
        best_missing: list[str] | None = None
        for t in self.book.tools_of.get(tool_type, ()):
            name = t.name
            if name in self.tools or snap.tool_busy[name]:
                continue
            content = snap.content[name]
            if not snap.is_raw(name) and not content:
                continue
            missing = self.book.missing(item, content)
            if missing is None:
                continue
            if snap.is_raw(name) and any(self._made_here_first(p, tool_type, name) for p in missing):
                continue
            if t.capacity != -1 and len(content) + len(missing) > t.capacity:
                continue
            if best_missing is None or len(missing) < len(best_missing):
                best, best_missing = name, missing
        return best, best_missing

    def _made_here_first(self, product: str, tool_type: str, tool: str) -> bool:
        """`product` is nowhere to be had (no free hand holds it, no free tool has it ready) and its
        recipe tree needs a tool of `tool_type`, of which `tool` is the only one free: filling
        `tool` now would leave the product nowhere to be made."""
        if not self._tree_uses(product, tool_type):
            return False
        snap = self.snap
        if any(snap.hold[a] == product and a not in self.hands for a in range(snap.n)):
            return False
        if self._product(product) is not None:
            return False
        return not any(t.name != tool and t.name not in self.tools and not snap.content[t.name]
                       for t in self.book.tools_of.get(tool_type, ()))

    def _tree_uses(self, product: str, tool_type: str) -> bool:
        recipe = self.book.recipe.get(product)
        if recipe is None or product in self.book.base:
            return False
        return recipe.tool == tool_type or any(self._tree_uses(i, tool_type) for i in recipe.ingredients)

    def _queue_tool(self, tool_type: str) -> str | None:
        """A tool of this type whose product will soon leave, to be used right after (soonest)."""
        snap = self.snap
        best = None
        for t in self.book.tools_of.get(tool_type, ()):
            name = t.name
            if name in self.queued or not snap.content[name]:
                continue
            if snap.is_raw(name) and name not in self.makers:
                continue
            if best is None or self._free_at(name) < self._free_at(best):
                best = name
        return best

    def _free_at(self, tool: str) -> int:
        maker = self.makers.get(tool)
        return maker.put_idx - 1 if maker is not None else self.snap.tool_busy[tool] + 1

    def feed_queues(self) -> None:
        """Held items no job could put anywhere now go to a queue that wants them."""
        snap = self.snap
        for a in range(snap.n):
            item = snap.hold[a]
            if item is None or a in self.hands:
                continue
            for node in self.queue_feeds:
                if node.kind == "storage" and node.item == item:
                    node.kind, node.agent, node.source = "hand", a, None
                    node.put_idx = snap.busy[a] + (0 if snap.at[a] == node.dest else 1)
                    self.hands.add(a)
                    break

    def settle_queues(self) -> None:
        """Cancel queues on tools whose product has no claimed way out (they would wait forever)."""
        changed = True
        while changed:
            changed = False
            for tool, node in list(self.queued.items()):
                out = self.products.get(tool) or self.makers.get(tool)
                if out is not None and out.dest is not None:
                    continue
                del self.queued[tool]
                node.queued = False
                node.kind = "blocked"
                node.tool = None
                for child in node.children:
                    child.dest = None
                changed = True


def tree_nodes(root: Node) -> list[Node]:
    """Every node of a resolved tree, parents before children."""
    out = [root]
    i = 0
    while i < len(out):
        out.extend(out[i].children)
        i += 1
    return out
