"""The Minecraft task families, one entry each, so a new family is one line in `FAMILIES`.

The domain asks this table which family a level belongs to (by its prefix, or a file the
family claims) and hands the rest over: the spec check, the session, the planner, the run
note and the process metrics of a recording. Entries import their family lazily: choosing the
kitchen never imports a family's code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindagent.core.domain import DomainSession, SpecError
from mindagent.core.spec import GameSpec


@dataclass(frozen=True)
class TaskFamily:
    """One family: its level prefix, its bands, and where its parts live (``module:attribute``).

    ``session`` names a callable ``(spec) -> DomainSession``; ``planner`` a class with
    ``reset(session)`` / ``act(session)``; ``metrics`` a callable ``(header, steps) -> dict``;
    ``check`` a callable ``(level) -> None`` raising ValueError with one line; ``check_options`` (if
    any) a callable ``(options) -> None`` doing the same for the server options (``mc_host``, ...);
    ``claims_file`` a callable ``(path) -> bool`` saying whether a level file is this family's.
    """

    name: str
    bands: tuple[str, ...]
    session: str
    planner: str
    metrics: str
    check: str
    note: str
    claims_file: str | None = None
    eval_seeds: int = 5
    max_agents: int = 4
    #: Whether the family also plays on a server of the user's own (`--mc-host`).
    plays_foreign: bool = False
    #: Optional ``module:attribute`` of a callable ``(spec) -> None`` raising ValueError with one
    #: line when the level cannot be played as asked (e.g. fewer bots than the level needs).
    check_spec: str | None = None
    #: The family's own figures `mindagent eval` prints beside the rate (keys of its ``metrics``,
    #: column headers); the team figures of `team_metrics.EVAL_COLUMNS` follow them for every family.
    columns: tuple[tuple[str, str], ...] = ()
    check_options: str | None = None

    def load(self, where: str) -> Any:
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def owns(self, level: str) -> bool:
        if level.startswith(f"{self.name}:"):
            return True
        return self.claims_file is not None and bool(self.load(self.claims_file)(level))


#: Every family the Minecraft domain plays besides its kitchen. Add a family here.
FAMILIES: tuple[TaskFamily, ...] = (
    TaskFamily(  # before construction: its claim takes every .json file, this one *.escape.json
        name="escape", bands=("easy", "medium", "hard"), session="minecraft.families.escape:make_session",
        planner="minecraft.families.escape_planner:EscapePlanner", metrics="minecraft.families.escape_metrics:escape_metrics",
        check="minecraft.families.escape:check_level", claims_file="minecraft.families.escape:is_room_file",
        check_spec="minecraft.families.escape:check_team",
        note="escaped when every bot reaches the exit; C = conditions met / (D + 1), read from the server's room",
        columns=(("completion_C", "C"), ("steps_to_escape", "steps out"))),
    # farm before construction: construction claims every .json file, farm only *.farm.json
    TaskFamily(
        name="farm", bands=("easy", "medium", "hard"),
        session="minecraft.families.farm:make_session",
        planner="minecraft.families.farm_planner:FarmPlanner",
        metrics="minecraft.families.farm_metrics:farm_metrics",
        check="minecraft.families.farm:check_level",
        claims_file="minecraft.families.farm:is_farm_file",
        note="scored by dishes served / dishes ordered, each counted at the serve event on the server",
        columns=(("dishes_served", "served"),)),
    TaskFamily(
        name="construction", bands=("easy", "medium", "hard"),
        session="minecraft.families.construction:make_session",
        planner="minecraft.families.construction_planner:ConstructionPlanner",
        metrics="minecraft.families.recorded:construction_metrics",
        check="minecraft.families.construction:check_level",
        claims_file="minecraft.families.construction:is_blueprint_file",
        check_options="minecraft.families.construction:check_options", plays_foreign=True,
        note="scored by the completion rate C (blocks right / blueprint blocks) read from the server's site",
        columns=(("completion_C", "C"), ("view_hit_rate", "VHR"))),
)


def family_of(level: str | None) -> TaskFamily | None:
    if not level:
        return None
    for family in FAMILIES:
        if family.owns(str(level)):
            return family
    return None


def eval_columns(level: str) -> tuple[tuple[str, str], ...]:
    """What `mindagent eval` shows beside a family level's rate: the family's figures, then B and ACR."""
    from minecraft.families.team_metrics import EVAL_COLUMNS

    family = family_of(level)
    return () if family is None else family.columns + EVAL_COLUMNS


def family_named(name: object) -> TaskFamily | None:
    return next((f for f in FAMILIES if f.name == name), None)


def validate_family(family: TaskFamily, spec: GameSpec, domain: str) -> GameSpec:
    """The spec of a family level, or SpecError naming what does not fit."""
    assert spec.level is not None
    try:
        family.load(family.check)(spec.level)
    except ValueError as exc:
        raise SpecError(f"{domain}: {exc}") from None
    if spec.options.get("mc_host") and not family.plays_foreign:
        raise SpecError(f"{domain}: the {family.name} family plays on the embedded server only (no --mc-host yet)")
    if family.check_options is not None:
        try:
            family.load(family.check_options)(dict(spec.options))
        except ValueError as exc:
            raise SpecError(f"{domain} {family.name}: {exc}") from None
    if not 1 <= spec.agents <= family.max_agents:
        raise SpecError(f"{domain} {family.name}: 1 to {family.max_agents} bots, not {spec.agents}")
    if family.check_spec is not None:
        try:
            family.load(family.check_spec)(spec)
        except ValueError as exc:
            raise SpecError(f"{domain}: {exc}") from None
    return spec.with_(domain=domain)


def make_family_session(family: TaskFamily, spec: GameSpec) -> DomainSession:
    session: DomainSession = family.load(family.session)(spec)
    return session


def family_metrics(family: TaskFamily, header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    metrics: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], dict[str, Any]] = family.load(family.metrics)
    return metrics(header, steps)


def expand_levels(name: str) -> list[str]:
    """``construction:easy`` → the band's seeded tasks; a full family level → itself; else []."""
    parts = name.split(":")
    family = family_named(parts[0])
    if family is not None and len(parts) == 2 and parts[1] in family.bands:
        return [f"{family.name}:{parts[1]}:{s}" for s in range(family.eval_seeds)]
    return [name] if family_of(name) is not None else []


class FamilyPlanner:
    """The domain's ``planner``: the kitchen planner for the kitchen, the family's for a family."""

    name = "planner"

    def __init__(self, kitchen: Any) -> None:
        self.kitchen = kitchen
        self._planners: dict[str, Any] = {}

    def _for(self, session: Any) -> Any:
        family = family_named(getattr(session, "family", None))
        if family is None:
            return self.kitchen
        if family.name not in self._planners:
            self._planners[family.name] = family.load(family.planner)()
        return self._planners[family.name]

    def reset(self, session: Any) -> None:
        self._for(session).reset(session)

    def act(self, session: Any) -> list[str]:
        return list(self._for(session).act(session))
