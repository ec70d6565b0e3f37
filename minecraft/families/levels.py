"""How the Minecraft domain chooses a task family's level, builds its session and its planner.

The kitchen stays the domain's default level (``minecraft``); ``--level construction:easy:3``
(band and seed) or ``--level path/to/blueprint.json`` picks the construction family. Kept here so
the domain module only asks `is_family_level` and hands over.
"""

from __future__ import annotations

from typing import Any

from mindagent.core.domain import DomainSession, SpecError
from mindagent.core.spec import GameSpec
from minecraft.families.construction import AGENT_NAMES, FAMILY, ConstructionSession, is_construction_level, load_level
from minecraft.families.generate import BANDS

#: Episode length of a construction task when `--steps` is not given.
DEFAULT_STEPS = 40
#: What `--levels construction:<band>` expands to: seeds 0 .. EVAL_SEEDS - 1 of that band.
EVAL_SEEDS = 5


def is_family_level(level: str | None) -> bool:
    return is_construction_level(level)


def validate_family(spec: GameSpec, domain: str) -> GameSpec:
    """The spec of a family level, or SpecError naming what does not fit."""
    assert spec.level is not None
    try:
        load_level(spec.level)
    except ValueError as exc:
        raise SpecError(f"{domain}: {exc}") from None
    if spec.options.get("mc_host"):
        raise SpecError(f"{domain}: the {FAMILY} family builds on the embedded server only (no --mc-host yet)")
    if not 1 <= spec.agents <= len(AGENT_NAMES):
        raise SpecError(f"{domain} {FAMILY}: 1 to {len(AGENT_NAMES)} bots, not {spec.agents}")
    return spec.with_(domain=domain)


def make_family_session(spec: GameSpec) -> DomainSession:
    assert spec.level is not None
    return ConstructionSession(load_level(spec.level), n_agents=spec.agents, max_steps=spec.steps or DEFAULT_STEPS,
                               seed=spec.seed)


def expand_levels(name: str) -> list[str]:
    """``construction:easy`` → five seeded tasks of the band; a full level name → itself."""
    parts = name.split(":")
    if parts[0] == FAMILY and len(parts) == 2 and parts[1] in BANDS:
        return [f"{FAMILY}:{parts[1]}:{s}" for s in range(EVAL_SEEDS)]
    return [name] if is_family_level(name) else []


class FamilyPlanner:
    """The domain's ``planner``: the kitchen planner for the kitchen, the family's for a family."""

    name = "planner"

    def __init__(self, kitchen: Any) -> None:
        self.kitchen = kitchen

    def _for(self, session: Any) -> Any:
        if isinstance(session, ConstructionSession):
            from minecraft.families.construction_planner import ConstructionPlanner

            return ConstructionPlanner()
        return self.kitchen

    def reset(self, session: Any) -> None:
        self._for(session).reset(session)

    def act(self, session: Any) -> list[str]:
        return list(self._for(session).act(session))
