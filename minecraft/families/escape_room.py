"""An escape room of VillagerBench's Escape Room Challenge: a row of rooms, each closed by a door
that opens when its atom task is done.

Atom tasks (``Stage.kind``):

- ``plates``: 1-3 pressure plates that must all be held at the same moment (by bots standing on
  them); the door opens then and stays open.
- ``levers``: 2-4 levers switched on in a given order; a lever out of turn switches the room's
  levers off again (the order is the room's hint).
- ``key``: the door opens for a bot holding its key item; the key lies in a chest of this room or
  an earlier one (never behind the door it opens, or the room could not be solved).

Rooms may also hold decoy chests (junk). Behind the last door is the exit room; the team escapes
when every bot stands at the exit. A room file is data read through one bounded reader; every
defect is one `RoomError` line. Mechanisms get names the commands use (`Mechanism`): plates,
levers and chests numbered across the whole room (``plate1``, ``lever2``, ``chest3``) and doors
by the room they close (``door1`` closes room 1).

Example: ``load_room(Path("my_room.json")).stages[0].kind == "plates"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mindagent.recordings.limits import read_regular_file

SCHEMA: Literal["mindagent/escape-room@1"] = "mindagent/escape-room@1"
MAX_BYTES = 64 * 1024
MAX_STAGES = 5
#: Items that serve as keys, and the junk decoy chests hold.
KEYS = ("tripwire_hook", "gold_ingot", "emerald", "diamond")
JUNK = ("bone", "string", "stick")
#: Cells of a 5 x 5 room (x across, z along the row) where each kind of mechanism sits.
PLATE_CELLS = ((0, 0), (4, 0), (0, 2))
LEVER_CELLS = ((1, 0), (3, 0), (4, 2), (2, 0))
CHEST_CELLS = ((0, 4), (4, 4), (4, 3))
#: Where bots appear in the first room, and the exit's cell in the exit room.
START_CELLS = ((1, 2), (3, 2), (2, 3), (1, 3))
EXIT_CELL = (2, 2)
Kind = Literal["plates", "levers", "key"]


class RoomError(ValueError):
    """A room cannot be used; the message is one line naming what is wrong."""


class Stage(BaseModel):
    """One room's atom task. `plates`: how many; `order`: the levers' order (a permutation of
    0..n-1, lever k of the room being `order`'s k-th switch); `key`/`key_room`: the key item and
    the (0-based) room whose chest holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    plates: int = Field(default=0, ge=0, le=len(PLATE_CELLS))
    order: tuple[int, ...] = Field(default=(), max_length=len(LEVER_CELLS))
    key: Literal[KEYS] | None = None  # type: ignore[valid-type]
    key_room: int | None = Field(default=None, ge=0, lt=MAX_STAGES)

    @model_validator(mode="after")
    def _fits_kind(self) -> Stage:
        if (self.kind == "plates") != (self.plates > 0):
            raise ValueError("a plates stage needs plates 1-3, other stages none")
        if self.kind == "levers" and sorted(self.order) != list(range(len(self.order))) or \
                (self.kind == "levers") != (len(self.order) >= 2):
            raise ValueError("a levers stage needs an order: a permutation of 0..n-1 with n 2-4; other stages none")
        if (self.kind == "key") != (self.key is not None and self.key_room is not None):
            raise ValueError("a key stage needs key and key_room, other stages neither")
        return self

    @property
    def conditions(self) -> int:
        """VillagerBench's c_i: conditions to meet to pass this room."""
        return self.plates if self.kind == "plates" else len(self.order) if self.kind == "levers" else 1


class Room(BaseModel):
    """The whole challenge. `team`: bots it is made for (a plates stage needs that many at most);
    `decoys`: rooms (0-based) holding a chest of junk, one per entry."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: Literal["mindagent/escape-room@1"] = Field(default=SCHEMA, alias="schema")
    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")
    team: int = Field(default=2, ge=1, le=4)
    stages: tuple[Stage, ...] = Field(min_length=1, max_length=MAX_STAGES)
    decoys: tuple[int, ...] = Field(default=(), max_length=2 * MAX_STAGES)

    @model_validator(mode="after")
    def _chests_fit(self) -> Room:
        per_room = [0] * (len(self.stages) + 1)
        for r in [s.key_room for s in self.stages if s.key_room is not None] + list(self.decoys):
            if not 0 <= r < len(self.stages):
                raise ValueError(f"a chest in room {r + 1}, which is not one of rooms 1-{len(self.stages)}")
            per_room[r] += 1
        if max(per_room) > len(CHEST_CELLS):
            raise ValueError(f"at most {len(CHEST_CELLS)} chests per room")
        keys = [s.key for s in self.stages if s.key is not None]
        if len(set(keys)) != len(keys):
            raise ValueError("two doors open with the same key item")
        return self

    @property
    def dependency(self) -> int:
        """VillagerBench's dependency complexity D (appendix A.8): the rooms' conditions summed."""
        return sum(s.conditions for s in self.stages)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), indent=1, sort_keys=True)


@dataclass(frozen=True, slots=True)
class Mechanism:
    """A named thing in the room: `room` is 0-based, `index` its place in its stage (a lever's k),
    `items` what a chest holds at the start."""

    name: str
    kind: Literal["plate", "lever", "chest", "door"]
    room: int
    cell: tuple[int, int]
    index: int = 0
    items: tuple[tuple[str, int], ...] = ()


def mechanisms(room: Room) -> list[Mechanism]:
    """Every mechanism in a fixed order: per room its plates, levers, chests (keys before decoys,
    in stage order), then its door."""
    out: list[Mechanism] = []
    plate = lever = chest = 0
    for r, stage in enumerate(room.stages):
        for k in range(stage.plates):
            plate += 1
            out.append(Mechanism(f"plate{plate}", "plate", r, PLATE_CELLS[k], k))
        for k in range(len(stage.order)):
            lever += 1
            out.append(Mechanism(f"lever{lever}", "lever", r, LEVER_CELLS[k], k))
        held = [((s.key, 1),) for s in room.stages if s.key_room == r and s.key] + \
               [((JUNK[(r + j) % len(JUNK)], 2),) for j, d in enumerate(room.decoys) if d == r]
        for slot, items in enumerate(held):
            chest += 1
            out.append(Mechanism(f"chest{chest}", "chest", r, CHEST_CELLS[slot], slot, items))
        out.append(Mechanism(f"door{r + 1}", "door", r, (2, 5)))
    return out


def solvable(room: Room, team: int | None = None) -> str | None:
    """Why `room` cannot be escaped by `team` bots (default the room's own), or None.

    Rooms open in order, so room r can be worked once doors 1..r are open: a plates stage needs
    no more plates than bots, and a key must lie in a chest reachable before its own door opens.
    """
    bots = room.team if team is None else team
    for r, stage in enumerate(room.stages):
        if stage.kind == "plates" and stage.plates > bots:
            return f"room {r + 1} needs {stage.plates} plates held at once but the team is {bots}"
        if stage.kind == "key" and stage.key_room is not None and stage.key_room > r:
            return f"the {stage.key} for door {r + 1} lies behind it, in room {stage.key_room + 1}"
    return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def parse_room(text: str | bytes, source: str = "room") -> Room:
    """A room from its JSON text, checked solvable; `RoomError` (one line naming `source`) otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RoomError(f"{source}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise RoomError(f"{source}: an escape room is a JSON object")
    try:
        room = Room.model_validate(data)
    except ValidationError as exc:
        raise RoomError(f"{source}: {_first_error(exc)}"[:300]) from None
    why = solvable(room)
    if why is not None:
        raise RoomError(f"{source}: cannot be escaped: {why}")
    return room


def load_room(path: Path) -> Room:
    """A room file, refused by size before it is read (`MAX_BYTES`)."""
    return parse_room(read_regular_file(path, MAX_BYTES, RoomError), source=str(path))
