"""Overcooked as a `Domain`: sessions on a shipped or user layout, its planner, the paper's figures.

`--level` is a layout name (`overcooked levels`-style list in `level_names`) or a `.layout` file;
the episode is 400 timesteps (`--steps` may shorten it). Two chefs, always: every layout has two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.resources.abc import Traversable
from typing import Any

from mindagent.core.domain import DomainBase, ReferenceFigures, SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.policy import Policy, RandomLegalPolicy
from overcooked_game.engine import HORIZON
from overcooked_game.layouts import CLASSIC, LayoutError, load_layout
from overcooked_game.layouts import level_names as shipped_levels
from overcooked_game.paper import TABLE1, as_rate, published
from overcooked_game.session import OvercookedSession

#: Seconds per timestep in a real-time room (`mindagent serve`'s default for this game).
REAL_TIME_TICK_S = 0.2
#: The longest episode a spec may ask for (ten classic horizons).
MAX_HORIZON = 10 * HORIZON


class OvercookedDomain(DomainBase):
    """Example: ``OvercookedDomain().make_session(GameSpec("overcooked", "forced_coordination"))``."""

    name = "overcooked"
    title = "Overcooked-AI"
    default_level = "cramped_room"
    default_agents = 2
    policies = ("planner", "random")
    has_demo = False
    live_world = False
    serve_agents = 2
    practice_level: str | None = None
    practice_coach = "planner"
    #: `eval` sweeps LLM-Coordination's five classic layouts unless told otherwise
    default_levels = "classic"
    policy_prefixes = ("bc:",)
    #: LLM-Coordination's protocol: two chefs, no deadlines to scale, the 400-timestep horizon
    eval_agents = "2"
    eval_taus = "1.0"
    eval_steps = HORIZON

    def validate(self, spec: GameSpec) -> GameSpec:
        if spec.options:
            raise SpecError(f"{self.name} takes no {', '.join(sorted(spec.options))}")
        if spec.rules != "reference":
            raise SpecError(f"{self.name} has one rule set (the classic Overcooked-AI dynamics); --rules {spec.rules} "
                            "does not apply")
        if spec.recipes is not None:
            raise SpecError(f"{self.name} cooks onion soup only; --recipes does not apply")
        if spec.agents != 2:
            raise SpecError(f"{self.name}: every layout has two chefs; --agents {spec.agents} is not 2")
        if spec.tau != 1.0:
            raise SpecError(f"{self.name} has no order deadlines to scale; --tau must be 1.0 (eval: --taus 1.0)")
        if spec.steps is not None and not 1 <= spec.steps <= MAX_HORIZON:
            raise SpecError(f"{self.name}: an episode is 1 to {MAX_HORIZON} timesteps, not {spec.steps}")
        level = spec.level or self.default_level
        try:
            load_layout(level)
        except LayoutError as exc:
            raise SpecError(str(exc)) from None
        return spec.with_(domain=self.name, level=level)

    def make_session(self, spec: GameSpec) -> OvercookedSession:
        layout = load_layout(spec.level or self.default_level)
        return OvercookedSession(layout, n_agents=spec.agents, horizon=spec.steps or HORIZON)

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        """`planner`, `random`, or ``bc:DIR``: a behaviour-cloning human proxy trained by
        ``mindagent train --domain overcooked --algo bc``."""
        if name.startswith("bc:"):
            from overcooked_game.bc.errors import BCError
            from overcooked_game.bc.proxy import load_proxy

            try:
                return load_proxy(name, seed)
            except BCError as exc:
                raise SpecError(str(exc)) from None
        if name == "planner":
            from overcooked_game.planner import OvercookedPlanner

            return OvercookedPlanner(seed)
        if name == "random":
            return RandomLegalPolicy(seed)
        raise SpecError(f"{self.name} has no built-in {name!r} dispatcher; choose one of {', '.join(self.policies)}")

    def level_names(self) -> list[str]:
        return shipped_levels()

    def real_time_pace(self) -> tuple[float, float]:
        """Five timesteps a second, with or without a person (400 timesteps in 80 s), the pace of
        a real-time kitchen; one step is one timestep while a person plays (declares `RealTimePace`)."""
        return (REAL_TIME_TICK_S, REAL_TIME_TICK_S)

    def page_assets(self) -> Mapping[str, Traversable]:
        """The `overcooked` package's sprite sheets, served to the page from where it is installed
        (declares `PageAssets`)."""
        from overcooked_game.page import assets

        return assets()

    def reference_figures(self) -> ReferenceFigures:
        """LLM-Coordination's Table 1 GPT-4 row, converted from reward to the rate eval prints
        (`paper.as_rate`: 220, i.e. 11 soups, shows as 11/12 = 0.917); the rewards themselves, with
        intervals and every other row, are printed by ``benchmarks/overcooked_table.py``."""

        def figure(level: str, agents: int) -> float | None:
            reward = published(TABLE1, "LLM-Co GPT-4", level) if agents == 2 else None
            return None if reward is None else as_rate(reward)

        return ReferenceFigures("LLM-Co GPT-4 as n/(n+1)", figure)

    def process_metrics(self, header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Soups delivered per chef and the timesteps the episode used, from the step records."""
        per_chef: dict[str, int] = {}
        for step in steps:
            for soup in step.get("completed") or []:
                chef = str(soup).rsplit("(", 1)[-1].rstrip(")")
                per_chef[chef] = per_chef.get(chef, 0) + 1
        return {"soups_per_chef": dict(sorted(per_chef.items()))}

    def parse_levels(self, text: str) -> list[str]:
        if text in ("paper", "classic"):
            return list(CLASSIC)
        if text == "all":
            return shipped_levels()
        names = [t.strip() for t in text.split(",") if t.strip()]
        if not names:
            raise SpecError(f"{self.name}: --levels names no layout")
        for name in names:
            try:
                load_layout(name)
            except LayoutError as exc:
                raise SpecError(str(exc)) from None
        return names


DOMAIN = OvercookedDomain()
