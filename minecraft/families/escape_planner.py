"""The escape family's built-in dispatcher: works the first closed room, and nothing it has not seen.

Each step: with every door open, each bot walks to the exit. Otherwise, for the first closed
room: bots already on its plates keep still and free bots take the free plates; or one bot
switches the next lever of the hinted order (the bots take turns); or the bot carrying the door's key unlocks it. Bots
left over search chests not yet searched in open rooms (one bot per chest), nearest room first:
that is how keys are found, since the planner does not look inside chests before opening them.
Every command it gives passes the session's own check.
"""

from __future__ import annotations

from typing import Protocol

from minecraft.families.escape_world import EscapeWorld


class _HasWorld(Protocol):
    world: EscapeWorld
    agents: list[str]


class EscapePlanner:
    """Example: ``EscapePlanner().act(session)`` → ``["stand(Alex, plate1)", "stand(Steve, plate2)"]``."""

    name = "planner"

    def reset(self, session: _HasWorld) -> None:
        """Stateless: everything is read from the session each step."""

    def act(self, session: _HasWorld) -> list[str]:
        return plan(session.world, session.agents)


def plan(world: EscapeWorld, agents: list[str]) -> list[str]:
    """One command per agent, in agent order."""
    cmds: dict[str, str] = {}
    rooms = len(world.room.stages)
    if world.reachable(rooms):
        return [f"wait({a})" if a in world.out else f"exit({a})" for a in agents]
    s = world.opened.index(False)
    stage = world.room.stages[s]
    mech = world.mech
    if stage.kind == "plates":
        plates = [m.name for m in mech.values() if m.kind == "plate" and m.room == s]
        held = {p: a for a, p in world.on_plate.items() if p in plates}
        for a in held.values():
            cmds[a] = f"wait({a})"
        spare = [a for a in agents if a not in cmds]
        for plate in plates:
            if plate not in held and spare:
                a = spare.pop(0)
                cmds[a] = f"stand({a}, {plate})"
    elif stage.kind == "levers":
        # the bots take turns at the levers, so neither does all the walking
        a = agents[sum(1 for n in world.levers_on if mech[n].room == s) % len(agents)]
        cmds[a] = f"flip({a}, {world.next_lever(s)})"
    else:
        keyholder = next((a for a in agents if world.inventory[a][str(stage.key)] > 0), None)
        if keyholder is not None:
            cmds[keyholder] = f"unlock({keyholder}, door{s + 1})"
    unsearched = [m.name for m in sorted(mech.values(), key=lambda m: (m.room, m.name))
                  if m.kind == "chest" and world.reachable(m.room) and m.name not in world.searched]
    for a in agents:
        if a not in cmds:
            cmds[a] = f"take({a}, {unsearched.pop(0)})" if unsearched else f"wait({a})"
    return [cmds[a] for a in agents]
