"""The farm session's link to the world: the embedded server, the bridge and their requests.

Kept apart from the session's rules (`farm.py`) the way the kitchen keeps transport apart: this
class starts and stops the server and the bots, lays a task's farm out (`farm setup`), reads it
back (`farm state`), advances the world clock, and turns one bridge request into an `Outcome`.
"""

from __future__ import annotations

import logging
from typing import Any

from minecraft.families.family_commands import FamilyCommands
from minecraft.families.farm_commands import FarmCommand
from minecraft.families.farm_task import FarmTask
from minecraft.results import ActionDone, ActionError, Outcome
from minecraft.server_process import MC_VERSION, EmbeddedServer, KitchenConfig
from minecraft.transport import ActionFailed, BridgeError, BridgeTransport

log = logging.getLogger(__name__)

ACTION_TIMEOUT_S = 25.0
ADMIN_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 60.0


def setup_command(task: FarmTask) -> str:
    """The plugin's `farm setup` line for a task (names and numbers only, no spaces inside a value)."""
    fields = ",".join(f"{f.crop}:{f.plots}:{f.ripe}" for f in task.fields)
    pantry = ",".join(f"{item}:{n}" for item, n in sorted(task.pantry.items()))
    parts = ["farm setup", f"eggs={task.nest_eggs}", f"egg_ticks={task.egg_ticks}", f"grow_ticks={task.grow_ticks}"]
    parts += [f"fields={fields}"] if fields else []
    parts += [f"pantry={pantry}"] if pantry else []
    return " ".join(parts)


def outcome_line(outcome: Outcome | None) -> str:
    if isinstance(outcome, ActionDone):
        return f"{outcome.command}: done."
    if outcome is None:
        return ""
    return f"{outcome.command or 'a command'} failed ({outcome.code}): {outcome.detail}"


class FarmServer(FamilyCommands):
    """Server and bots of one farm session (abstract: `farm.FarmSession` is the game)."""

    def __init__(self, agents: list[str], *, seed: int, cook_ticks: int, version: str = MC_VERSION) -> None:
        self.agents = agents
        self.seed = seed
        self.server = EmbeddedServer(KitchenConfig(seed=seed, cook_ticks=cook_ticks), version)
        self.bridge = BridgeTransport()
        self._started = False
        self.plot_pos: dict[tuple[str, int], list[int]] = {}
        self.spots: dict[str, list[int]] = {}
        self.deliveries: list[dict[str, Any]] = []

    async def start(self) -> None:
        if self._started:
            return
        address = await self.server.start(port=0)
        await self.bridge.start()
        await self.bridge.request("connect", {"names": self.agents, "host": address.host, "port": address.port,
                                              "version": address.version, "token": address.admin_token},
                                  timeout=CONNECT_TIMEOUT_S)
        self._started = True

    async def aclose(self) -> None:
        await self.bridge.close()
        await self.server.stop()
        self._started = False

    async def setup_farm(self, task: FarmTask) -> dict[str, Any]:
        await self.start()
        await self.server.admin(f"reset {self.seed}", timeout=ADMIN_TIMEOUT_S)
        state: dict[str, Any] = await self.server.admin(setup_command(task), timeout=ADMIN_TIMEOUT_S)
        return state

    async def farm_state(self) -> dict[str, Any]:
        state: dict[str, Any] = await self.server.admin("farm state", timeout=ADMIN_TIMEOUT_S)
        return state

    async def advance(self, ticks: int) -> None:
        """The world clock moves `ticks` ticks (the server's lockstep clock; crops and hens follow it)."""
        await self.server.admin(f"advance {ticks}", timeout=ADMIN_TIMEOUT_S)

    async def act(self, cmd: FarmCommand, op: str, args: dict[str, Any]) -> Outcome:
        """One bridge action for `cmd`'s bot; failures become an `ActionError` with the bridge's code."""
        try:
            result = await self.bridge.request(op, {"bot": cmd.agent, **args}, timeout=ACTION_TIMEOUT_S)
        except ActionFailed as exc:
            return ActionError(exc.code, cmd.agent, cmd.text, exc.message)
        except BridgeError as exc:
            return ActionError("bridge", cmd.agent, cmd.text, str(exc))
        return ActionDone(cmd.text, cmd.agent, cmd.verb, dict(result or {}))
