"""Training callbacks (stable-baselines3): the completion-rate curve, a progress hook, the curriculum's end.

Kept apart from `train` because they subclass SB3's `BaseCallback`, which needs torch: this
module is imported only inside a training run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from stable_baselines3.common.callbacks import BaseCallback

if TYPE_CHECKING:
    from cuisineworld.adapter.rl.curriculum import DishCurriculum


class CompletionLogger(BaseCallback):
    """Logs ``rollout/completion`` (completed / all orders) and ``rollout/completed`` per finished episode.

    The reward is shaped, so its mean says little about dishes; these are the paper's measure."""

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            counts = info.get("episode_counts")
            if counts:
                total = counts["completed"] + counts["failed"] + counts["active"]
                self.logger.record_mean("rollout/completion", counts["completed"] / total if total else 0.0)
                self.logger.record_mean("rollout/completed", float(counts["completed"]))
        return True


class ProgressHook(BaseCallback):
    """Calls `report(steps so far)` after every vector step (a rich bar, a test's probe)."""

    def __init__(self, report: Callable[[int], None]) -> None:
        super().__init__()
        self.report = report

    def _on_step(self) -> bool:
        self.report(self.num_timesteps)
        return True


class CurriculumSwitch(BaseCallback):
    """Feeds a `curriculum.DishCurriculum` the ended episodes and ends it once the run has taken `until` steps.

    The switch is checked after every vector step, so the level's own orders start within one
    step of the budget share whatever the rollout length. Logs ``rollout/curriculum`` (1 while it
    runs) and, while it runs, each dish's draw weight as ``curriculum/DISH``."""

    def __init__(self, curriculum: DishCurriculum, until: int) -> None:
        super().__init__()
        self.curriculum = curriculum
        self.until = until

    def _on_step(self) -> bool:
        plan = self.curriculum
        for i, info in enumerate(self.locals.get("infos", ())):
            counts = info.get("episode_counts")
            if counts:
                plan.finished(i, counts["completed"], counts["failed"], counts["active"])
        if plan.active and self.num_timesteps >= self.until:
            plan.stop()
        self.logger.record("rollout/curriculum", float(plan.active))
        if plan.active:
            for name, weight in zip(plan.dishes, plan.weights().tolist(), strict=True):
                self.logger.record(f"curriculum/{name}", weight)
        return True
