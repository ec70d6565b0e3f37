"""The Minecraft domain of MindAgent: bots cooking meat in a furnace and filling a chest.

Python side: a `DomainSession` (`MinecraftSession`) and a built-in planner
(`MinecraftPlanner`). Node side (``node/``): flying-squid with our kitchen plugins, and one
bridge process hosting every mineflayer bot, spoken to over JSON lines.
"""

from minecraft.planner import MinecraftPlanner
from minecraft.server_process import (
    MC_VERSION,
    EmbeddedServer,
    KitchenConfig,
    ServerAddress,
)
from minecraft.session import MinecraftSession

__all__ = ["MC_VERSION", "EmbeddedServer", "KitchenConfig", "MinecraftPlanner", "MinecraftSession", "ServerAddress"]
