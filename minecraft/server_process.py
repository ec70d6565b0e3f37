"""Where the bots play: the embedded flying-squid kitchen, or a server the user already runs.

`EmbeddedServer` starts ``node server.js`` on a free loopback port (the OS picks it; the server
prints the real one) and stops it by closing its stdin. Its stdin is the admin console, so tests
can reset the kitchen, spawn animals or read the state without a bot. `ServerAddress` is the
other case: host, port and version of a vanilla/Paper server; no admin console, no kitchen plugin.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import secrets
import shutil
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from minecraft.protocol import ServerLine
from minecraft.transport import NODE_DIR, BridgeStartError

log = logging.getLogger(__name__)

MC_VERSION = "1.19.2"
START_TIMEOUT_S = 30.0
ADMIN_TIMEOUT_S = 10.0
MARKER = "mindagent {"


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """A Minecraft server the bots connect to. Example: ``ServerAddress("127.0.0.1", 25565)``."""

    host: str = "127.0.0.1"
    port: int = 25565
    version: str = MC_VERSION
    # True only for our embedded server: `/kitchen` (state, reset) is available.
    kitchen_plugin: bool = False
    # The embedded server's admin token: bots that present it become operators.
    admin_token: str | None = field(default=None, repr=False)
    # An online-mode server: (in-game name, Microsoft account e-mail) per bot; empty for offline mode.
    accounts: tuple[tuple[str, str], ...] = field(default=(), repr=False)


def parse_accounts(text: str) -> tuple[tuple[str, str], ...]:
    """``"Alex=alex@example.com,Steve=steve@example.com"`` -> pairs; one clear ValueError otherwise."""
    pairs = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, email = part.partition("=")
        if not sep or not name.strip().isidentifier() or "@" not in email:
            raise ValueError(f"--mc-accounts wants NAME=EMAIL pairs separated by commas, not {part!r}")
        pairs.append((name.strip(), email.strip()))
    if not pairs or len({n for n, _ in pairs}) != len(pairs):
        raise ValueError("--mc-accounts wants one NAME=EMAIL pair per bot, each name once")
    return tuple(pairs)


Clock = Literal["lockstep", "realtime"]
#: Game ticks one dispatcher step advances the kitchen in lockstep (20 ticks = 1 s of game time).
STEP_TICKS = 40


@dataclass(frozen=True, slots=True)
class KitchenConfig:
    """Timing knobs of the embedded kitchen. Vanilla cooks in 200 ticks; tests use 20-40.

    `clock`: ``lockstep`` (default) freezes the kitchen between steps and advances it by
    `step_ticks` game ticks per dispatcher step, so an episode depends only on the seed and the
    commands; ``realtime`` runs 20 ticks per wall-clock second, for people playing along (results
    then depend on machine speed and model latency). Respawn delays are counted in kitchen time
    (50 ms per tick). `guard` False starts the server without the visitor guards (plugins/guard.js):
    tests use such a server to stand in for somebody else's, where the bots are no operators.
    """

    cook_ticks: int = 100
    mob_respawn_ms: int = 3000
    block_respawn_ms: int = 5000
    seed: int = 0
    clock: Clock = "lockstep"
    step_ticks: int = STEP_TICKS
    guard: bool = True


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def warn_if_public(host: str) -> bool:
    """Log a warning when the world listens beyond this machine (offline mode: anyone may join
    under any name); True if it does."""
    loopback = is_loopback(host)
    if not loopback:
        log.warning("the Minecraft world listens on %s: offline mode, so anyone who can reach it can join "
                    "under any name (only operators can run /kitchen and /kill)", host)
    return not loopback


def parse_server_line(line: str) -> ServerLine | None:
    """The machine line inside one stdout line (the console may prefix prompts), if any."""
    at = line.find(MARKER)
    if at < 0:
        return None
    try:
        return ServerLine.model_validate(json.loads(line[at + len("mindagent ") :]))
    except (json.JSONDecodeError, ValidationError) as exc:
        log.warning("bad server line %r: %s", line[:200], exc)
        return None


class EmbeddedServer:
    """flying-squid with the kitchen plugins, owned by this Python process.

    Example::

        server = EmbeddedServer(KitchenConfig(cook_ticks=40))
        address = await server.start()        # ServerAddress(port=<free port>, kitchen_plugin=True)
        state = await server.admin("state")   # the kitchen dump
        await server.stop()
    """

    def __init__(self, config: KitchenConfig | None = None, version: str = MC_VERSION, host: str = "127.0.0.1") -> None:
        self.config = config or KitchenConfig()
        self.version = version
        self.host = host
        self.admin_token = secrets.token_hex(16)
        self.port = 0
        self.address: ServerAddress | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._lines: asyncio.Queue[ServerLine] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._admin_lock = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The server process id while it runs (fault tests pause or kill it)."""
        return self._proc.pid if self.alive and self._proc is not None else None

    @property
    def alive(self) -> bool:
        """True while the server process runs (False after a crash, a kill or `stop`)."""
        return self._proc is not None and self._proc.returncode is None

    async def start(self, port: int = 0) -> ServerAddress:
        """Start the server; a restart reuses the port it got the first time (people keep their address)."""
        warn_if_public(self.host)
        node = shutil.which("node")
        if node is None:
            raise BridgeStartError("node is not on PATH")
        if not (NODE_DIR / "node_modules" / "flying-squid").is_dir():
            raise BridgeStartError(f"run `npm ci` in {NODE_DIR} first")
        cfg = self.config
        port = port or self.port
        args = [node, str(NODE_DIR / "server.js"), "--port", str(port), "--host", self.host, "--version", self.version,
                "--cook-ticks", str(cfg.cook_ticks), "--mob-respawn-ms", str(cfg.mob_respawn_ms),
                "--block-respawn-ms", str(cfg.block_respawn_ms), "--seed", str(cfg.seed), "--clock", cfg.clock]
        if not cfg.guard:
            args += ["--guard", "off"]
        self._lines = asyncio.Queue()
        self._proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=16 * 1024 * 1024,
            env={**os.environ, "MINDAGENT_ADMIN_TOKEN": self.admin_token},
        )
        self._reader = asyncio.create_task(self._read_loop())
        try:
            first = await self._next_line("listening", START_TIMEOUT_S)
        except (TimeoutError, EOFError) as exc:
            await self.stop()
            raise BridgeStartError("the embedded server did not start") from exc
        assert first.port is not None
        self.port = first.port
        reach = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        self.address = ServerAddress(reach, first.port, self.version, kitchen_plugin=True, admin_token=self.admin_token)
        log.info("embedded Minecraft server on port %d", first.port)
        return self.address

    async def admin(self, command: str, timeout: float = ADMIN_TIMEOUT_S) -> Any:
        """Run ``kitchen <command>`` on the console; return its result or raise RuntimeError."""
        if self._proc is None or self._proc.stdin is None:
            raise RuntimeError("the server is not running")
        kind = command.split()[0]
        async with self._admin_lock:
            self._proc.stdin.write(f"kitchen {command}\n".encode())
            await self._proc.stdin.drain()
            line = await self._next_line(kind, timeout)
        if not line.ok:
            raise RuntimeError(f"kitchen {command}: {line.error}")
        return line.result

    async def console(self, line: str) -> None:
        """Send a raw flying-squid console command (e.g. ``kill Alex``); nothing is awaited."""
        if self._proc is None or self._proc.stdin is None:
            raise RuntimeError("the server is not running")
        self._proc.stdin.write(line.encode() + b"\n")
        await self._proc.stdin.drain()

    async def kill(self) -> None:
        """Kill the process without a goodbye (what a crash looks like); for fault tests."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            await self._proc.wait()

    async def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def _read_loop(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while raw := await proc.stdout.readline():
            parsed = parse_server_line(raw.decode(errors="replace"))
            if parsed is not None:
                self._lines.put_nowait(parsed)
        self._lines.put_nowait(ServerLine(kind="exit", ok=False, error="server exited"))

    async def _next_line(self, kind: str, timeout: float) -> ServerLine:
        async with asyncio.timeout(timeout):
            while True:
                line = await self._lines.get()
                if line.kind == kind:
                    return line
                if line.kind == "exit":
                    raise EOFError("the server exited")
