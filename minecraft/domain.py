"""Minecraft as a `Domain`: sessions (embedded flying-squid or your own server), its planner.

Settings only Minecraft has travel in `GameSpec.options`: ``mc_host``, ``mc_port`` (with no host:
the port the embedded server listens on, so people can join), ``mc_version``, ``cook_ticks``,
``mc_bind`` (the address the embedded world listens on; loopback by default, a warning otherwise;
`serve --host` is the page's address, not the world's), ``mc_clock`` (``lockstep``, the default,
or ``realtime`` for people playing along), ``step_ticks`` (game ticks per step in lockstep) and
``mc_view_port`` (the port of the live 3D view a served room opens; default: a free one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from mindagent.core.domain import DomainBase, DomainSession, ReferenceFigures, SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.policy import Policy, RandomLegalPolicy
from minecraft.families.registry import (
    FAMILIES,
    FamilyPlanner,
    eval_columns,
    expand_levels,
    family_metrics,
    family_named,
    family_of,
    make_family_session,
    validate_family,
)
from minecraft.server_process import MC_VERSION, STEP_TICKS, KitchenConfig, ServerAddress, is_loopback, parse_accounts
from minecraft.session import AGENT_NAMES, MinecraftSession

LEVEL = "minecraft"
OPTIONS = ("mc_host", "mc_port", "mc_version", "cook_ticks", "mc_bind", "mc_clock", "step_ticks", "mc_view_port",
           "mc_accounts", "mc_site")
#: Episode length when `--steps` is not given (the reference release's 60 dispatcher steps).
DEFAULT_STEPS = 60
#: The MindAgent paper's Table 5 (GPT-4, two bots).
PAPER_GPT4_COS = 0.581


class MinecraftDomain(DomainBase):
    """Example: ``MinecraftDomain().make_session(GameSpec("minecraft", agents=2, tau=2.0))``."""

    name = "minecraft"
    title = "Minecraft"
    default_level = LEVEL
    default_agents = 2
    policies = ("planner", "random")
    has_demo = False
    live_world = True
    serve_agents = 2
    option_names = OPTIONS
    max_agents = len(AGENT_NAMES)

    def serving_spec(self, spec: GameSpec) -> GameSpec:
        """A served world listens where people can join: the embedded server on 25565 unless
        another port or a server of your own is given."""
        if spec.options.get("mc_host") is None and spec.options.get("mc_port") is None:
            return spec.with_(options={**spec.options, "mc_port": 25565})
        return spec

    def validate(self, spec: GameSpec) -> GameSpec:
        unknown = sorted(set(spec.options) - set(OPTIONS))
        if unknown:
            raise SpecError(f"{self.name} has no setting {', '.join(unknown)}")
        if spec.level not in (None, LEVEL) and (family := family_of(spec.level)) is not None:
            return validate_family(family, spec, self.name)
        if spec.level not in (None, LEVEL):
            raise SpecError(f"{self.name} has one kitchen ({LEVEL!r}); --level {spec.level} is not one of its levels")
        if spec.options.get("mc_site") is not None:
            raise SpecError(f"{self.name}: --mc-site names a construction site's chest; the kitchen does not use it")
        if spec.rules != "reference":
            raise SpecError(f"{self.name} has one rule set (reference); --rules {spec.rules} does not apply")
        if spec.recipes is not None:
            raise SpecError(f"{self.name} has fixed smelting recipes; --recipes does not apply")
        if not 1 <= spec.agents <= len(AGENT_NAMES):
            raise SpecError(f"{self.name}: 1 to {len(AGENT_NAMES)} bots, not {spec.agents}")
        port = spec.options.get("mc_port")
        if port is not None and not 0 <= int(port) <= 65535:
            raise SpecError(f"{self.name}: --mc-port {port} is not a port")
        view = spec.options.get("mc_view_port")
        if view is not None and not 1 <= int(view) <= 65535:
            raise SpecError(f"{self.name}: --mc-view-port {view} is not a port")
        cook = spec.options.get("cook_ticks")
        if cook is not None and spec.options.get("mc_host") is not None:
            raise SpecError(f"{self.name}: --cook-ticks sets the embedded server; it cannot change a server at --mc-host")
        if spec.options.get("mc_clock") not in (None, "lockstep", "realtime"):
            raise SpecError(f"{self.name}: --mc-clock is lockstep or realtime, not {spec.options['mc_clock']}")
        for key, flag in (("mc_bind", "--mc-bind"), ("mc_clock", "--mc-clock")):
            if spec.options.get(key) is not None and spec.options.get("mc_host") is not None:
                raise SpecError(f"{self.name}: {flag} sets the embedded server; it cannot change a server at --mc-host")
        if spec.options.get("mc_accounts") is not None:
            if spec.options.get("mc_host") is None:
                raise SpecError(f"{self.name}: --mc-accounts signs the bots in to a server at --mc-host; the embedded "
                                "server is offline mode")
            try:
                accounts = parse_accounts(str(spec.options["mc_accounts"]))
            except ValueError as exc:
                raise SpecError(f"{self.name}: {exc}") from None
            if len(accounts) != spec.agents:
                raise SpecError(f"{self.name}: --mc-accounts names {len(accounts)} accounts for {spec.agents} bots")
        return spec.with_(domain=self.name, level=LEVEL)

    def make_session(self, spec: GameSpec) -> DomainSession:
        if (family := family_of(spec.level)) is not None:
            return make_family_session(family, spec)
        o = spec.options
        version = str(o.get("mc_version") or MC_VERSION)
        steps = spec.steps or DEFAULT_STEPS
        view_port = int(o["mc_view_port"]) if o.get("mc_view_port") else None
        if o.get("mc_host"):
            accounts = parse_accounts(str(o["mc_accounts"])) if o.get("mc_accounts") else ()
            address = ServerAddress(str(o["mc_host"]), int(o.get("mc_port") or 25565), version=version,
                                    accounts=accounts)
            paced = KitchenConfig(seed=spec.seed, step_ticks=int(o.get("step_ticks") or STEP_TICKS))
            return MinecraftSession(n_agents=spec.agents, tau=spec.tau, seed=spec.seed, max_steps=steps, address=address,
                                    kitchen=paced, view_port=view_port,
                                    agent_names=[name for name, _ in accounts] or None)
        base = KitchenConfig(seed=spec.seed)
        kitchen = dataclasses.replace(
            base, cook_ticks=int(o.get("cook_ticks") or base.cook_ticks),
            clock="realtime" if o.get("mc_clock") == "realtime" else "lockstep",
            step_ticks=int(o.get("step_ticks") or base.step_ticks))
        return MinecraftSession(n_agents=spec.agents, tau=spec.tau, seed=spec.seed, max_steps=steps, kitchen=kitchen,
                                server_port=int(o.get("mc_port") or 0), version=version,
                                bind=str(o.get("mc_bind") or "127.0.0.1"), view_port=view_port)

    def run_notes(self, spec: GameSpec) -> list[str]:
        """Said before a run: the kitchen clock the results depend on, and a warning when the
        embedded world listens beyond this machine."""
        o = spec.options
        if (family := family_of(spec.level)) is not None:
            where = "embedded server" if not o.get("mc_host") else f"the server at {o['mc_host']}"
            return [f"Minecraft {spec.level}: {where}, {family.note}"]
        if o.get("mc_host"):
            return [f"Minecraft: the server at {o['mc_host']}:{o.get('mc_port') or 25565} has no kitchen clock of "
                    "ours: real time; orders arrive and expire by its own world ticks (from its time updates) and a "
                    f"step lasts at least {int(o.get('step_ticks') or STEP_TICKS)} of them (recorded as clock realtime, "
                    "orders in world ticks)"]
        if o.get("mc_clock") == "realtime":
            notes = ["Minecraft clock: realtime (20 game ticks per wall-clock second; results depend on machine "
                     "speed and model latency)"]
        else:
            notes = [f"Minecraft clock: lockstep ({int(o.get('step_ticks') or STEP_TICKS)} game ticks per step, "
                     "frozen in between; reproducible)"]
        bind = str(o.get("mc_bind") or "127.0.0.1")
        if not is_loopback(bind):
            notes.append(f"warning: the Minecraft world listens on {bind}: offline mode, so anyone who can reach it "
                         "can join under any name (only operators can run /kitchen and /kill)")
        return notes

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        if name == "planner":
            from minecraft.planner import MinecraftPlanner

            return FamilyPlanner(MinecraftPlanner())
        if name == "random":
            return RandomLegalPolicy(seed)
        raise SpecError(f"{self.name} has no built-in {name!r} dispatcher")

    def level_names(self) -> list[str]:
        return [LEVEL]

    def process_metrics(self, header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """No replay offline (a live world), so only what the steps say: orders per bot's deliveries."""
        if (family := family_named(header.get("family"))) is not None:
            return family_metrics(family, header, steps)
        deliveries: dict[str, int] = {}
        for step in steps:
            for verdict in step.get("verdicts") or []:
                command = str(verdict.get("command", ""))
                if verdict.get("ok") and command.startswith("putInChest("):
                    bot = command[len("putInChest("):].split(",")[0].strip()
                    deliveries[bot] = deliveries.get(bot, 0) + 1
        return {"deliveries_per_agent": dict(sorted(deliveries.items()))}

    def eval_columns(self, level: str) -> tuple[tuple[str, str], ...]:
        """A task family's companions of its rate (construction: C, VHR; every family: B, ACR); none
        for the kitchen (`ProcessColumns`)."""
        return eval_columns(level)

    def reference_figures(self) -> ReferenceFigures:
        """The paper's Table 5: GPT-4 dispatching Alex and Steve, CoS 0.581 over the five taus."""
        return ReferenceFigures("GPT-4", lambda level, agents: PAPER_GPT4_COS if (level, agents) == (LEVEL, 2) else None)

    def parse_levels(self, text: str) -> list[str]:
        names = [t.strip() for t in text.split(",") if t.strip()]
        family = [level for n in names for level in expand_levels(n)]
        if family and all(expand_levels(n) for n in names):
            return family
        if any(n not in (LEVEL, "all", "paper") for n in names) or not names:
            bands = ", ".join(f"{f.name}:<{'|'.join(f.bands)}>" for f in FAMILIES)
            raise SpecError(f"{self.name} has one kitchen and the task families: use --levels {LEVEL} or "
                            f"--levels {bands} (or <family>:<band>:<seed>, ...)")
        return [LEVEL]


DOMAIN = MinecraftDomain()
