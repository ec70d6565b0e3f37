"""`mindagent serve`: the game server where people play a kitchen game with a dispatcher-run team.

One process serves the page (``/``) and a versioned JSON protocol over a websocket (``/ws``) on
one port, and hosts many rooms at once; the README section "Protocol (version 1)" describes the messages.

Example::

    from mindagent.server import GameServer, ServerConfig
    async with GameServer(ServerConfig(port=0, model="planner")) as server:
        print(server.url)
"""

from mindagent.server.app import GameServer, ServerConfig
from mindagent.server.room import Room, RoomSettings

__all__ = ["GameServer", "Room", "RoomSettings", "ServerConfig"]
