"""VillagerBench's Construction Cooperation as a Minecraft session on the real server.

The bots build a blueprint on the site east of the kitchen (`node/plugins/construction.js`) with
materials from the chest beside it. A step checks the joint commands (`build_world.check_all`,
nothing moves for a refused one), runs the accepted ones at once over the bridge (each confirmed
by a world event, with a timeout), then reads the site and the chest back from the server. The
score is the completion rate C computed from the server's blocks; the view hit rate rides along
in the step notes' data (`metrics`). The episode ends when the blueprint stands (C = 1) or its
steps are used.

Levels: ``construction:<band>:<seed>`` (a generated blueprint) or a blueprint file's path. With
``--mc-host`` (and ``--mc-site``, the materials chest there) the task is built on a server of the
user's own (`construction_site.ForeignSite`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindagent.core.domain import Counts, DomainStep, PromptParts, Verdict
from mindagent.core.spec import GameSpec
from minecraft.families.blueprint import MATERIALS, SITE, Blueprint, Position, load_blueprint
from minecraft.families.build_commands import BuildSyntaxError, extract_build_commands, parse_build_command
from minecraft.families.build_world import FACING_LETTERS, FACING_NAMES, BuildWorld, check_all, check_one
from minecraft.families.construction_site import EmbeddedSite, ForeignSite, Site, SiteState, parse_site
from minecraft.families.family_commands import CommandLanguage, FamilyCommands
from minecraft.families.generate import BANDS, generate
from minecraft.families.metrics import Placed, completion_rate, view_hit_rate
from minecraft.families.support import build_order
from minecraft.results import ActionDone, ActionError, Outcome
from minecraft.server_process import MC_VERSION, ServerAddress
from minecraft.transport import ActionFailed, BridgeError, BridgeTransport

log = logging.getLogger(__name__)

FAMILY = "construction"
AGENT_NAMES = ("Alex", "Steve", "Ellie", "Kai")
ACTION_TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 60.0


#: Episode length of a construction task when `--steps` is not given: at least this many steps,
#: and a step per blueprint block plus `SPARE_STEPS` (takes from the chest, a block given again)
#: for larger blueprints, so one bot can finish any generated task in time.
DEFAULT_STEPS = 40
SPARE_STEPS = 20


def default_steps(blueprint: Blueprint) -> int:
    """The task's own length: `eval --steps` only cuts a run short, so a hard blueprint needs its own."""
    return max(DEFAULT_STEPS, len(blueprint.blocks) + SPARE_STEPS)


def is_construction_level(level: str | None) -> bool:
    return bool(level) and (str(level).startswith(f"{FAMILY}:") or is_blueprint_file(str(level)))


def is_blueprint_file(level: str) -> bool:
    """A level given as a path is a blueprint when it is JSON (the only file form this family reads)."""
    return level.endswith(".json")


def check_level(level: str) -> None:
    """ValueError (one line) unless the level loads."""
    load_level(level)


def make_session(spec: GameSpec) -> ConstructionSession:
    assert spec.level is not None
    o = spec.options
    version = str(o.get("mc_version") or MC_VERSION)
    site: Site | None = None
    if o.get("mc_host"):
        address = ServerAddress(str(o["mc_host"]), int(o.get("mc_port") or 25565), version=version)
        site = ForeignSite(address, parse_site(str(o["mc_site"])))
    blueprint = load_level(spec.level)
    return ConstructionSession(blueprint, n_agents=spec.agents, max_steps=spec.steps or default_steps(blueprint),
                               seed=spec.seed, version=version, site=site)


def check_options(options: dict[str, object]) -> None:
    """ValueError (one line) for server options a construction task cannot use."""
    if options.get("mc_host") and not options.get("mc_site"):
        raise ValueError("construction on a server at --mc-host needs --mc-site X,Y,Z: where its owner put the "
                         "materials chest (the site is the 16 x 16 square two blocks south of it)")
    if options.get("mc_site") is not None:
        if not options.get("mc_host"):
            raise ValueError("--mc-site names the materials chest on a server at --mc-host; the embedded server "
                             "lays out its own site")
        parse_site(str(options["mc_site"]))
    for key, flag in (("mc_accounts", "--mc-accounts"), ("mc_clock", "--mc-clock"), ("cook_ticks", "--cook-ticks")):
        if options.get(key) is not None:
            raise ValueError(f"construction tasks do not use {flag}")


def load_level(level: str) -> Blueprint:
    """``construction:<band>:<seed>`` or a blueprint file; ValueError (one line) otherwise."""
    if level.startswith(f"{FAMILY}:"):
        parts = level.split(":")
        if len(parts) != 3 or parts[1] not in BANDS or not parts[2].isdigit():
            raise ValueError(f"a construction level is {FAMILY}:<{'|'.join(BANDS)}>:<seed>, not {level!r}")
        return generate(parts[1], int(parts[2]))
    return load_blueprint(Path(level))


def blueprint_lines(blueprint: Blueprint) -> list[str]:
    """The blueprint as the prompt lists it, bottom layer first (VillagerBench's concise form)."""
    lines = []
    for block in build_order(blueprint):
        facing = f" facing {block.facing}" if block.facing else ""
        lines.append(f"{block.material}{facing} at ({block.x}, {block.y}, {block.z})")
    return lines


class ConstructionSession(FamilyCommands):
    """Example::

        session = ConstructionSession(generate("easy", 0), n_agents=2)
        await session.reset()
        step = await session.step(["take(Alex, stone, 4)", "take(Steve, dirt, 2)"])
        session.score   # C, from the server's blocks
    """

    domain = "minecraft"
    language = CommandLanguage(parse_build_command, extract_build_commands, BuildSyntaxError, "noop")
    family = FAMILY

    def __init__(self, blueprint: Blueprint, *, n_agents: int = 2, max_steps: int = 40, seed: int = 0,
                 version: str = MC_VERSION, site: Site | None = None) -> None:
        self.blueprint = blueprint
        self.name = blueprint.name
        self.n_agents, self.max_steps, self.seed = n_agents, max_steps, seed
        self.agents = list(AGENT_NAMES[:n_agents]) + [f"Agent{i}" for i in range(len(AGENT_NAMES), n_agents)]
        self.site: Site = site if site is not None else EmbeddedSite(seed, version)
        self.bridge = BridgeTransport()
        self.world = BuildWorld.fresh(blueprint, self.agents)
        self.origin: tuple[int, int, int] = (0, 0, 0)
        self.chest_pos: list[int] = []
        self._step = 0
        self._gained = self._lost = 0
        self._started = False
        self.vhr = 0.0

    # ---- lifecycle
    async def start(self) -> None:
        if self._started:
            return
        address = await self.site.start(self.bridge)
        await self.bridge.start()
        args: dict[str, Any] = {"names": self.agents, "host": address.host, "port": address.port,
                                "version": address.version}
        if address.admin_token:
            args["token"] = address.admin_token
        await self.bridge.request("connect", args, timeout=CONNECT_TIMEOUT_S)
        self._started = True

    async def aclose(self) -> None:
        await self.bridge.close()
        await self.site.stop()
        self._started = False

    async def reset(self, seed: int | None = None) -> None:
        """At home: the kitchen reset (inventories emptied, bots at spawn), then a cleared site and a
        full chest. On a foreign server: the site and chest as its owner prepared them (`SiteError`
        unless clear and full). Either way what the bots carry is read from them."""
        if seed is not None:
            self.seed = seed
        await self.start()
        state = await self.site.prepare(self.bridge, self.blueprint, self.seed, self.agents[0])
        self.origin = state.origin
        self.chest_pos = list(state.chest_pos)
        self.world = BuildWorld.fresh(self.blueprint, self.agents)
        self._read_site(state)
        await self._read_inventories()
        self._step = 0
        self._gained = self._lost = 0

    def _read_site(self, state: SiteState) -> None:
        """The server's site (and chest, where it was read) become the model's: the truth C is computed from."""
        site: dict[Position, Placed] = {}
        for x, y, z, name, facing in state.blocks:
            site[(x, y, z)] = Placed(name, FACING_LETTERS.get(facing) if facing else None)
        self.world.site = site
        if state.chest is not None:
            self.world.chest.clear()
            self.world.chest.update(state.chest)
        self.vhr = view_hit_rate(self.blueprint, site)

    # ---- stepping
    async def step(self, commands: Sequence[str]) -> DomainStep:
        checked = check_all(commands, self.agents, self.world)
        outcomes: list[Outcome] = list(await asyncio.gather(
            *[self._run(cmd) if cmd is not None and why is None else _refused(why) for cmd, why in checked]))
        for (cmd, _), outcome in zip(checked, outcomes, strict=True):
            if cmd is not None and isinstance(outcome, ActionDone) and cmd.verb == "take":
                self.world.apply(cmd, outcome.result)
                if isinstance(outcome.result.get("chest"), dict):  # the chest as the take left it
                    self.world.chest.clear()
                    self.world.chest.update({str(k): int(v) for k, v in outcome.result["chest"].items() if int(v) > 0})
            elif cmd is not None and isinstance(outcome, ActionDone) and cmd.verb == "place" and cmd.material:
                self.world.inventory[cmd.agent][cmd.material] -= 1
        self._step += 1
        await self._read_inventories()
        right_before = self._right()
        self._read_site(await self.site.read(self.bridge, self.agents[0]))
        right_now = self._right()
        gained, lost = sorted(right_now - right_before), sorted(right_before - right_now)
        self._gained += len(gained)
        self._lost += len(lost)
        verdicts = [Verdict(text.strip(), isinstance(o, ActionDone), None if isinstance(o, ActionDone) else o, _line(o))
                    for text, o in zip(commands, outcomes, strict=True)]
        notes = [v.text for v in verdicts if v.text]
        notes.append(f"Blueprint: {self._correct()} of {len(self.blueprint.blocks)} blocks right "
                     f"(C {self.score:.2f}, view hit rate {self.vhr:.2f}).")
        want = self.blueprint.at()
        return DomainStep(verdicts, notes, [_label(want[p]) for p in gained], [_label(want[p]) for p in lost])

    async def _read_inventories(self) -> None:
        """What each bot really carries, as the site is read from the server: a placement that the
        world confirmed only after its action gave up (a loaded server) is built, and its block gone
        from the bot's hands; counting from reports alone, the team would wait on a block it lacks."""
        replies = await asyncio.gather(*[self.bridge.request("carrying", {"bot": a}, timeout=ACTION_TIMEOUT_S)
                                         for a in self.agents], return_exceptions=True)
        for agent, reply in zip(self.agents, replies, strict=True):
            if isinstance(reply, BaseException):
                log.warning("could not read what %s carries: %s", agent, reply)
                continue
            items = dict(reply.get("items") or {})
            self.world.inventory[agent] = Counter({str(m): int(n) for m, n in sorted(items.items())
                                                   if m in MATERIALS and int(n) > 0})

    async def _run(self, cmd: Any) -> Outcome:
        if cmd.verb == "noop":
            return ActionDone(cmd.text, cmd.agent, "noop")
        args: dict[str, Any] = {"bot": cmd.agent}
        if cmd.verb == "take":
            op = "takeFromChest"
            args.update(item=cmd.material, count=cmd.count, chest=self.chest_pos)
        else:
            x, y, z = (o + p for o, p in zip(self.origin, cmd.pos, strict=True))
            op = "placeAt" if cmd.verb == "place" else "digAt"
            args.update(x=x, y=y, z=z)
            if cmd.verb == "place":
                args.update(item=cmd.material, facing=FACING_NAMES.get(cmd.facing or ""))
        try:
            result = await self.bridge.request(op, args, timeout=ACTION_TIMEOUT_S)
        except ActionFailed as exc:
            return ActionError(exc.code, cmd.agent, cmd.text, exc.message)
        except BridgeError as exc:
            return ActionError("bridge", cmd.agent, cmd.text, str(exc))
        return ActionDone(cmd.text, cmd.agent, cmd.verb, dict(result or {}))

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return [Verdict(text.strip(), why is None, why, None if why is None else _line(why))
                for text, (_, why) in zip(commands, check_all(commands, self.agents, self.world), strict=True)]

    def legal_commands(self, agent: int) -> list[str]:
        """noop, a take of each material the chest holds (as many as the blueprint still lacks, at
        least one), a place of each blueprint block this bot can put now, a dig of each wrong block."""
        name = self.agents[agent]
        out = [f"noop({name})"]
        missing = self.missing()
        for material, n in sorted(self.world.chest.items()):
            if n > 0:
                out.append(f"take({name}, {material}, {max(1, min(64, missing.get(material, 0)))})")
        before = {p: b.material for p, b in self.world.site.items()}
        for block in build_order(self.blueprint):
            facing = f", {block.facing}" if block.facing else ""
            text = f"place({name}, {block.material}, {block.x}, {block.y}, {block.z}{facing})"
            if check_one(self.world, before, parse_build_command(text, self.agents)) is None:
                out.append(text)
        want = self.blueprint.at()
        for pos, placed in sorted(self.world.site.items()):
            b = want.get(pos)
            if b is None or Placed(b.material, b.facing) != placed:
                out.append(f"dig({name}, {pos[0]}, {pos[1]}, {pos[2]})")
        return out

    def missing(self) -> dict[str, int]:
        """Materials the unbuilt part still needs beyond what the bots carry."""
        need: dict[str, int] = {}
        for block in self.blueprint.blocks:
            if self.world.site.get(block.pos) != Placed(block.material, block.facing):
                need[block.material] = need.get(block.material, 0) + 1
        for inv in self.world.inventory.values():
            for material, n in inv.items():
                if material in need:
                    need[material] -= n
        return {m: n for m, n in need.items() if n > 0}

    # ---- what the dispatcher reads
    def state_text(self) -> str:
        chest = ", ".join(f"{m} x{n}" for m, n in sorted(self.world.chest.items()) if n > 0) or "empty"
        lines = [f"Step {self._step} of {self.max_steps}.", f"Materials chest: {chest}."]
        for name in self.agents:
            inv = ", ".join(f"{m} x{n}" for m, n in sorted(self.world.inventory[name].items()) if n > 0) or "nothing"
            lines.append(f"{name} carries: {inv}.")
        want = self.blueprint.at()
        todo = [b for b in build_order(self.blueprint) if self.world.site.get(b.pos) != Placed(b.material, b.facing)]
        wrong = sorted(p for p, placed in self.world.site.items()
                       if p not in want or Placed(want[p].material, want[p].facing) != placed)
        lines.append(f"Built right: {self._correct()} of {len(self.blueprint.blocks)} blocks.")
        lines.append("Still to place: " + ("; ".join(
            f"{b.material}{' facing ' + b.facing if b.facing else ''} at ({b.x}, {b.y}, {b.z})" for b in todo) or "nothing") + ".")
        if wrong:
            lines.append("Wrong blocks to dig out: " + "; ".join(f"{self.world.site[p].material} at {p}" for p in wrong) + ".")
        return "\n".join(lines)

    def prompt_parts(self) -> PromptParts:
        return PromptParts(
            recipes="Blueprint (site coordinates x, y, z; y = 0 rests on the ground):\n" + "\n".join(blueprint_lines(self.blueprint)),
            instructions=(
                "You direct Minecraft bots building the blueprint together from the materials chest. Give each bot one "
                "command per step, one per line:\n"
                "take(Bot, material, count): take up to count (1-64) of a material from the chest\n"
                "place(Bot, material, x, y, z): place a block the bot carries; add a facing for blocks that have one: "
                "place(Bot, oak_stairs, x, y, z, N) (N, E, S or W)\n"
                "dig(Bot, x, y, z): dig out a wrong block\nnoop(Bot): wait\n"
                f"The site is {SITE} by {SITE}; a block needs a block under it (or the ground at y = 0); flowers need dirt or "
                "grass under them and nothing rests on a flower. Bots act at the same time: a block placed this step "
                "cannot hold another up until the next."),
            knowledge="Build bottom layer first; split the blocks between the bots so nobody waits.",
            director="Your foreman says")

    def orders_snapshot(self) -> list[dict[str, Any]]:
        """The blueprint blocks not yet right, bottom layer first: a construction task's open work."""
        left = self.max_steps - self._step
        return [{"id": k, "dish": f"{b.material}{' facing ' + b.facing if b.facing else ''} at ({b.x}, {b.y}, {b.z})",
                 "lifetime": left}
                for k, b in enumerate(build_order(self.blueprint))
                if self.world.site.get(b.pos) != Placed(b.material, b.facing)]

    def _right(self) -> set[Position]:
        return {b.pos for b in self.blueprint.blocks if self.world.site.get(b.pos) == Placed(b.material, b.facing)}

    def _correct(self) -> int:
        return len(self._right())

    @property
    def score(self) -> float:
        """VillagerBench's completion rate C of the current site (the `Scored` capability)."""
        return completion_rate(self.blueprint, self.world.site)

    @property
    def step_index(self) -> int:
        return self._step

    @property
    def done(self) -> bool:
        return self._step >= self.max_steps or self._correct() == len(self.blueprint.blocks)

    @property
    def counts(self) -> Counts:
        """Blueprint blocks as the units of work: completed counts each time one came to stand right,
        failed each time a right one was lost (dug or replaced), active the ones not right now; so
        completed - failed is the blocks right now and C = that over the blueprint's size."""
        return Counts(completed=self._gained, failed=self._lost, active=len(self.blueprint.blocks) - self._correct())

    def episode_header(self) -> dict[str, Any]:
        return {"family": FAMILY, "blueprint": self.blueprint.model_dump(mode="json", by_alias=True),
                "site": {"server": "foreign" if self.site.foreign else "embedded", "origin": list(self.origin),
                         "chest": list(self.chest_pos)}}


def _label(block: Any) -> str:
    return f"{block.material} at ({block.x}, {block.y}, {block.z})"


def _line(outcome: Outcome | None) -> str:
    if isinstance(outcome, ActionDone):
        return f"{outcome.command}: done."
    if outcome is None:
        return ""
    return f"{outcome.command or 'a command'} failed ({outcome.code}): {outcome.detail}"


async def _refused(why: ActionError | None) -> Outcome:
    assert why is not None
    return why
