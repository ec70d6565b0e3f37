"""VillagerBench's Escape Room Challenge as a Minecraft session on the real server.

The room is built south of the kitchen by `node/plugins/escape.js`, which also performs the
mechanisms stock flying-squid lacks (plates, levers, key doors). A step checks the joint commands
(`escape_world.check_all`: nothing moves for a refused one), runs the accepted ones at once over
the bridge (each confirmed by a world event, with a timeout), then reads the room back from the
server, which is the truth the score is computed from. The episode ends when every bot is out or
its steps are used. No step waits on the kitchen clock: every mechanism answers an event.

Levels: ``escape:<band>:<seed>`` (a generated room) or an escape-room file's path.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindagent.core.domain import Counts, DomainStep, PromptParts, SpecError, Verdict
from mindagent.core.spec import GameSpec
from minecraft.families.escape_commands import EscapeSyntaxError, extract_escape_commands, parse_escape_command
from minecraft.families.escape_generate import BANDS, generate_room
from minecraft.families.escape_prompt import INSTRUCTIONS, room_lines
from minecraft.families.escape_room import JUNK, KEYS, Room, load_room, mechanisms
from minecraft.families.escape_world import EscapeWorld, check_all
from minecraft.families.family_commands import CommandLanguage, FamilyCommands
from minecraft.results import ActionDone, ActionError, Outcome
from minecraft.server_process import MC_VERSION, EmbeddedServer, KitchenConfig
from minecraft.transport import ActionFailed, BridgeError, BridgeTransport

log = logging.getLogger(__name__)

FAMILY = "escape"
AGENT_NAMES = ("Alex", "Steve", "Ellie", "Kai")
ACTION_TIMEOUT_S = 25.0
ROOM_TIMEOUT_S = 30.0
#: Times the room's set-up asks the bots into the first room before it gives up, and the pause
#: between asks (set-up only: the episode starts from the same cells whichever ask brought them).
GATHER_TRIES = 20
GATHER_PAUSE_S = 0.25
CONNECT_TIMEOUT_S = 60.0
#: Episode length of an escape room when `--steps` is not given.
DEFAULT_STEPS = 30
_OPS = {"stand": "escapeStand", "flip": "escapeFlip", "unlock": "escapeUnlock", "take": "escapeTake", "exit": "escapeExit"}


def is_room_file(level: str) -> bool:
    """A level path is an escape room when its name says so (``*.escape.json``)."""
    return level.endswith(".escape.json")


def check_level(level: str) -> None:
    """ValueError (one line) unless the level loads."""
    load_level(level)


def load_level(level: str) -> Room:
    """``escape:<band>:<seed>`` or a room file; ValueError (one line) otherwise."""
    if level.startswith(f"{FAMILY}:"):
        parts = level.split(":")
        if len(parts) != 3 or parts[1] not in BANDS or not parts[2].isdigit():
            raise ValueError(f"an escape level is {FAMILY}:<{'|'.join(BANDS)}>:<seed>, not {level!r}")
        return generate_room(parts[1], int(parts[2]))
    return load_room(Path(level))


def check_team(spec: GameSpec) -> None:
    """ValueError (one line) when the room needs more bots than the spec brings."""
    assert spec.level is not None
    room = load_level(spec.level)
    if spec.agents < room.team:
        raise ValueError(f"{room.name} is made for {room.team} bots (plates held at once), not {spec.agents}")


def make_session(spec: GameSpec) -> EscapeSession:
    assert spec.level is not None
    room = load_level(spec.level)
    if spec.agents < room.team:
        raise SpecError(f"minecraft escape: {room.name} is made for {room.team} bots (plates held at once), not {spec.agents}")
    return EscapeSession(room, n_agents=spec.agents, max_steps=spec.steps or DEFAULT_STEPS, seed=spec.seed)


def _cell_of(position: object) -> tuple[int, int] | None:
    """The (x, z) block a bot stands in, from the bridge's position (None when it has none)."""
    if not isinstance(position, list | tuple) or len(position) != 3:
        return None
    try:
        return math.floor(float(position[0])), math.floor(float(position[2]))
    except (TypeError, ValueError):
        return None


class EscapeSession(FamilyCommands):
    """Example::

        session = EscapeSession(generate_room("easy", 0), n_agents=2)
        await session.reset()
        step = await session.step(["stand(Alex, plate1)", "stand(Steve, plate2)"])
        session.world.opened   # [True, False]: door 1 opened
    """

    domain = "minecraft"
    language = CommandLanguage(parse_escape_command, extract_escape_commands, EscapeSyntaxError, "wait")
    family = FAMILY

    def __init__(self, room: Room, *, n_agents: int = 2, max_steps: int = DEFAULT_STEPS, seed: int = 0,
                 version: str = MC_VERSION) -> None:
        self.room = room
        self.name = room.name
        self.n_agents, self.max_steps, self.seed = n_agents, max_steps, seed
        self.agents = list(AGENT_NAMES[:n_agents]) + [f"Agent{i}" for i in range(len(AGENT_NAMES), n_agents)]
        self.server = EmbeddedServer(KitchenConfig(seed=seed), version)
        self.bridge = BridgeTransport()
        self.world = EscapeWorld.fresh(room, self.agents)
        self.where: dict[str, list[int]] = {}
        self.exit_at: list[int] = []
        self._step = 0
        self._started = False
        self.escaped_at: int | None = None

    # ---- lifecycle
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

    async def reset(self, seed: int | None = None) -> None:
        """The kitchen reset (inventories emptied), then the room built afresh with the bots in room 1."""
        if seed is not None:
            self.seed = seed
        await self.start()
        await self.server.admin(f"reset {self.seed}", timeout=ROOM_TIMEOUT_S)
        state = await self.server.admin(f"escape setup {self._spec()}", timeout=ROOM_TIMEOUT_S)
        await self._gather(state)
        self.world = EscapeWorld.fresh(self.room, self.agents)
        self._read(state)
        self._step = 0
        self.escaped_at = None

    async def _gather(self, state: dict[str, Any]) -> None:
        """Every bot on its start cell as the bots themselves see it (the bridge's observe syncs each
        bot's world with the server first) and as the server sees it. The room's teleport can lose a
        race with the kitchen reset's, leaving a bot (or the server's idea of it) at the kitchen
        spawn outside the room's wall, from where a later correction pulls it out; then it is asked
        again."""
        starts = {str(k): (int(v[0]), int(v[2])) for k, v in state["starts"].items()}
        for _ in range(GATHER_TRIES):
            seen = (await self.bridge.request("observe", {}, timeout=ROOM_TIMEOUT_S))["bots"]
            server = (await self.server.admin("escape state", timeout=ROOM_TIMEOUT_S))["players"]
            stray = [name for name in self.agents
                     if _cell_of(seen.get(name, {}).get("position")) != starts.get(name)
                     or tuple(server.get(name, {}).get("cell") or ()) != starts.get(name)]
            if not stray:
                return
            log.info("escape: %s not in the first room after set-up; gathering again", ", ".join(stray))
            await asyncio.sleep(GATHER_PAUSE_S)  # the kitchen reset's own teleport may still be on its way
            await self.server.admin("escape gather", timeout=ROOM_TIMEOUT_S)
        where = "; ".join(f"{name} at {seen.get(name, {}).get('position')}, not {starts.get(name)}" for name in stray)
        raise BridgeError(f"escape: could not bring every bot into the first room ({where})")

    def _spec(self) -> str:
        """The room as the plugin builds it (one line, no spaces: the console splits on them)."""
        mechs = [{"name": m.name, "kind": m.kind, "room": m.room, "cell": list(m.cell), "index": m.index,
                  "items": dict(m.items)} for m in mechanisms(self.room)]
        stages = [{"kind": s.kind, "order": list(s.order), "key": s.key} for s in self.room.stages]
        return json.dumps({"rooms": len(self.room.stages), "bots": self.agents, "mechs": mechs, "stages": stages},
                          separators=(",", ":"))

    def _read(self, state: dict[str, Any]) -> None:
        self.world.update(state)
        self.where = {str(k): [int(c) for c in v] for k, v in state["where"].items()}
        self.exit_at = [int(c) for c in state["exit"]]

    # ---- stepping
    async def step(self, commands: Sequence[str]) -> DomainStep:
        checked = check_all(commands, self.agents, self.world)
        opened_before, out_before = list(self.world.opened), set(self.world.out)
        outcomes: list[Outcome] = list(await asyncio.gather(
            *[self._run(cmd) if cmd is not None and why is None else _refused(why) for cmd, why in checked]))
        for cmd, outcome in zip((c for c, _ in checked), outcomes, strict=True):
            if cmd is not None and cmd.verb == "take" and isinstance(outcome, ActionDone):
                self.world.searched.add(str(cmd.target))
        self._step += 1
        self._read(await self.server.admin("escape state", timeout=ROOM_TIMEOUT_S))
        if self.world.escaped and self.escaped_at is None:
            self.escaped_at = self._step
        completed = [f"door{r + 1} open" for r, (was, now) in enumerate(zip(opened_before, self.world.opened, strict=True))
                     if now and not was]
        completed += [f"{a} out" for a in self.agents if a in self.world.out and a not in out_before]
        verdicts = [Verdict(text.strip(), isinstance(o, ActionDone), None if isinstance(o, ActionDone) else o, _line(o))
                    for text, o in zip(commands, outcomes, strict=True)]
        notes = [v.text for v in verdicts if v.text]
        notes.append(f"Doors open: {sum(self.world.opened)} of {len(self.room.stages)}; out: "
                     f"{len(self.world.out)} of {len(self.agents)} (C {self.score:.2f}).")
        return DomainStep(verdicts, notes, completed, [])

    async def _run(self, cmd: Any) -> Outcome:
        if cmd.verb == "wait":
            return ActionDone(cmd.text, cmd.agent, "wait")
        args: dict[str, Any] = {"bot": cmd.agent}
        if cmd.verb == "exit":
            args["at"] = self.exit_at
        else:
            args.update(at=self.where[cmd.target], **{self.world.mech[cmd.target].kind: cmd.target})
            if cmd.verb == "unlock":
                args["key"] = self.room.stages[self.world.mech[cmd.target].room].key
        try:
            result = await self.bridge.request(_OPS[cmd.verb], args, timeout=ACTION_TIMEOUT_S)
        except ActionFailed as exc:
            return ActionError(exc.code, cmd.agent, cmd.text, exc.message)
        except BridgeError as exc:
            return ActionError("bridge", cmd.agent, cmd.text, str(exc))
        return ActionDone(cmd.text, cmd.agent, cmd.verb, dict(result or {}))

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return [Verdict(text.strip(), why is None, why, None if why is None else _line(why))
                for text, (_, why) in zip(commands, check_all(commands, self.agents, self.world), strict=True)]

    def legal_commands(self, agent: int) -> list[str]:
        """wait, then every command on a mechanism of an open room (and exit) this bot could give alone."""
        name = self.agents[agent]
        texts = [f"wait({name})", f"exit({name})"]
        verbs = {"plate": "stand", "lever": "flip", "chest": "take", "door": "unlock"}
        texts += [f"{verbs[m.kind]}({name}, {m.name})" for m in mechanisms(self.room)]
        return [t for t in texts if check_all([t], self.agents, self.world)[0][1] is None]

    # ---- what the dispatcher reads
    def state_text(self) -> str:
        w = self.world
        lines = [f"Step {self._step} of {self.max_steps}."]
        for r, is_open in enumerate(w.opened):
            lines.append(f"door{r + 1} (room {r + 1} to room {r + 2}): {'open' if is_open else 'closed'}.")
        for name in self.agents:
            carry = ", ".join(f"{k} x{n}" for k, n in sorted(w.inventory[name].items()) if n > 0 and k in _SHOWN) or "nothing"
            where = "out at the exit" if name in w.out else f"on {w.on_plate[name]}" if w.on_plate.get(name) else "walking"
            lines.append(f"{name}: {where}; carries {carry}.")
        if w.levers_on:
            lines.append("Levers on: " + ", ".join(w.levers_on) + ".")
        if w.searched:
            lines.append("Chests searched: " + ", ".join(sorted(w.searched)) + ".")
        return "\n".join(lines)

    def prompt_parts(self) -> PromptParts:
        return PromptParts(recipes="\n".join(room_lines(self.room)), instructions=INSTRUCTIONS,
                           knowledge="Work the first closed room; bots on plates keep still (wait) until its door opens.",
                           director="Your guide says")

    def orders_snapshot(self) -> list[dict[str, Any]]:
        """The doors still closed and the bots still in: an escape room's open work."""
        left = self.max_steps - self._step
        work = [{"id": r, "dish": f"open door{r + 1}", "lifetime": left} for r, o in enumerate(self.world.opened) if not o]
        return work + [{"id": len(self.room.stages) + k, "dish": f"{a} to the exit", "lifetime": left}
                       for k, a in enumerate(self.agents) if a not in self.world.out]

    @property
    def score(self) -> float:
        """VillagerBench's completion C (appendix A.7): conditions met over all, the exit one of them."""
        return self.world.conditions_met() / (self.room.dependency + 1)

    @property
    def step_index(self) -> int:
        return self._step

    @property
    def done(self) -> bool:
        return self._step >= self.max_steps or self.world.escaped

    @property
    def counts(self) -> Counts:
        """Doors and bots to get out as units of work (`orders_snapshot` lists the ones left)."""
        done = sum(self.world.opened) + len(self.world.out)
        return Counts(completed=done, failed=0, active=len(self.room.stages) + len(self.agents) - done)

    def episode_header(self) -> dict[str, Any]:
        return {"family": FAMILY, "room": self.room.model_dump(mode="json", by_alias=True)}


_SHOWN = set(KEYS + JUNK)


def _line(outcome: Outcome | None) -> str:
    if isinstance(outcome, ActionDone):
        return f"{outcome.command}: done."
    if outcome is None:
        return ""
    return f"{outcome.command or 'a command'} failed ({outcome.code}): {outcome.detail}"


async def _refused(why: ActionError | None) -> Outcome:
    assert why is not None
    return why
