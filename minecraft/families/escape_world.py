"""What the escape family knows of the world, and the checker run before any bot moves.

`EscapeWorld` holds which doors are open, who stands on which plate, which levers are on, what
each chest and each bot holds, and who reached the exit. The live session replaces all of it with
the server's state after every step (`update`); the pure rules here (`apply`) predict a command's
effect, which the checker uses on a scratch copy so that a joint command is judged as a whole
(two bots cannot take from one chest, flip two levers of one room, or stand on one plate).

A command is refused, with an `ActionError` and a reason, when it cannot work: its mechanism is
behind a closed door, the door is open already, the lever is on, the bot lacks the key, the exit
is still shut. A lever flipped out of turn is not refused: it works, and switches the room's
levers off (the puzzle, as in the game).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from minecraft.families.escape_commands import EscapeCommand, EscapeSyntaxError, parse_escape_command
from minecraft.families.escape_room import Mechanism, Room, mechanisms
from minecraft.results import ActionError


@dataclass
class EscapeWorld:
    """Example: ``EscapeWorld.fresh(room, ["Alex", "Steve"]).reachable(0) is True``."""

    room: Room
    agents: list[str]
    opened: list[bool]
    on_plate: dict[str, str | None]
    levers_on: list[str]
    inventory: dict[str, Counter[str]]
    chests: dict[str, Counter[str]]
    out: set[str] = field(default_factory=set)
    searched: set[str] = field(default_factory=set)

    @classmethod
    def fresh(cls, room: Room, agents: Sequence[str]) -> EscapeWorld:
        chests = {m.name: Counter(dict(m.items)) for m in mechanisms(room) if m.kind == "chest"}
        return cls(room, list(agents), [False] * len(room.stages), dict.fromkeys(agents), [],
                   {a: Counter() for a in agents}, chests)

    @property
    def mech(self) -> dict[str, Mechanism]:
        return {m.name: m for m in mechanisms(self.room)}

    def reachable(self, room_index: int) -> bool:
        """Room r (0-based) can be walked into once doors 1..r are open; the exit room is len(stages)."""
        return all(self.opened[:room_index])

    @property
    def escaped(self) -> bool:
        return all(a in self.out for a in self.agents)

    def conditions_met(self) -> int:
        """VillagerBench's met conditions: the solved rooms' conditions, plus one when all are out."""
        return sum(s.conditions for s, o in zip(self.room.stages, self.opened, strict=True) if o) + int(self.escaped)

    def update(self, state: Mapping[str, Any]) -> None:
        """Take the server's state (`/kitchen escape state`) as the truth."""
        self.opened = [bool(o) for o in state["doors"]]
        holders = {str(b): str(p) for p, b in state["plates"].items() if b}
        self.on_plate = {a: holders.get(a) for a in self.agents}
        self.levers_on = sorted(str(n) for n, on in state["levers"].items() if on)
        self.chests = {str(n): Counter({str(k): int(v) for k, v in items.items()}) for n, items in state["chests"].items()}
        players = state.get("players") or {}
        self.inventory = {a: Counter({str(k): int(v) for k, v in (players.get(a) or {}).get("items", {}).items()})
                          for a in self.agents}
        self.out = {a for a in self.agents if (players.get(a) or {}).get("out")}

    def apply(self, command: EscapeCommand) -> None:
        """The effect the rules predict for a command that works."""
        agent, target = command.agent, command.target
        if command.verb != "wait" and not (command.verb == "stand" and self.on_plate.get(agent) == target):
            self.on_plate[agent] = None
        if command.verb == "stand":
            self.on_plate[agent] = target
            stage = self.mech[str(target)].room
            plates = [m.name for m in self.mech.values() if m.kind == "plate" and m.room == stage]
            if all(p in self.on_plate.values() for p in plates):
                self.opened[stage] = True
        elif command.verb == "flip":
            self._flip(str(target))
        elif command.verb == "take":
            self.inventory[agent].update(self.chests[str(target)])
            self.chests[str(target)] = Counter()
            self.searched.add(str(target))
        elif command.verb == "unlock":
            stage = self.mech[str(target)].room
            key = str(self.room.stages[stage].key)
            self.inventory[agent][key] -= 1
            self.inventory[agent] = +self.inventory[agent]
            self.opened[stage] = True
        elif command.verb == "exit":
            self.out.add(agent)

    def next_lever(self, stage: int) -> str:
        """The lever to switch next in room `stage` (its order, past the ones on)."""
        order = self.room.stages[stage].order
        levers = {m.index: m.name for m in self.mech.values() if m.kind == "lever" and m.room == stage}
        on = sum(1 for k in order if levers[k] in self.levers_on)
        return levers[order[on]]

    def _flip(self, lever: str) -> None:
        stage = self.mech[lever].room
        if self.next_lever(stage) == lever:
            self.levers_on = sorted([*self.levers_on, lever])
            if len([n for n in self.levers_on if self.mech[n].room == stage]) == len(self.room.stages[stage].order):
                self.opened[stage] = True
        else:
            self.levers_on = [n for n in self.levers_on if self.mech[n].room != stage]


def _refuse(code: str, command: EscapeCommand, detail: str) -> ActionError:
    return ActionError(code, command.agent, command.text, detail)


def check_one(world: EscapeWorld, command: EscapeCommand) -> ActionError | None:
    """Why `command` cannot work in `world`, or None."""
    if command.verb == "wait":
        return None
    if command.agent in world.out:
        return _refuse("escaped", command, f"{command.agent} is out already")
    last = len(world.room.stages)
    if command.verb == "exit":
        return None if world.reachable(last) else _refuse("door_closed", command, f"the exit is behind door {last}, still closed")
    mech = world.mech.get(str(command.target))
    if mech is None:
        return _refuse("not_found", command, f"there is no {command.target} in this escape room")
    if not world.reachable(mech.room):
        return _refuse("door_closed", command, f"{mech.name} is in room {mech.room + 1}, behind door {mech.room}, still closed")
    solved = world.opened[mech.room]
    if command.verb == "stand":
        if solved:
            return _refuse("solved", command, f"door {mech.room + 1} is open already: {mech.name} does nothing now")
        holder = next((a for a, p in world.on_plate.items() if p == mech.name), None)
        if holder is not None:
            return _refuse("occupied", command, f"{holder} stands on {mech.name}" if holder != command.agent
                           else f"{command.agent} stands on {mech.name} already (wait holds it)")
    elif command.verb == "flip":
        if solved:
            return _refuse("solved", command, f"door {mech.room + 1} is open already")
        if mech.name in world.levers_on:
            return _refuse("lever_on", command, f"{mech.name} is on already")
    elif command.verb == "unlock":
        stage = world.room.stages[mech.room]
        if solved:
            return _refuse("solved", command, f"{mech.name} is open already")
        if stage.kind != "key":
            return _refuse("no_lock", command, f"{mech.name} opens by the room's {stage.kind}, not with a key")
        if world.inventory[command.agent][str(stage.key)] <= 0:
            return _refuse("missing_item", command, f"{command.agent} carries no {stage.key} (the key of {mech.name})")
    return None


def check_all(texts: Sequence[str], agents: Sequence[str],
              world: EscapeWorld) -> list[tuple[EscapeCommand | None, ActionError | None]]:
    """Each command parsed and judged in order against a scratch copy of `world`; besides
    `check_one`, one chest per bot and one lever per room in a step (their order would matter)."""
    scratch = copy.deepcopy(world)
    seen: set[str] = set()
    busy: set[str] = set()
    out: list[tuple[EscapeCommand | None, ActionError | None]] = []
    for text in texts:
        try:
            command = parse_escape_command(text, agents)
        except EscapeSyntaxError as exc:
            out.append((None, ActionError("syntax", None, text.strip()[:120], str(exc))))
            continue
        if command.agent in seen:
            out.append((command, _refuse("duplicate_agent", command, f"{command.agent} already has a command this step")))
            continue
        seen.add(command.agent)
        why = check_one(scratch, command)
        claim = _claim(scratch, command)
        if why is None and claim in busy:
            why = _refuse("busy", command, f"another bot works {claim} this step")
        if why is None:
            busy.add(claim)
            scratch.apply(command)
        out.append((command, why))
    return out


def _claim(world: EscapeWorld, command: EscapeCommand) -> str:
    """What a command ties up for the step: its chest, plate or door, or a whole room's levers."""
    if command.verb == "flip" and command.target in world.mech:
        return f"the levers of room {world.mech[command.target].room + 1}"
    return str(command.target) if command.target else f"{command.agent}:{command.verb}"
