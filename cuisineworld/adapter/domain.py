"""CuisineWorld as a `Domain`: sessions from a spec, its planner and random policy, its levels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cuisineworld import LevelFileError, load_level
from cuisineworld.adapter.session import CuisineSession
from cuisineworld.levels import level_names, load_level_data
from mindagent.core.domain import TRAINED_PREFIX, DomainBase, ReferenceFigures, SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.policy import Policy

RULE_SETS = ("reference", "fixed")
#: `--levels paper`: the paper's 12 levels, in level-number order (the order sweeps run and print).
PAPER_SWEEP = tuple(f"level_{i}" for i in (0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12))


class CuisineDomain(DomainBase):
    """Example: ``CuisineDomain().make_session(GameSpec("cuisineworld", "level_3", agents=2))``."""

    name = "cuisineworld"
    title = "CuisineWorld"
    default_level = "level_3"
    practice_level = "level_0"
    practice_coach = "planner"
    default_levels = "paper"
    default_agents = 2
    policies = ("planner", "random")
    has_demo = True
    live_world = False
    serve_agents = 4

    def validate(self, spec: GameSpec) -> GameSpec:
        if spec.options:
            raise SpecError(f"{self.name} takes no {', '.join(sorted(spec.options))}")
        if spec.rules not in RULE_SETS:
            raise SpecError(f"{self.name}: --rules must be one of {', '.join(RULE_SETS)}, not {spec.rules!r}")
        if not 1 <= spec.agents <= 8:
            raise SpecError(f"{self.name}: 1 to 8 agents, not {spec.agents}")
        level = spec.level or self.default_level
        try:
            load_level(level, rules=spec.rules, recipes=spec.recipes)
        except (LevelFileError, ValueError, OSError) as exc:
            raise SpecError(str(exc)) from None
        return spec.with_(domain=self.name, level=level)

    def make_session(self, spec: GameSpec) -> CuisineSession:
        level = load_level(spec.level or self.default_level, rules=spec.rules, recipes=spec.recipes)
        return CuisineSession(level, n_agents=spec.agents, tau=spec.tau, seed=spec.seed, max_steps=spec.steps)

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        """`planner`, `random`, or ``policy:DIR/model.zip`` (a policy trained by `mindagent train`)."""
        if name.startswith(TRAINED_PREFIX):
            from cuisineworld.adapter.rl.trained import PolicyLoadError, load_policy

            try:
                return load_policy(name, seed)
            except PolicyLoadError as exc:
                raise SpecError(str(exc)) from None
        from cuisineworld.adapter.planners import make_policy

        return make_policy(name, seed=seed)

    def level_names(self) -> list[str]:
        return level_names()

    def level_difficulty(self) -> dict[str, str]:
        """The planner-measured label of each shipped level (`cuisineworld.adapter.difficulty`)."""
        from cuisineworld.adapter.difficulty import level_choices

        return {c["level"]: c["difficulty"] for c in level_choices() if c["difficulty"]}

    def process_metrics(self, header: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        from cuisineworld.adapter.process import process_metrics

        return process_metrics(header, steps)

    def reference_figures(self) -> ReferenceFigures:
        from cuisineworld.adapter.paper import gpt4_cos
        from cuisineworld.adapter.planners.upper_bound import run_bound

        return ReferenceFigures("GPT-4", gpt4_cos, run_bound)

    def practice_spec(self) -> GameSpec | None:
        """The tutorial's kitchen: one agent on level_0, tau 3 (orders come slowly), at most 60
        steps or the level's own length if shorter."""
        return GameSpec(self.name, self.practice_level, 1, 3.0, 0, "reference", min(60, self._steps_of("level_0")))

    def _steps_of(self, level: str) -> int:
        return load_level(level, rules="reference").max_steps

    def parse_levels(self, text: str) -> list[str]:
        if text == "paper":
            return list(PAPER_SWEEP)
        if text == "all":
            return level_names()
        names = [t.strip() for t in text.split(",") if t.strip()]
        for name in names:
            try:
                load_level_data(name)
            except (LevelFileError, ValueError, OSError) as exc:
                raise SpecError(str(exc) if Path(name).suffix else f"{self.name}: {exc}") from None
        return names


DOMAIN = CuisineDomain()
