"""`mindagent serve`: the game server where people play a game with a dispatcher-run team.

One port serves the page (``/``) and a versioned JSON protocol over a websocket (``/ws``), for
many rooms at once, hosted in the server's process or sharded over room worker processes
(``ServerConfig.workers``); docs/reference/protocol.md describes the messages.

Example::

    from mindagent.server import GameServer, ServerConfig
    async with GameServer(ServerConfig(port=0, model="planner")) as server:
        print(server.url)
"""

from mindagent.server.app import GameServer, ServerConfig
from mindagent.server.room import Room, RoomSettings

__all__ = ["GameServer", "Room", "RoomSettings", "ServerConfig"]
