"""The Minecraft domain of MindAgent: bots cooking meat in a furnace and filling a chest.

Python side: a `DomainSession` (`MinecraftSession`) and a built-in planner
(`MinecraftPlanner`). Node side (``node/``): flying-squid with our kitchen plugins, and one
bridge process hosting every mineflayer bot, spoken to over JSON lines.

The names below are imported on first use, so reading the plugin descriptor
(`minecraft.plugin`) when the command line is built loads none of the game.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minecraft.planner import MinecraftPlanner
    from minecraft.server_process import MC_VERSION, EmbeddedServer, KitchenConfig, ServerAddress
    from minecraft.session import MinecraftSession

_WHERE = {"MinecraftPlanner": "minecraft.planner", "MC_VERSION": "minecraft.server_process",
          "EmbeddedServer": "minecraft.server_process", "KitchenConfig": "minecraft.server_process",
          "ServerAddress": "minecraft.server_process", "MinecraftSession": "minecraft.session"}


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'minecraft' has no attribute {name!r}")
    return importlib.import_module(_WHERE[name]).__dict__[name]


__all__ = ["MC_VERSION", "EmbeddedServer", "KitchenConfig", "MinecraftPlanner", "MinecraftSession", "ServerAddress"]
