"""Where a construction task is built: the embedded server's site, or a site on a server of the user's own.

On the embedded server the session is the operator: `/kitchen site setup` clears the site and
fills the chest, `/kitchen site state` reads both back (`node/plugins/construction.js`). On a
server at ``--mc-host`` the bots are visitors: its owner prepares a clear site and a chest with
the blueprint's materials (the howto says how), ``--mc-site X,Y,Z`` names that chest, and the
site is the same box as at home, its corner two blocks south (+z) of the chest at the chest's
height. The bots read the chest by opening it and the site by looking at it (`surveySite`), and
the chest's contents are then followed through what each take reports.

Both answer `prepare` and `read` with a `SiteState`, so the session does not know which it has.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from minecraft.families.blueprint import HEIGHT, SITE, Blueprint
from minecraft.server_process import EmbeddedServer, KitchenConfig, ServerAddress
from minecraft.transport import BridgeTransport

log = logging.getLogger(__name__)

SITE_TIMEOUT_S = 30.0
#: The site's corner from the materials chest, as the embedded server lays them out.
CORNER_FROM_CHEST = (0, 0, 2)


class SiteError(RuntimeError):
    """A site that cannot be built on (a foreign one not clear, or its chest short); one line."""


@dataclass(frozen=True)
class SiteState:
    """The site's blocks (site x, y, z, block name, facing or None) and the chest (None: not read)."""

    blocks: tuple[tuple[int, int, int, str, str | None], ...]
    chest: dict[str, int] | None
    origin: tuple[int, int, int]
    chest_pos: tuple[int, int, int]


def parse_site(text: str) -> tuple[int, int, int]:
    """``"10,64,-10"`` → the chest's world position; ValueError (one line) otherwise."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 3 or not all(p.lstrip("-").isdigit() and len(p) <= 9 for p in parts):
        raise ValueError(f"--mc-site is the materials chest's x,y,z (three whole numbers), not {text!r}")
    return (int(parts[0]), int(parts[1]), int(parts[2]))


def _blocks(raw: Any) -> tuple[tuple[int, int, int, str, str | None], ...]:
    return tuple((int(x), int(y), int(z), str(name), str(facing) if facing else None) for x, y, z, name, facing in raw)


class Site(Protocol):
    foreign: bool

    async def start(self, bridge: BridgeTransport) -> ServerAddress:
        """The address the bots join (starting our server when there is one)."""
        ...

    async def prepare(self, bridge: BridgeTransport, blueprint: Blueprint, seed: int, first_bot: str) -> SiteState:
        """A site ready for the blueprint, or SiteError."""
        ...

    async def read(self, bridge: BridgeTransport, first_bot: str) -> SiteState:
        ...

    async def stop(self) -> None:
        ...


class EmbeddedSite:
    """Our own flying-squid server, driven from its console."""

    foreign = False

    def __init__(self, seed: int, version: str) -> None:
        self.server = EmbeddedServer(KitchenConfig(seed=seed), version)

    async def start(self, bridge: BridgeTransport) -> ServerAddress:
        return await self.server.start(port=0)

    async def prepare(self, bridge: BridgeTransport, blueprint: Blueprint, seed: int, first_bot: str) -> SiteState:
        await self.server.admin(f"reset {seed}", timeout=SITE_TIMEOUT_S)
        materials = ",".join(f"{m}:{n}" for m, n in blueprint.chest_contents().items())
        return self._state(await self.server.admin(f"site setup {materials}", timeout=SITE_TIMEOUT_S))

    async def read(self, bridge: BridgeTransport, first_bot: str) -> SiteState:
        return self._state(await self.server.admin("site state", timeout=SITE_TIMEOUT_S))

    @staticmethod
    def _state(raw: Mapping[str, Any]) -> SiteState:
        origin, chest = raw["origin"], raw["chestPos"]
        return SiteState(_blocks(raw["blocks"]), {str(k): int(v) for k, v in raw["chest"].items()},
                         (int(origin[0]), int(origin[1]), int(origin[2])), (int(chest[0]), int(chest[1]), int(chest[2])))

    async def stop(self) -> None:
        await self.server.stop()


class ForeignSite:
    """A server of the user's own: the bots only see and act; its owner prepared site and chest."""

    foreign = True

    def __init__(self, address: ServerAddress, chest: tuple[int, int, int]) -> None:
        self.address = address
        self.chest_pos = chest
        self.origin = tuple(c + d for c, d in zip(chest, CORNER_FROM_CHEST, strict=True))

    async def start(self, bridge: BridgeTransport) -> ServerAddress:
        return self.address

    async def prepare(self, bridge: BridgeTransport, blueprint: Blueprint, seed: int, first_bot: str) -> SiteState:
        """The site as found, refused unless it is clear and the chest holds what the blueprint uses
        (a visitor cannot clear a site or fill a chest; `seed` changes nothing on such a server)."""
        found = await self.read(bridge, first_bot)
        if found.blocks:
            x, y, z, name, _ = found.blocks[0]
            raise SiteError(f"the site at {self._where(self.origin)} is not clear: {len(found.blocks)} blocks in it "
                            f"(first a {name} at site {x}, {y}, {z}); its owner must clear it for each episode")
        raw = await bridge.request("readChest", {"bot": first_bot, "chest": list(self.chest_pos)}, timeout=SITE_TIMEOUT_S)
        chest = {str(k): int(v) for k, v in dict(raw["chest"]).items()}
        short = [f"{n} {m} (it holds {chest.get(m, 0)})" for m, n in blueprint.needs().items() if chest.get(m, 0) < n]
        if short:
            raise SiteError(f"the materials chest at {self._where(self.chest_pos)} lacks what the blueprint uses: "
                            + ", ".join(short))
        return SiteState(found.blocks, chest, found.origin, found.chest_pos)

    async def read(self, bridge: BridgeTransport, first_bot: str) -> SiteState:
        raw = await bridge.request("surveySite", {"bot": first_bot, "origin": list(self.origin), "size": SITE,
                                                  "height": HEIGHT}, timeout=SITE_TIMEOUT_S)
        o = self.origin
        return SiteState(_blocks(raw["blocks"]), None, (o[0], o[1], o[2]), self.chest_pos)

    @staticmethod
    def _where(pos: tuple[int, ...]) -> str:
        return " ".join(str(c) for c in pos)

    async def stop(self) -> None:
        """Nothing of ours runs there."""
