"""`MinecraftSession`: the Minecraft kitchen behind the `DomainSession` protocol.

Agent i is the bot named ``agents[i]`` (Alex, Steve, then more names). A step checks the joint
command list against the latest observation, runs the accepted actions concurrently over the
bridge (each bounded by its own timeout), then, in lockstep, advances the kitchen clock by
`step_ticks` game ticks (the kitchen stands still while actions run and while the dispatcher
thinks), observes once, and advances the orders. A bot that died or left is reconnected and the
episode goes on; its command in that step is refused with the reason. Chat lines of a human
player become standing head-chef lines (`pending_instructions`).

Every command's outcome becomes one line of the step's notes (the next prompt's feedback), with
order news, faults and what visitors did to the kitchen (`incidents`). Deliveries are counted from
the server's ledger of the bots' own deposits, not from the chest's totals. On a server of someone
else's (``--mc-host``) orders live by its world ticks and a step lasts at least `step_ticks` of them.
Faults: a dead embedded server is restarted (kitchen rebuilt, bots rejoined, a note in the step)
at most `MAX_SERVER_RESTARTS` times; a world that stays out of reach ends the episode with `WorldLost` after `MAX_STEPS_UNREACHABLE` steps.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any, Protocol, Self

from pydantic import ValidationError

from mindagent.core.directions import answer_standing
from mindagent.core.domain import CommandError, Counts, DomainSession, DomainStep, PromptParts, Verdict
from mindagent.core.gbnf import choice_grammar, team_choice_grammar
from mindagent.dispatch.plans import GoalMenu
from minecraft import check as checks
from minecraft import feedback, goals, page
from minecraft import view as views
from minecraft.commands import Command, Verb, extract_commands, gbnf
from minecraft.incidents import incident_lines
from minecraft.kitchen import BLOCKS, COOKED, ITEMS, MOBS, TARGETS
from minecraft.orders import OrderBook
from minecraft.prompt import prompt_parts
from minecraft.protocol import EventLine, Incident, Observation
from minecraft.results import ActionDone, ActionError, Outcome
from minecraft.server_process import MC_VERSION, EmbeddedServer, KitchenConfig, ServerAddress
from minecraft.state import state_text
from minecraft.transport import ActionFailed, BridgeError, BridgeStartError, BridgeTransport

log = logging.getLogger(__name__)

AGENT_NAMES = ("Alex", "Steve", "Ellie", "Kai", "Noor", "Zara", "Hugo", "Mira")
ACTION_TIMEOUT_S = {Verb.KILL_MOB: 30.0, Verb.MINE_BLOCK: 20.0}
DEFAULT_ACTION_TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 30.0
CONNECT_EACH_S = 15.0
OBSERVE_TIMEOUT_S = 30.0
#: On a server of someone else's: how long to wait for its first time update, and for its clock to
#: run one step's ticks (a stalled server is logged and the step goes on).
FIRST_TIME_UPDATE_S = 5.0
WORLD_WAIT_S = 30.0
ADVANCE_TIMEOUT_S = 10.0
VIEWER_TIMEOUT_S = 15.0
#: How often a dead embedded server is started again within one session.
MAX_SERVER_RESTARTS = 2
#: Replies said in the game chat per step at most, and their length (a chat line's limit is 256).
MAX_CHAT_REPLIES = 3
CHAT_CHARS = 250
#: Steps in a row with no bot in the world before the episode ends with `WorldLost`.
MAX_STEPS_UNREACHABLE = 3


class WorldLost(RuntimeError):
    """The Minecraft world is gone for good (the server cannot be restarted or reached)."""


class Bridge(Protocol):
    """What the session needs of a transport (the real one or a test fake)."""

    events: asyncio.Queue[EventLine]
    on_restart: list[Any]

    async def start(self) -> None: ...
    async def request(self, op: str, args: dict[str, Any] | None = None, timeout: float | None = None) -> Any: ...
    async def close(self) -> None: ...


class MinecraftSession(DomainSession):
    """Example::

        async with MinecraftSession(n_agents=2, tau=2.0, seed=0) as session:   # embedded server
            await session.reset()
            step = await session.step(["killMob(Alex, cow)", "mineBlock(Steve, coal_ore)"])
    """

    name = "minecraft"
    domain = "minecraft"

    def __init__(self, *, n_agents: int = 2, tau: float = 2.0, seed: int = 0, max_steps: int = 60,
                 address: ServerAddress | None = None, kitchen: KitchenConfig | None = None,
                 bridge: Bridge | None = None, agent_names: Sequence[str] | None = None,
                 server_port: int = 0, version: str | None = None, bind: str = "127.0.0.1",
                 view_port: int | None = None) -> None:
        names = list(agent_names or AGENT_NAMES[:n_agents])
        names += [f"Agent{i}" for i in range(len(names), n_agents)]
        self.agents: list[str] = names[:n_agents]
        self.n_agents, self.tau, self.seed, self.max_steps = n_agents, tau, seed, max_steps
        self.address = address
        self.kitchen = kitchen or KitchenConfig(seed=seed)
        self.server_port = server_port
        self.server = None if address is not None else (
            EmbeddedServer(self.kitchen, version or MC_VERSION, host=bind))
        self.bridge: Bridge = bridge or BridgeTransport()
        self.orders = OrderBook(tau=tau, seed=seed)
        self.obs = Observation()
        self._step = 0
        self._started = False
        self._down: set[str] = set()
        self._died: set[str] = set()
        self.server_restarts = 0
        self._replies: list[str] = []
        self._bridge_restarts_seen = 0
        self._unreachable_steps = 0
        self._view_at: tuple[str, frozenset[str] | None] | None = None
        #: The live 3D view's port once it runs: the one asked for (``--mc-view-port``), else the OS's pick.
        self.view_port: int | None = None
        self._view_wanted = view_port
        #: order time: the step count at home, world ticks / step_ticks on a server of someone else's
        self._now = 0
        self._age0: int | None = None
        self._incidents_seen = 0
        self._left_out: list[str] = []

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the embedded server (unless an address was given), the bridge and the bots."""
        if self._started:
            return
        if self.server is not None:
            self.address = await self.server.start(port=self.server_port)
        await self.bridge.start()
        self.bridge.on_restart.append(self._reconnect_all)
        try:
            await self._reconnect_all()
        except ActionFailed as exc:  # e.g. version_mismatch: one line naming both versions
            await self.close()
            raise WorldLost(exc.message) from None
        self._started = True
        await self._start_view()

    def serve_live_view(self, bind: str, hostnames: frozenset[str] | None) -> None:
        """Also serve a live 3D view of the kitchen (prismarine-viewer, from the bridge) on `bind`,
        answering only to `hostnames` (None: any); call before `start`. The game server does this
        for its rooms; `static_view()["view3d"]` then names the port."""
        self._view_at = (bind, hostnames)

    async def _start_view(self) -> None:
        """Start (or, after a bridge restart, restart on the same port) the 3D view; a view that
        cannot start is logged and left out, the game goes on."""
        if self._view_at is None:
            return
        bind, names = self._view_at
        args = {"bind": bind, "port": self.view_port or self._view_wanted or 0, "allowed": sorted(names) if names else []}
        try:
            result = await self.bridge.request("viewer", args, timeout=VIEWER_TIMEOUT_S)
            self.view_port = int(result["port"])
        except (BridgeError, KeyError, TypeError, ValueError) as exc:
            log.warning("the 3D view of the kitchen did not start: %s", exc)

    async def close(self) -> None:
        await self.bridge.close()
        if self.server is not None:
            await self.server.stop()
        self._started = False

    async def aclose(self) -> None:
        await self.close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _connect(self, names: Sequence[str]) -> None:
        assert self.address is not None
        args: dict[str, Any] = {"names": list(names), "host": self.address.host, "port": self.address.port,
                                "version": self.address.version}
        if self.address.admin_token:
            args["token"] = self.address.admin_token
        if self.address.accounts:  # an online-mode server: each bot signs in with its Microsoft account
            args["auth"] = "microsoft"
            args["accounts"] = dict(self.address.accounts)
        # the bridge joins bots one after another: the wait grows with their number
        await self.bridge.request("connect", args, timeout=CONNECT_TIMEOUT_S + CONNECT_EACH_S * (len(names) - 1))

    async def _reconnect_all(self) -> None:
        await self._connect(self.agents)
        self._down.clear()
        if self._started and self.view_port is not None:  # a restarted bridge: the view comes back too
            await self._start_view()

    # ---- DomainSession ---------------------------------------------------------------------

    @property
    def agent_names(self) -> list[str]:
        return list(self.agents)

    async def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
            self.orders = OrderBook(tau=self.tau, seed=seed)
        await self.start()
        self._step = 0
        self._drain_events()
        await self._rejoin()
        if self.address is not None and self.address.kitchen_plugin:
            await self._kitchen(f"clock {self.kitchen.clock}")
            await self.bridge.request("reset", {"seed": self.seed}, timeout=15.0)
        self._bridge_restarts_seen = self._bridge_restarts()
        self._down.clear()
        self._died.clear()
        await self._observe()
        self._now = 0
        if self.world_clock:
            await self._wait_world(1, FIRST_TIME_UPDATE_S)  # a real age, not a login packet's 0
            await self._observe()
        self._age0 = self.obs.world.age if self.world_clock and self.obs.world is not None else None
        self._incidents_seen = max((i.n for i in self._incidents()), default=0)
        self._left_out = self._leave_out_what_cannot_be_made()
        self.orders.reset(0, self._delivered())

    async def step(self, commands: Sequence[str]) -> DomainStep:
        self._drain_events()
        faults = await self._recover()
        checked = checks.check_all(commands, self.agents, self.obs, self.blocked_agents())
        self._died.clear()
        rejoined = await self._rejoin()
        runs = [self._run(cmd) if cmd is not None and why is None else _refused(why)
                for cmd, why in checked]
        outcomes: list[Outcome] = list(await asyncio.gather(*runs))
        self._drain_events()
        if self.world_clock and self.obs.world is not None:
            # a step lasts at least step_ticks of the server's own time, as a lockstep step does at home
            await self._wait_world(self.obs.world.age + self.kitchen.step_ticks, WORLD_WAIT_S)
        for outcome in outcomes:  # a death that already failed its action costs nothing more
            if isinstance(outcome, ActionError) and outcome.code == "died" and outcome.agent:
                self._died.discard(outcome.agent)
        self._step += 1
        await self._answer_chat()
        await self._advance_clock()
        await self._observe()
        faults += self._bridge_notes()
        self._check_reachable()
        done, expired = self._advance_orders()
        verdicts = [Verdict(text.strip(), isinstance(o, ActionDone), None if isinstance(o, ActionDone) else o,
                            feedback.line(o)) for text, o in zip(commands, outcomes, strict=True)]
        notes = faults + [v.text for v in verdicts if v.text] + self._incident_notes()
        notes += [f"{name} rejoined the server." for name in rejoined]
        notes += [f"Order for {o.dish} completed." for o in done]
        notes += [f"Order for {o.dish} ran out of time." for o in expired]
        notes += [f"{n} {dish} reached the chest with no open order for it; it does not count."
                  for dish, n in sorted(self.orders.unmatched.items())]
        if self._step == 1:
            notes += self._left_out
        return DomainStep(verdicts, notes, [o.dish for o in done], [o.dish for o in expired])

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        out = []
        checked = checks.check_all(commands, self.agents, self.obs, self.blocked_agents())
        for text, (_, why) in zip(commands, checked, strict=True):
            out.append(Verdict(text.strip(), why is None, why, None if why is None else feedback.line(why)))
        return out

    def legal_commands(self, agent: int) -> list[str]:
        name = self.agents[agent]
        return [c.text for c in checks.candidate_commands(name, self.obs)
                if checks.check_one(c, self.obs, self.blocked_agents()) is None]

    def extract_commands(self, text: str) -> list[str]:
        return [c.text for c in extract_commands(text, self.agents)]

    def state_text(self) -> str:
        text = state_text(self.obs, self.agents, self.orders.active, self._now, self.max_steps)
        if self.world_clock and self.obs.world is not None:
            text += f"\nServer clock: world tick {self.obs.world.age} (order time {self._now})."
        return text

    def prompt_parts(self) -> PromptParts:
        return prompt_parts(self.agents)

    def grammar(self) -> str:
        """Grammar-constrained decoding for the local model (full GBNF of this domain)."""
        return gbnf(self.agents, TARGETS, MOBS, BLOCKS, ITEMS)

    def legal_grammar(self) -> str:
        """Legal-move decoding: each bot's line one of its commands legal now (`legal_commands`)."""
        return team_choice_grammar([self.legal_commands(a) or [self.idle_command(a)] for a in range(self.n_agents)])

    def legal_agent_grammar(self, agent: int) -> str:
        """One bot's command, one of those legal for it now."""
        return choice_grammar(self.legal_commands(agent) or [self.idle_command(agent)])

    def idle_command(self, agent: int) -> str:
        return f"noop({self.agents[agent]})"

    def agent_of(self, command: str) -> int | None:
        """Names are matched ignoring case, as the command parser does (``NOOP(ALEX)`` is Alex's)."""
        names = [n.lower() for n in self.agents]
        for token in re.findall(r"[A-Za-z0-9_]+", command):
            if token.lower() in names:
                return names.index(token.lower())
        return None

    def parse_command(self, text: str) -> str:
        found = extract_commands(text, self.agents)
        if len(found) != 1:
            raise CommandError(f"not a Minecraft command: {text.strip()[:80]!r} (e.g. killMob(Alex, cow))")
        return found[0].text

    def pending_instructions(self) -> list[str]:
        """Standing head-chef lines, a game client's chat lines among them (``"Chef: no cooked_beef"``),
        newest last; the chat is read at every step, so a line said in the game stands like one typed
        on the page."""
        return super().pending_instructions()

    def goal_menu(self) -> GoalMenu:
        """The dishes of the open orders for goal mode (the `GoalMode` capability)."""
        return goals.goal_menu(self)

    def goal_executor(self) -> goals.GoalExecutor:
        return goals.GoalExecutor()

    def direction_names(self) -> dict[str, frozenset[str]]:
        """The dishes a head chef may name (the `Directable` capability)."""
        return goals.direction_names()

    def command_makes(self, command: str) -> str | None:
        output = self.obs.furnace().output
        return goals.command_makes(self.agents, command, None if output is None else COOKED.get(output.name, output.name))

    def orders_snapshot(self) -> list[dict[str, Any]]:
        ranked = sorted(self.orders.active, key=lambda o: (o.remaining(self._now), o.created))
        return [{"id": o.created, "dish": o.dish, "lifetime": o.remaining(self._now)} for o in ranked]

    @property
    def clock(self) -> str:
        """``lockstep`` or ``realtime``: realtime whenever the server has no kitchen clock of ours."""
        plugin = self.address is not None and self.address.kitchen_plugin
        return self.kitchen.clock if plugin else "realtime"

    def episode_header(self) -> dict[str, Any]:
        """The kitchen's settings as the server reports them (what actually ran), and the clock."""
        k = self.kitchen
        kitchen: dict[str, Any] = {"seed": k.seed, "cook_ticks": k.cook_ticks, "mob_respawn_ms": k.mob_respawn_ms,
                                   "block_respawn_ms": k.block_respawn_ms}
        reported = self.obs.kitchen.config if self.obs.kitchen is not None else {}
        for ours, theirs in (("cook_ticks", "cookTicks"), ("mob_respawn_ms", "mobRespawnMs"),
                             ("block_respawn_ms", "blockRespawnMs")):
            if isinstance(reported.get(theirs), int | float):
                kitchen[ours] = int(reported[theirs])
        clock: dict[str, Any] = {
            "mode": self.clock, "step_ticks": self.kitchen.step_ticks if self.clock == "lockstep" else None,
            "note": "lockstep: each step advances the kitchen by step_ticks game ticks; frozen in between"
            if self.clock == "lockstep" else "realtime: 20 ticks per wall-clock second; results depend on "
            "machine speed and model latency"}
        if self.world_clock:
            clock.update(orders="world ticks", ticks_per_order_step=self.kitchen.step_ticks, world_age_at_reset=self._age0,
                         note="the server's own clock: order arrivals and lifetimes count its world ticks (from its "
                              "time updates), step_ticks to a step of order time; results depend on machine speed "
                              "and model latency" + ("" if self._age0 is not None else
                                                     "; the server sent no time update, so steps were counted"))
        if self._left_out:
            clock["orders_left_out"] = list(self._left_out)
        return {"kitchen": kitchen, "clock": clock,
                "server": None if self.address is None else {"version": self.address.version,
                                                             "embedded": self.server is not None}}

    def view(self) -> dict[str, Any]:
        return views.kitchen_view(self.obs, self.agents, self.orders_snapshot(), self.blocked_agents())

    def static_view(self) -> dict[str, Any]:
        return views.level_view(self.agents, self.max_steps, self.address, self.view_port)

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        """What each legal command means on the shared page (the `PageActions` capability)."""
        return page.page_actions(self.agents, agent, legal)

    @property
    def step_index(self) -> int:
        return self._step

    @property
    def done(self) -> bool:
        # on a server of someone else's, `max_steps` steps of order time (its world ticks) or of the
        # dispatcher, whichever comes first
        return self._step >= self.max_steps or (self.world_clock and self._now >= self.max_steps)

    @property
    def order_time(self) -> int:
        """The clock orders live by: the step at home, world ticks / step_ticks on someone else's server."""
        return self._now

    @property
    def world_clock(self) -> bool:
        """Orders run on the server's own world ticks: a server of someone else's (``--mc-host``),
        whose time we do not hold still."""
        return self.server is None and not (self.address is not None and self.address.kitchen_plugin)

    @property
    def counts(self) -> Counts:
        return Counts(len(self.orders.completed), len(self.orders.failed), len(self.orders.active))

    # ---- internals -------------------------------------------------------------------------

    def blocked_agents(self) -> dict[str, str]:
        """Agents that cannot act this step, with the reason code (``died`` or ``rejoining``)."""
        blocked = {name: "died" for name in self._died}
        blocked.update({name: "rejoining" for name in self._down})
        return blocked

    async def _run(self, command: Command) -> Outcome:
        if command.verb is Verb.NOOP:
            return ActionDone(command.text, command.agent, command.verb.value)
        if command.verb is Verb.GOTO and command.arg not in TARGETS and self.obs.kitchen is not None:
            # a player's name as the server spells it (the check matched it ignoring case)
            spelled = {p.name.lower(): p.name for p in self.obs.kitchen.players}
            command = Command(command.verb, command.agent, spelled.get((command.arg or "").lower(), command.arg))
        timeout = ACTION_TIMEOUT_S.get(command.verb, DEFAULT_ACTION_TIMEOUT_S)
        try:
            result = await self.bridge.request(command.verb.value, command.bridge_args(), timeout=timeout)
        except ActionFailed as exc:
            if exc.code in {"disconnected", "not_connected"}:
                self._down.add(command.agent)
            return ActionError(exc.code, command.agent, command.text, exc.message)
        except BridgeError as exc:
            log.warning("%s failed in the bridge: %s", command.text, exc)
            return ActionError("bridge", command.agent, command.text, str(exc))
        return ActionDone(command.text, command.agent, command.verb.value, result if isinstance(result, dict) else {})

    async def _kitchen(self, command: str, timeout: float = ADVANCE_TIMEOUT_S) -> Any:
        """A `kitchen` admin command: on the console of our own server, else through a bot."""
        if self.server is not None and self.server.alive:
            return await self.server.admin(command, timeout=timeout)
        return await self.bridge.request("kitchen", {"command": command}, timeout=timeout)

    async def _advance_clock(self) -> None:
        if self.clock != "lockstep":
            return
        try:
            await self._kitchen(f"advance {self.kitchen.step_ticks}")
        except (BridgeError, RuntimeError, TimeoutError, EOFError) as exc:
            log.warning("the kitchen clock did not advance: %s", exc)

    async def _recover(self) -> list[str]:
        """Restart a dead embedded server (bounded); the notes say what happened."""
        if self.server is None or self.server.alive or not self._started:
            return []
        if self.server_restarts >= MAX_SERVER_RESTARTS:
            raise WorldLost(f"the embedded Minecraft server died again after {self.server_restarts} restarts; "
                            "the episode cannot go on")
        self.server_restarts += 1
        log.warning("the embedded Minecraft server died; restart %d of %d", self.server_restarts, MAX_SERVER_RESTARTS)
        await self.server.stop()
        try:
            self.address = await self.server.start(port=self.server.port)
        except BridgeStartError as exc:
            raise WorldLost(f"the embedded Minecraft server died and did not start again: {exc}") from exc
        self._down.update(self.agents)
        await self._rejoin()
        # the old bots' goodbyes (end, kicked) may still be queued: they are about the dead server
        while not self.bridge.events.empty():
            event = self.bridge.events.get_nowait()
            if event.event == "chat" and event.from_ and event.message and event.from_ not in self.agents:
                self._heard(f"{event.from_}: {event.message}")
        await self._kitchen(f"clock {self.kitchen.clock}")
        await self._observe()
        delivered = self._delivered()
        self.orders.credited = {d: delivered.get(d, 0) for d in self.orders.pool}
        self._incidents_seen = 0
        return [f"The game server stopped and was restarted (restart {self.server_restarts}): the kitchen was "
                "rebuilt with an empty furnace and chest, and the bots rejoined with their tools only."]

    def _delivered(self) -> dict[str, int]:
        """Dishes the bots delivered so far: the server's ledger of their own deposits where it keeps
        one (a dish someone else takes out again still counts), else the chest's totals."""
        return self.obs.delivered(self.agents)

    def _advance_orders(self) -> tuple[list[Any], list[Any]]:
        """Credit deliveries and move order time on: one step at home; on a server of someone else's
        as many steps as its world ticks advanced (each walked through, so none is skipped)."""
        before = self._now
        if not self.world_clock:
            self._now = self._step
        elif self._age0 is not None and self.obs.world is not None:
            self._now = max(before, (self.obs.world.age - self._age0) // self.kitchen.step_ticks)
        else:
            self._now = self._step
        done = self.orders.credit(self._now, self._delivered())
        expired = [o for t in range(before + 1, self._now + 1) for o in self.orders.tick(t)]
        return done, expired

    async def _wait_world(self, age: int, timeout: float) -> None:
        """Wait for the server's world age to reach `age` (its time updates); a server that sends
        none is logged and not waited for again until it does."""
        try:
            await self.bridge.request("waitWorld", {"age": age}, timeout=timeout)
        except BridgeError as exc:
            log.warning("the server's clock did not reach tick %d: %s", age, exc)

    def _leave_out_what_cannot_be_made(self) -> list[str]:
        """Crafted dishes need our plugin's crafting table; a server without one never asks for them,
        and the first step says so."""
        kitchen = self.obs.kitchen
        if not self.world_clock or not self.orders.crafted or (kitchen is not None and kitchen.crafting_tables):
            return []
        left = sorted(self.orders.crafted)
        self.orders.crafted = ()
        where = f"{self.address.host}:{self.address.port}" if self.address is not None else "this server"
        return [f"Orders for {', '.join(left)} are left out: the server at {where} has no crafting table our "
                "bots can use (crafting needs the kitchen plugin)."]

    def _incidents(self) -> list[Incident]:
        return list(self.obs.kitchen.incidents) if self.obs.kitchen is not None else []

    def _incident_notes(self) -> list[str]:
        """What people who are not the crew did to the kitchen since the last step, one line each:
        refused (it did not happen) or recorded (it happened; deliveries count what the bots put in,
        so a taken dish does not undo an order)."""
        fresh = [i for i in self._incidents() if i.n > self._incidents_seen]
        if not fresh:
            return []
        self._incidents_seen = max(i.n for i in fresh)
        return incident_lines(fresh, self.agents)

    def _bridge_restarts(self) -> int:
        return int(getattr(self.bridge, "restarts", 0))

    def _bridge_notes(self) -> list[str]:
        now = self._bridge_restarts()
        if now == self._bridge_restarts_seen:
            return []
        self._bridge_restarts_seen = now
        return [f"The bot bridge stopped and was restarted (restart {now}); the bots rejoined."]

    def _check_reachable(self) -> None:
        if any(self.obs.bots.get(n) is not None and self.obs.bots[n].connected for n in self.agents):
            self._unreachable_steps = 0
            return
        self._unreachable_steps += 1
        if self._unreachable_steps >= MAX_STEPS_UNREACHABLE:
            where = "the embedded server" if self.server is not None else \
                f"{self.address.host}:{self.address.port}" if self.address else "the server"
            raise WorldLost(f"no bot could reach {where} for {self._unreachable_steps} steps; the episode ends here")

    async def _rejoin(self) -> list[str]:
        back = []
        for name in sorted(self._down, key=self.agents.index):
            try:
                await self._connect([name])
            except BridgeError as exc:
                log.warning("%s could not rejoin: %s", name, exc)
                continue
            self._down.discard(name)
            back.append(name)
        return back

    async def _observe(self) -> None:
        try:
            raw = await self.bridge.request("observe", {}, timeout=OBSERVE_TIMEOUT_S)
            self.obs = Observation.model_validate(raw)
        except (BridgeError, ValidationError) as exc:
            log.warning("observation failed, keeping the last one: %s", exc)
            return
        for name in self.agents:
            view = self.obs.bots.get(name)
            if view is None or not view.connected:
                self._down.add(name)

    def _drain_events(self) -> None:
        while not self.bridge.events.empty():
            event = self.bridge.events.get_nowait()
            if event.event in ("end", "kicked") and event.bot in self.agents:
                self._down.add(event.bot)
            elif event.event == "death" and event.bot in self.agents:
                self._died.add(event.bot)
            elif event.event == "chat" and event.from_ and event.message and event.from_ not in self.agents:
                self._heard(f"{event.from_}: {event.message}")

    def _heard(self, line: str) -> None:
        """A chat line stands as a head-chef line; its reply is said in the game at the next step."""
        self.add_instruction(line)
        self._replies.append(answer_standing(self, line)[1])

    async def _answer_chat(self) -> None:
        """Say the replies to the chat lines heard, from the first bot in the world (a reply that
        cannot be said is logged: the line still stands)."""
        replies, self._replies = self._replies[-MAX_CHAT_REPLIES:], []
        speaker = next((n for n in self.agents if n not in self._down), None)
        for reply in replies if speaker is not None else []:
            try:
                await self.bridge.request("chat", {"bot": speaker, "text": str(reply)[:CHAT_CHARS]}, timeout=5.0)
            except BridgeError as exc:
                log.warning("a reply in the game chat was not said: %s", exc)


async def _refused(why: ActionError | None) -> Outcome:
    """A checker refusal, shaped like an action so one gather keeps the commands' order."""
    assert why is not None
    return why
