"""Planning beside people: their commands of this step run first, and the team leaves them their part.

A room knows what a person chose for a step before the team's commands are chosen
(`DomainSession.people_commands`), and runs the person's command first, so the person wins any
race for an item or a place. The planner therefore plays the person's command on its mirror of the
kitchen before planning its own agents (`apply_people`): an item the person takes is gone, a
place the person walks to is theirs. "Theirs" is the fair share: one ready sub-task starting where
a person is heading is left to that person (`assign(claimed=...)`), and what a person holds stays
part of the plan (the resolver counts items in every hand), so the team never makes a second copy
of it nor takes the work that uses it away from them. When a person holds the block on a kitchen
split by counters, `people_needs` says in words what the team needs from them.

Example::

    snap = Snapshot.of(world, book)
    claimed = apply_people(snap, world, ["goto_agent1_storage0"])   # Counter({"storage0": 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from cuisineworld import World
from cuisineworld.adapter.planners.snapshot import Snapshot
from cuisineworld.commands import Command


def people_first(world: World, controlled: Sequence[int], commands: Sequence[str]) -> list[str]:
    """The well-formed commands of agents the planner does not control, at most one per agent,
    in the order given (anything else is left out: it would sink a joint action on some rules)."""
    out: list[str] = []
    seen: set[int] = set()
    for text in commands:
        parsed = world.parse(text)
        if isinstance(parsed, Command) and parsed.agent not in controlled and parsed.agent not in seen:
            seen.add(parsed.agent)
            out.append(str(parsed))
    return out


def apply_people(snap: Snapshot, world: World, commands: Sequence[str]) -> Counter[str]:
    """Play the people's commands on `snap` (those the mirror finds legal), and return the places
    they are heading for: a goto's destination, or the place a person stands at while waiting
    there empty-handed for a tool to finish (the product is theirs to take)."""
    claimed: Counter[str] = Counter()
    for text in commands:
        cmd = world.parse(text)
        if not isinstance(cmd, Command):
            continue
        verb, a, location, item = cmd.verb, cmd.agent, cmd.location, cmd.item
        if verb == "noop":
            here = snap.at[a]
            if snap.hold[a] is None and here in snap.tool_busy and snap.tool_busy[here] > 0:
                claimed[here] += 1
            continue
        if not snap.legal(verb, a, location, item):
            continue
        snap.apply(verb, a, location, item)
        if verb == "goto" and location is not None and snap.hold[a] is None:
            claimed[location] += 1
    return claimed




def people_needs(snap: Snapshot, people: Sequence[int]) -> list[str]:
    """What the team needs a person to do when the person holds the block, in plain words.

    On a kitchen split by counters a person can stop the line: they hold something only the team
    can carry on while the team waits for it, or every counter between them and the team is full
    and only they can empty one. The planner cannot command a person, so it says what it needs.
    Example: ``["agent1: please put your salmonSashimi on counter1 (agent0 carries it on)"]``."""
    team = snap.team
    if team is None:
        return []
    lines: list[str] = []
    for p in people:
        mates = [t for t in range(snap.n) if t not in people]
        shared = [c for c in team.counters if team.reaches(p, c) and any(team.reaches(t, c) for t in mates)]
        if not shared:
            continue
        held = snap.hold[p]
        if held is not None and not team.uses(p, held):
            takers = [t for t in mates if team.uses(t, held)]
            free = [c for c in shared if not snap.shelves.get(c) and any(team.reaches(t, c) for t in takers)]
            if takers and free:
                taker = next(t for t in takers if team.reaches(t, free[0]))
                lines.append(f"agent{p}: please put your {held} on {free[0]} (agent{taker} carries it on)")
            elif takers:
                lines.append(f"agent{p}: your {held} needs a free counter; the team is clearing one")
        elif held is None and all(snap.shelves.get(c) for c in shared):
            mine = next(((c, items[0]) for c in shared if len(items := snap.shelves.get(c) or []) == 1
                         and team.uses(p, items[0])), None)
            if mine is not None:
                lines.append(f"agent{p}: please take the {mine[1]} from {mine[0]} (the team needs a free counter)")
    return lines


__all__ = ["apply_people", "people_first", "people_needs"]
