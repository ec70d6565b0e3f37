"""Performing a parsed action through the bridge's `act` request.

The bridge waits for the action's confirming event up to the catalogue's timeout; the request
itself is given a little longer, so a timeout comes back as the action's own `timeout` failure
(with its cleanup done) rather than as a lost reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from minecraft.actions.parse import ActionCall

# extra seconds the request waits beyond the action's own timeout
REPLY_GRACE_S = 3.0


class Requester(Protocol):
    """What `perform` needs of the transport (minecraft.transport.BridgeTransport has it)."""

    async def request(self, op: str, args: dict[str, Any] | None = None, timeout: float | None = None) -> Any: ...


async def perform(bridge: Requester, call: ActionCall, places: Mapping[str, tuple[int, int, int]] | None = None) -> Any:
    """Run `call` and return the bridge's result; a refusal or timeout raises
    minecraft.transport.ActionFailed with the code (``missing_item``, ``timeout``, ...)."""
    return await bridge.request("act", call.bridge_args(places), timeout=call.spec.timeout_s + REPLY_GRACE_S)
