"""Parcels as a MindAgent `Domain`: its one level (a street), its option and its policies."""

from __future__ import annotations

from typing import Any

from mindagent.core.domain import DomainBase, SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.policy import Policy
from parcels.planner import CourierPlanner
from parcels.session import ParcelsSession

#: Episode length when the spec does not shorten it.
STEPS = 40


class ParcelsDomain(DomainBase):
    name = "parcels"
    title = "Parcels"
    default_level = "street"
    default_agents = 2
    policies = ("planner", "random")
    serve_agents = 2
    option_names = ("houses",)
    max_agents = 4

    def validate(self, spec: GameSpec) -> GameSpec:
        spec = super().validate(spec)
        houses = spec.options.get("houses", 3)
        if not isinstance(houses, int) or not 2 <= houses <= 9:
            raise SpecError(f"{self.name}: --houses is 2 to 9, not {houses!r}")
        if spec.rules != "reference" or spec.recipes is not None:
            raise SpecError(f"{self.name} has one rule set and no recipes")
        return spec

    def make_session(self, spec: GameSpec) -> ParcelsSession:
        steps = STEPS if spec.steps is None else min(spec.steps, STEPS)
        return ParcelsSession(int(spec.options.get("houses", 3)), spec.agents, spec.tau, spec.seed, steps)

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        if name == "planner":
            return CourierPlanner()
        return super().make_policy(name, seed)


DOMAIN = ParcelsDomain()
