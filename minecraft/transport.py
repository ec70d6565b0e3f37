"""Asyncio client of the Node bridge: JSON lines over a child process's stdio.

Errors (the caller can act on each):

- ``BridgeError``: base class.
  - ``BridgeStartError``: Node or the bridge's node_modules are missing, or the process did not
    say it was ready. Fix the install; retrying will not help.
  - ``BridgeClosedError``: the process died or was closed while a request was pending. The
    transport restarts the process by itself (bounded); the request may be sent again.
  - ``BridgeTimeoutError``: no reply within the request's timeout. The bridge stays usable
    (unlike JSPyBridge, one timeout does not poison later calls).
  - ``BridgeProtocolError``: a line that is not valid JSON or not a known shape. Logged and
    counted; a reply that cannot be parsed fails only its own request.
  - ``ActionFailed``: the bridge answered ``ok: false``; ``code`` is its short reason
    (``not_found``, ``missing_item``, ``timeout``, ``disconnected`` ...).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from minecraft.protocol import EventLine, ReplyLine

log = logging.getLogger(__name__)

NODE_DIR = Path(__file__).resolve().parent / "node"
DEFAULT_TIMEOUT_S = 30.0
READY_TIMEOUT_S = 20.0
MAX_RESTARTS = 3
LINE_LIMIT = 16 * 1024 * 1024
# Node replies within its own per-request timeout; ours waits a little longer so the bridge's
# typed timeout (which also cancels the action) normally wins.
GRACE_S = 2.0


class BridgeError(Exception):
    """Base of every bridge failure."""


class BridgeStartError(BridgeError):
    """The bridge process could not be started."""


class BridgeClosedError(BridgeError):
    """The bridge process ended while a request was pending."""


class BridgeTimeoutError(BridgeError):
    """No reply within the request's timeout."""


class BridgeProtocolError(BridgeError):
    """A line from the bridge was not valid JSON or not a known shape."""


class ActionFailed(BridgeError):
    """The bridge answered ``ok: false``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def bridge_command() -> list[str]:
    """``node bridge.js`` in this package's node folder; raises when Node is not installed."""
    node = shutil.which("node")
    if node is None:
        raise BridgeStartError("node is not on PATH (Node 18+ is needed for the Minecraft domain)")
    if not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        raise BridgeStartError(f"run `npm ci` in {NODE_DIR} first (node_modules is missing)")
    return [node, str(NODE_DIR / "bridge.js")]


class BridgeTransport:
    """One bridge process, its pending requests and its event queue.

    Example::

        bridge = BridgeTransport()
        await bridge.start()
        await bridge.request("connect", {"names": ["Alex"], "port": 25565}, timeout=30)
        result = await bridge.request("killMob", {"bot": "Alex", "mob": "cow"})
        await bridge.close()
    """

    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        default_timeout: float = DEFAULT_TIMEOUT_S,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        self._command = list(command) if command is not None else None
        self.default_timeout = default_timeout
        self.max_restarts = max_restarts
        self.restarts = 0
        self.protocol_errors = 0
        self.events: asyncio.Queue[EventLine] = asyncio.Queue()
        self.on_restart: list[Callable[[], Awaitable[None]]] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self._closing = False
        self._ready = asyncio.Event()
        self._restarting: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    @property
    def pid(self) -> int | None:
        """The Node process id while it runs (fault tests kill it)."""
        return self._proc.pid if self.alive and self._proc is not None else None

    async def start(self) -> None:
        """Spawn the process and wait for its ``ready`` event (no-op while it runs)."""
        if self.alive:
            return
        command = self._command or bridge_command()
        self._ready.clear()
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,
                limit=LINE_LIMIT,
            )
        except OSError as exc:
            raise BridgeStartError(f"cannot start {command[0]}: {exc}") from exc
        self._reader = asyncio.create_task(self._read_loop(self._proc))
        try:
            await asyncio.wait_for(self._ready.wait(), READY_TIMEOUT_S)
        except TimeoutError as exc:
            await self._kill()
            raise BridgeStartError("the bridge did not report ready") from exc

    async def request(self, op: str, args: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        """Send one request and return its ``result``; raise a ``BridgeError`` otherwise."""
        if self._restarting is not None:
            await asyncio.shield(self._restarting)
        if not self.alive or self._proc is None or self._proc.stdin is None:
            raise BridgeClosedError("the bridge is not running")
        limit = timeout if timeout is not None else self.default_timeout
        self._next_id += 1
        rid = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        line = json.dumps({"id": rid, "op": op, "args": args or {}, "timeout_ms": int(limit * 1000)})
        try:
            self._proc.stdin.write(line.encode() + b"\n")
            await self._proc.stdin.drain()
            return await asyncio.wait_for(future, limit + GRACE_S)
        except TimeoutError as exc:
            raise BridgeTimeoutError(f"{op} got no reply within {limit:.1f} s") from exc
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise BridgeClosedError(f"the bridge closed during {op}") from exc
        finally:
            self._pending.pop(rid, None)

    async def close(self) -> None:
        """Close stdin (the bridge quits its bots and exits) and wait a little, then kill."""
        self._closing = True
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 3.0)
        except TimeoutError:
            await self._kill()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        self._fail_pending(BridgeClosedError("the bridge was closed"))

    async def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            await self._proc.wait()

    def _fail_pending(self, exc: BridgeError) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(exc)
        self._pending.clear()

    async def _read_loop(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while True:
            try:
                raw = await proc.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError) as exc:
                self._protocol_error(f"line too long: {exc}")
                continue
            if not raw:
                break
            self._dispatch(raw)
        await proc.wait()
        self._fail_pending(BridgeClosedError(f"the bridge exited with code {proc.returncode}"))
        if not self._closing and proc is self._proc:
            self._restarting = asyncio.create_task(self._restart())

    def _dispatch(self, raw: bytes) -> None:
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._protocol_error(f"not JSON: {raw[:200]!r}")
            return
        if not isinstance(data, dict):
            self._protocol_error(f"not an object: {raw[:200]!r}")
            return
        if "event" in data:
            try:
                event = EventLine.model_validate(data)
            except ValidationError as exc:
                self._protocol_error(f"bad event {raw[:200]!r}: {exc.error_count()} errors")
                return
            if event.event == "ready":
                self._ready.set()
            else:
                self.events.put_nowait(event)
            return
        self._dispatch_reply(data, raw)

    def _dispatch_reply(self, data: dict[str, Any], raw: bytes) -> None:
        rid = data.get("id")
        future = self._pending.get(rid) if isinstance(rid, int) else None
        try:
            reply = ReplyLine.model_validate(data)
        except ValidationError as exc:
            self._protocol_error(f"bad reply {raw[:200]!r}: {exc.error_count()} errors")
            if future is not None and not future.done():
                future.set_exception(BridgeProtocolError(f"malformed reply to request {rid}"))
            return
        if future is None or future.done():
            log.debug("reply to unknown or finished request %s", rid)
            return
        if reply.ok:
            future.set_result(reply.result)
        else:
            future.set_exception(ActionFailed(reply.code or "internal", reply.error or "no message"))

    def _protocol_error(self, message: str) -> None:
        self.protocol_errors += 1
        log.warning("bridge protocol error: %s", message)

    async def _restart(self) -> None:
        """Bring a dead bridge back (bounded), then let the owner resync (reconnect bots)."""
        try:
            if self.restarts >= self.max_restarts:
                log.error("bridge died %d times; not restarting", self.restarts)
                return
            self.restarts += 1
            log.warning("bridge died; restart %d of %d", self.restarts, self.max_restarts)
            await self.start()
        except BridgeStartError as exc:
            log.error("bridge restart failed: %s", exc)
            return
        finally:
            # Requests made by the resync hooks below must not wait for this task.
            self._restarting = None
        for hook in list(self.on_restart):
            try:
                await hook()
            except BridgeError as exc:
                log.warning("resync after restart failed: %s", exc)
