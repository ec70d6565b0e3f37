"""Turn resolved jobs into sub-tasks and give each free agent one command.

Sub-tasks are "carry item X from its source to its destination" and "activate tool T". An agent
holding a claimed item finishes carrying it; an agent holding an unclaimed item gets rid of it (a
dish goes to the serving table when the rules let it wait there, anything else to the trash);
free agents take ready sub-tasks in priority order, the cheapest agent first (one already at the
source costs no goto), and an agent standing at a ready item of an order takes it before walking
off to an item of the same order that is hardly more urgent. Agents left over walk to where a
sub-task will soon be ready.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cuisineworld.adapter.planners.resolve import Node
from cuisineworld.adapter.planners.snapshot import Snapshot

Cmd = tuple[str, int, str | None, str | None]  # verb, agent, location, item
PREPOSITION_HORIZON = 2  # steps ahead an agent walks to a cooking tool to be there when it is done
STAY_HORIZON = 2  # steps an agent standing at a tool waits for its product instead of leaving


@dataclass(slots=True)
class Task:
    kind: str  # "move" | "activate"
    key: tuple[float, ...]
    src: str
    item: str | None  # base ingredient fetched from a storage
    dest: str | None
    wait: int  # steps until it can start (0 = now)
    parks: bool = False  # the destination cannot take the item yet: its carrier will wait holding it

    @property
    def signature(self) -> tuple[str, str, str | None, str | None]:
        return (self.kind, self.src, self.item, self.dest)


@dataclass(slots=True)
class Decision:
    cmd: Cmd
    mode: str  # "act" (get/put/activate) | "goto" | "wait" (stay for a task) | "idle" (nothing to do)
    task: Task | None = None  # the sub-task this decision works on, if it is not a held item


HandDest = dict[int, tuple[str | None, bool]]  # agent -> (where its item goes, must wait there)


def collect_tasks(snap: Snapshot, root: Node, job_key: tuple[int, int, int], tasks: list[Task],
                  hand_dest: HandDest) -> None:
    """Sub-tasks of one resolved job, appended to `tasks`; held items go to `hand_dest`.

    `job_key` is (class, deadline, rank): class 0 jobs (orders) order their sub-tasks by latest
    start (deadline minus the steps still to go after the sub-task), later classes by rank; inside
    a job the longest remaining chain goes first.
    """
    cls, deadline, rank = job_key
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, queued = stack.pop()
        stack.extend((c, node.queued) for c in node.children)
        parks = queued or node.dest is None or not _accepts(snap, node.dest, node.item)
        if node.kind == "hand" and node.agent is not None:
            hand_dest[node.agent] = (node.dest, parks)
        elif node.kind == "storage" and node.dest is not None and node.source is not None:
            key = _key(cls, deadline, rank, node.tail, 4)
            tasks.append(Task("move", key, node.source, node.item, node.dest, 0, parks))
        elif node.kind == "shelf" and node.dest is not None and node.tool is not None:
            tasks.append(Task("move", _key(cls, deadline, rank, node.tail, 3), node.tool, None, node.dest, 0, parks))
        elif node.kind == "tool" and node.dest is not None and node.tool is not None:
            key = _key(cls, deadline, rank, node.tail, 3 + snap.tool_busy[node.tool])
            tasks.append(Task("move", key, node.tool, None, node.dest, snap.tool_busy[node.tool], parks))
        elif node.kind == "make" and node.tool is not None and not node.queued:
            # activate, cook, then get, goto and put the product before the tail starts
            key = _key(cls, deadline, rank, node.tail, 4 + snap.book.tool[node.tool].cook)
            if not node.children:
                tasks.append(Task("activate", key, node.tool, None, None, 0))
            elif all(c.kind == "hand" for c in node.children):
                tasks.append(Task("activate", key, node.tool, None, None, 1))


def _key(cls: int, deadline: int, rank: int, tail: int, duration: int) -> tuple[int, int, int, int]:
    """Orders: latest start (deadline - steps still needed from this task on); spares: rank."""
    return (cls, deadline - tail - duration if cls == 0 else rank, rank, -(tail + duration))


def _accepts(snap: Snapshot, dest: str, item: str) -> bool:
    if dest in snap.shelves:
        return not snap.shelves[dest]
    if dest in snap.content:
        return snap.can_put(dest, item)
    if dest in snap.book.servings:
        return snap.can_serve(item)
    return True


def eligible(snap: Snapshot, a: int, task: Task) -> bool:
    """May agent `a` take this sub-task? It must reach the source, and for a move be among the
    agents that get the item closest to its destination (fewest hand-offs left), so an item on a
    counter is never carried back the way it came."""
    team = snap.team
    if team is None:
        return True
    if not team.reaches(a, task.src):
        return False
    if task.kind == "activate" or task.dest is None:
        return True
    hops = team.hops_to(task.dest)
    mine = hops[a]
    if mine is None:
        return False
    return all(h is None or h >= mine for b, h in enumerate(hops) if team.reaches(b, task.src))


def handoff(snap: Snapshot, a: int, dest: str) -> str | None:
    """The counter where agent `a`, who cannot reach `dest`, leaves an item for the next agent on
    the way: an empty one first, then the one closest to `dest`, then the one it stands at."""
    team = snap.team
    if team is None:
        return None
    hops = team.hops_to(dest)
    mine = hops[a]
    options: list[tuple[bool, int, bool, str]] = []
    for counter in team.counters:
        if not team.reaches(a, counter):
            continue
        after = [h for b, h in enumerate(hops) if b != a and h is not None and team.reaches(b, counter)]
        if not after or (mine is not None and min(after) >= mine):
            continue
        full = bool(snap.shelves.get(counter))
        if not full and not (_safe(snap, a, counter) and keeps_a_way_back(snap, a, counter)):
            continue
        options.append((full, min(after), snap.at[a] != counter, counter))
    return min(options)[3] if options else None


def _safe(snap: Snapshot, a: int, counter: str) -> bool:
    """Leaving an item on `counter` cannot lock the hand-offs: afterwards a counter `a` reaches is
    still empty, or `a` (empty-handed then) can take and use an item waiting on one, or another
    agent who reaches `counter` has a free hand or holds what it can use itself (so it can take the
    item off). Otherwise both sides could wait with full hands for counters only the other can empty."""
    team = snap.team
    if team is None:
        return True
    mine = [c for c in team.counters if team.reaches(a, c)]
    if any(c != counter and not snap.shelves.get(c) for c in mine):
        return True
    if any(len(items) == 1 and team.uses(a, items[0]) for c in mine if (items := snap.shelves.get(c))):
        return True
    # someone else at the counter has, or can free, a hand to take the item off
    return any(b != a and team.reaches(b, counter) and (snap.hold[b] is None or team.uses(b, snap.hold[b] or ""))
               for b in range(snap.n))


def keeps_a_way_back(snap: Snapshot, a: int, counter: str) -> bool:
    """Agent `a` never fills the last empty counter it shares with a teammate while something
    already waits there for that teammate: the teammate needs the free counter to pass their work
    back, and a person cannot be told to wait for a plan (relay_sashimi: raw fish on both counters
    left the person's sashimi nowhere to go, and the team waited to the end)."""
    team = snap.team
    if team is None:
        return True
    for p in range(snap.n):  # a teammate the planner plays can be caught the same way
        if p == a or not team.reaches(p, counter) or not _passes_back(snap, p, a):
            continue
        shared = [c for c in team.counters if team.reaches(a, c) and team.reaches(p, c)]
        others = [snap.shelves.get(c) or [] for c in shared if c != counter]
        if all(others) and any(len(items) == 1 and team.uses(p, items[0]) for items in others):
            return False
    return True


def _passes_back(snap: Snapshot, p: int, a: int) -> bool:
    """Does work flow from `p` back to `a`: a product of a tool `p` reaches that `p` cannot use
    itself and `a` can? (On a one-way pass nothing comes back, so no counter need be kept free.)"""
    team = snap.team
    if team is None:
        return False
    level = snap.book.level
    for t in snap.book.tools:
        if team.reaches(p, t.name):
            for recipe in level.recipes:
                if recipe.tool == t.type and not team.uses(p, recipe.product) and team.uses(a, recipe.product):
                    return True
    return False


def _waiting_for_me(snap: Snapshot, a: int) -> bool:
    """An item a person left on a counter that `a` reaches and can carry on."""
    team = snap.team
    return team is not None and any(
        len(items) == 1 and team.reaches(a, c) and team.uses(a, items[0])
        for c, items in snap.shelves.items())


def _carry(snap: Snapshot, a: int, dest: str | None, parks: bool = False) -> Decision:
    if dest is not None and not snap.reaches(a, dest):
        dest = handoff(snap, a, dest)  # out of reach: leave it on a counter for the next agent
        parks = dest is not None and bool(snap.shelves.get(dest))
        if snap.people and (dest is None or parks) and _waiting_for_me(snap, a):
            back = next((s for s in snap.book.storages if snap.reaches(a, s)), None)
            if back is not None:  # nowhere to pass it while a person's item waits: put it back
                dest, parks = back, False
    if dest is None:
        return Decision(("noop", a, None, None), "wait")
    if snap.at[a] != dest:
        return Decision(("goto", a, dest, None), "goto")
    if not parks and _accepts(snap, dest, snap.hold[a] or ""):
        return Decision(("put", a, dest, None), "act")
    return Decision(("noop", a, None, None), "wait")


def _dispose(snap: Snapshot, a: int) -> Decision:
    item = snap.hold[a] or ""
    if snap.book.servings and snap.can_serve(item):
        return _carry(snap, a, snap.at[a] if snap.at[a] in snap.book.servings else _nearest(snap, a, snap.book.servings))
    if snap.book.storages:
        target = snap.at[a] if snap.at[a] in snap.book.storages else _nearest(snap, a, snap.book.storages)
        return _carry(snap, a, target)
    return Decision(("noop", a, None, None), "wait")


def _nearest(snap: Snapshot, a: int, places: tuple[str, ...]) -> str:
    """The first of `places` the agent reaches, else the first (reached through hand-offs)."""
    return next((p for p in places if snap.reaches(a, p)), places[0])


def _start(snap: Snapshot, a: int, task: Task) -> Decision:
    if snap.at[a] != task.src:
        return Decision(("goto", a, task.src, None), "goto")
    if task.kind == "activate":
        return Decision(("activate", a, task.src, None), "act")
    if task.item is not None:
        return Decision(("get", a, task.src, task.item), "act")
    return Decision(("get", a, task.src, snap.gettable_item(task.src)), "act")


def assign(snap: Snapshot, tasks: list[Task], hand_dest: HandDest, free: list[int],
           taken: Counter[tuple[str, str, str | None, str | None]], stay: int = STAY_HORIZON,
           preposition: int = PREPOSITION_HORIZON, activate_here: bool = True,
           claimed: Counter[str] | None = None, keep_here: int = -1) -> dict[int, Decision]:
    """One decision per agent in `free`; `taken` lists sub-tasks already started this step and
    `claimed` the places people are heading for (one ready sub-task starting there is theirs)."""
    out: dict[int, Decision] = {}
    empty: list[int] = []
    for a in free:
        if snap.busy[a]:
            out[a] = Decision(("noop", a, None, None), "wait")
        elif snap.hold[a] is not None:
            out[a] = _carry(snap, a, *hand_dest[a]) if a in hand_dest else _dispose(snap, a)
        else:
            empty.append(a)
    # Someone must stay empty-handed to take products out, or agents waiting with items for a
    # tool that still holds a product would wait for each other forever.
    parked = sum(1 for a in range(snap.n) if snap.hold[a] is not None and hand_dest.get(a, (None, True))[1])
    may_park = snap.n - 1 - parked
    skip = Counter(taken)
    theirs = Counter(claimed or ())
    pending: list[Task] = []
    ready: list[Task] = []
    for task in sorted(tasks, key=lambda t: t.key):
        if skip[task.signature] > 0:
            skip[task.signature] -= 1
            continue
        if theirs[task.src] > 0:
            theirs[task.src] -= 1  # a person walks there for it: the team leaves it to them
            continue
        # a task one step from ready keeps an agent already standing at its source
        soon = task.wait <= stay and any(snap.at[a] == task.src and eligible(snap, a, task) for a in empty)
        (ready if task.wait == 0 or soon else pending).append(task)
    if activate_here:
        # Starting a tool one stands at costs one command now and a goto more later, and the
        # cooking starts sooner: it goes before any other sub-task.
        for task in [t for t in ready if t.kind == "activate" and t.wait == 0]:
            here = [a for a in empty if snap.at[a] == task.src]
            if here:
                empty.remove(here[0])
                ready.remove(task)
                out[here[0]] = Decision(("activate", here[0], task.src, None), "act", task)
    if keep_here >= 0:
        _keep_here(snap, ready, empty, out, keep_here)
    sources = Counter(t.src for t in ready)
    for task in ready:
        if not empty:
            break
        sources[task.src] -= 1
        if task.parks:
            if may_park <= 0:
                continue
            may_park -= 1
        able = empty if snap.team is None else [a for a in empty if eligible(snap, a, task)]
        here = [a for a in able if snap.at[a] == task.src]
        if here:
            agent = here[0]
        elif task.wait:
            pending.append(task)
            continue
        elif not able:
            continue
        else:
            # nobody is there: send someone who is not standing at another ready task's source
            agent = min(able, key=lambda a: (sources[snap.at[a]] > 0, a))
        empty.remove(agent)
        if task.wait:
            out[agent] = Decision(("noop", agent, None, None), "wait", task)
        else:
            out[agent] = _start(snap, agent, task)
            out[agent].task = task
    for task in pending:
        if not empty or task.wait > preposition:
            continue
        able = empty if snap.team is None else [a for a in empty if eligible(snap, a, task)]
        if not able:
            continue
        here = [a for a in able if snap.at[a] == task.src]
        agent = here[0] if here else able[0]
        empty.remove(agent)
        if snap.at[agent] == task.src:
            out[agent] = Decision(("noop", agent, None, None), "wait", task)
        else:
            out[agent] = Decision(("goto", agent, task.src, None), "goto", task)
    for a in empty:
        out[a] = Decision(("noop", a, None, None), "idle")
    return out


def _keep_here(snap: Snapshot, ready: list[Task], empty: list[int], out: dict[int, Decision], slack: int) -> None:
    """An empty agent standing where a ready item of an order waits takes it, rather than walking
    off to an item of the same order elsewhere whose latest start is at most `slack` steps earlier.

    Both items must be fetched; the one here costs no goto now, and left behind it costs whoever
    comes for it a goto back (level_9: the cook at the chopboard with a fresh tomatoSlice walked to
    the other chopboard for the lettuceSlice, and the teammate then walked to the first one). Only
    orders: a spare's item is a bet, and a spare can be dropped next step for an order that needs a
    different item (level_3: a salmonSashimi carried and thrown away when a tunaSushi came in).
    """
    for a in list(empty):
        first = next((t for t in ready if snap.team is None or eligible(snap, a, t)), None)
        if first is None or first.key[0] != 0 or snap.at[a] == first.src:
            continue  # nothing for it, or the loop below gives it the task it stands at anyway
        mine = next((t for t in ready if t.src == snap.at[a] and t.wait == 0 and t.kind == "move"
                     and not t.parks and (snap.team is None or eligible(snap, a, t))), None)
        if mine is None or mine.key[0] != 0 or mine.key[2] != first.key[2] or mine.key[1] > first.key[1] + slack:
            continue
        empty.remove(a)
        ready.remove(mine)
        out[a] = _start(snap, a, mine)
        out[a].task = mine


def render(cmd: Cmd) -> str:
    verb, a, loc, item = cmd
    if verb == "noop":
        return f"noop_agent{a}"
    if verb == "get" and item:
        return f"get_agent{a}_{item}_{loc}"
    return f"{verb}_agent{a}_{loc}"
