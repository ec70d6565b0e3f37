"""Training callbacks (stable-baselines3): the completion-rate curve and a progress hook.

Kept apart from `train` because they subclass SB3's `BaseCallback`, which needs torch: this
module is imported only inside a training run.
"""

from __future__ import annotations

from collections.abc import Callable

from stable_baselines3.common.callbacks import BaseCallback


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
