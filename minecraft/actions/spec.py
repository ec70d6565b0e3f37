"""The shape of one catalogue entry: typed arguments, a description for the model, the world event
that confirms it and how long the bridge waits for that event.

Entries are data (frozen pydantic models), so a task family can pick a subset, render it for its
prompt and parse the model's commands against it without touching the Node side.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Coordinates a command may name: far beyond any generated site, small enough that a typo such as
# 1e308 or a 400-digit number is refused instead of reaching the bridge.
COORD_LIMIT = 30_000
# The longest chat line `say` sends (vanilla refuses chat lines over 256 characters).
TEXT_LIMIT = 200


class ArgKind(StrEnum):
    """What one argument holds; each kind has one syntax in the parser."""

    ITEM = "item"  # a Minecraft item id: oak_planks
    BLOCK = "block"  # a Minecraft block id: chest
    MOB = "mob"  # an entity id: cow
    TARGET = "target"  # a named place, a player, a block or a mob
    PLAYER = "player"  # a player's name (case kept)
    COORD = "coord"  # an integer world coordinate
    COUNT = "count"  # a positive integer
    TEXT = "text"  # a quoted chat line
    CHOICE = "choice"  # one word of a fixed list


class Param(BaseModel):
    """One argument of an action. Example: ``Param(name="x", kind=ArgKind.COORD, doc="east-west")``."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z_]{0,19}$")
    kind: ArgKind
    doc: str
    # None: the argument is required; otherwise the value used when the command leaves it out
    default: int | str | None = None
    lo: int = 1
    hi: int = 64
    choices: tuple[str, ...] = ()


class ActionSpec(BaseModel):
    """One action or query of the library.

    `confirms` names the world event the Node implementation waits for before it answers (the
    mineflayer way); `timeout_s` bounds that wait. A query only reads the bot's own view of the
    world and changes nothing. Example::

        spec = CATALOGUE_BY_NAME["digBlock"]
        spec.signature() == "digBlock(Agent, x, y, z)"
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=r"^[a-z][A-Za-z]{1,23}$")
    group: str
    params: tuple[Param, ...] = ()
    description: str
    confirms: str
    timeout_s: float = Field(gt=0, le=600)
    query: bool = False
    # where flying-squid cannot do it as vanilla does, what the action does there instead
    fallback: str = ""

    @model_validator(mode="after")
    def _defaults_last(self) -> ActionSpec:
        seen_default = False
        for p in self.params:
            if p.default is not None:
                seen_default = True
            elif seen_default:
                raise ValueError(f"{self.name}: required argument {p.name} follows an optional one")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: repeated argument name")
        return self

    @property
    def required(self) -> int:
        return sum(1 for p in self.params if p.default is None)

    def signature(self) -> str:
        """``verb(Agent, a, b[, c])``: how the model writes it (optional arguments in brackets)."""
        out = f"{self.name}(Agent"
        for p in self.params:
            out += f", {p.name}" if p.default is None else f"[, {p.name}]"
        return out + ")"
