"""The JSON shapes that cross the Node boundary, validated with pydantic.

Every line the bridge or the server prints is parsed into one of these models before anything
else reads it, so a malformed or surprising line becomes a typed error at the edge instead of a
KeyError deep in the session. Unknown extra fields are ignored: a newer bridge may add some.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# ---- framing -------------------------------------------------------------------------------


class ReplyLine(_Lenient):
    """``{"id":N,"ok":true,"result":...}`` or ``{"id":N,"ok":false,"code":"...","error":"..."}``."""

    id: int | None
    ok: bool
    result: Any = None
    code: str | None = None
    error: str | None = None


EventName = Literal["ready", "spawn", "death", "kicked", "end", "chat"]


class EventLine(_Lenient):
    """An unsolicited line, e.g. ``{"event":"kicked","bot":"Alex","reason":"..."}``."""

    event: EventName
    bot: str | None = None
    reason: str | None = None
    # chat relay: a human's line
    from_: str | None = Field(default=None, alias="from")
    message: str | None = None


# ---- observation ---------------------------------------------------------------------------


class ItemStack(_Lenient):
    name: str
    count: int


class BlockSeen(_Lenient):
    count: int
    nearest: float


class EntitySeen(_Lenient):
    name: str
    kind: str
    distance: float


class BotView(_Lenient):
    """One bot as its own client sees it; ``connected`` false means nothing else is known."""

    connected: bool
    position: list[float] | None = None
    health: float | None = None
    inventory: dict[str, int] = Field(default_factory=dict)
    blocks: dict[str, BlockSeen] = Field(default_factory=dict)
    entities: list[EntitySeen] = Field(default_factory=list)
    busy: str | None = None


class FurnaceView(_Lenient):
    pos: list[int] | None = None
    input: ItemStack | None = None
    fuel: ItemStack | None = None
    output: ItemStack | None = None
    burn_ticks_left: int = 0
    cook_progress: int = 0
    cook_total: int = 200


class ChestView(_Lenient):
    pos: list[int] | None = None
    items: dict[str, int] = Field(default_factory=dict)


class MobView(_Lenient):
    id: int
    name: str
    pos: list[float | None]
    health: float


class PlayerView(_Lenient):
    name: str
    pos: list[float | None]
    health: float = 20
    inventory: dict[str, int] = Field(default_factory=dict)


class BlockSpot(_Lenient):
    name: str
    pos: list[int]
    present: bool


class Incident(_Lenient):
    """Something a player who is not one of the crew did to the kitchen (guard.js, containers.js):
    ``outcome`` is ``refused`` (it did not happen) or ``recorded`` (it happened)."""

    n: int
    tick: int = 0
    player: str
    what: str
    outcome: str
    #: it happened and can change the score (a dish taken from the furnace; not one from the chest)
    scores: bool = False


class LedgerEntry(_Lenient):
    """What one player put into and took out of the chest, counted from their own clicks."""

    put: dict[str, int] = Field(default_factory=dict)
    took: dict[str, int] = Field(default_factory=dict)


class KitchenView(_Lenient):
    """The server plugin's own dump (``kitchen state``): the authority on containers and mobs."""

    tick: int = 0
    config: dict[str, Any] = Field(default_factory=dict)
    furnaces: list[FurnaceView] = Field(default_factory=list)
    chests: list[ChestView] = Field(default_factory=list)
    mobs: list[MobView] = Field(default_factory=list)
    players: list[PlayerView] = Field(default_factory=list)
    blocks: list[BlockSpot] = Field(default_factory=list)
    incidents: list[Incident] = Field(default_factory=list)
    #: None from a server without the ledger (then deliveries fall back to the chest's totals)
    chest_ledger: dict[str, LedgerEntry] | None = None
    crafting_tables: list[dict[str, Any]] | None = None


class WorldTime(_Lenient):
    """The server's own clock as a bot hears it (time updates): ``age`` in ticks since the world began."""

    age: int
    time_of_day: int = 0


class ContainerCache(_Lenient):
    """What a bot last saw through a window; used on servers without our plugin."""

    furnace: FurnaceView | None = None
    chest: dict[str, int] | None = None


class Observation(_Lenient):
    bots: dict[str, BotView] = Field(default_factory=dict)
    kitchen: KitchenView | None = None
    cache: ContainerCache = Field(default_factory=ContainerCache)
    world: WorldTime | None = None

    def furnace(self) -> FurnaceView:
        """The kitchen furnace: from the server when it told us, else the last one seen."""
        if self.kitchen and self.kitchen.furnaces:
            return self.kitchen.furnaces[0]
        return self.cache.furnace or FurnaceView()

    def chest(self) -> dict[str, int]:
        if self.kitchen and self.kitchen.chests:
            return dict(self.kitchen.chests[0].items)
        return dict(self.cache.chest or {})

    def delivered(self, crew: Sequence[str]) -> dict[str, int]:
        """What the `crew` put into the chest and left there, from the server's ledger of clicks
        (so a dish someone else takes out again still counts); the chest's totals on a server
        that keeps no ledger."""
        ledger = self.kitchen.chest_ledger if self.kitchen is not None else None
        if ledger is None:
            return self.chest()
        out: dict[str, int] = {}
        for name in crew:
            entry = ledger.get(name)
            for item, n in (entry.put.items() if entry else ()):
                out[item] = out.get(item, 0) + n
            for item, n in (entry.took.items() if entry else ()):
                out[item] = out.get(item, 0) - n
        return {item: n for item, n in sorted(out.items()) if n > 0}


class ServerLine(_Lenient):
    """A machine line of the embedded server: ``mindagent {"kind":...}``."""

    kind: str
    ok: bool = True
    port: int | None = None
    version: str | None = None
    result: Any = None
    error: str | None = None
