"""Planning beside people: their commands of this step run first, and the team leaves them their part.

A room knows what a person chose for a step before the team's commands are chosen
(`DomainSession.people_commands`), and runs the person's command first, so the person wins any
race for an item or a place. The planner therefore plays the person's command on its mirror of the
kitchen before planning its own agents (`apply_people`): an item the person takes is gone, a
place the person walks to is theirs. "Theirs" is the fair share: one ready sub-task starting where
a person is heading is left to that person (`assign(claimed=...)`), and what a person holds stays
part of the plan (the resolver counts items in every hand), so the team never makes a second copy
of it nor takes the work that uses it away from them.

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


__all__ = ["apply_people", "people_first"]
