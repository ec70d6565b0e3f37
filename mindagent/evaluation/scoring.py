"""Completion rates and the Collaboration Score, in one place for every sweep.

Rate per tau uses the reference denominator (completed + failed + orders still active at the
end), which reproduces the paper's tables; the paper's printed formula leaves the still-active
orders out (`rate_paper`). CoS is the mean rate over the taus of a sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

#: The paper's five task-interval factors (1.0 is the most intense), shared by every domain.
PAPER_TAUS: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)


def collaboration_score(completed: int, failed: int, active: int) -> float | None:
    """Completed over all orders so far (completed + failed + still active); None before any order."""
    total = completed + failed + active
    return round(completed / total, 4) if total else None


@dataclass(frozen=True, slots=True)
class TauResult:
    tau: float
    completed: int
    failed: int
    active: int
    # what it cost (zero for built-in policies); model_errors counts failed calls, never hidden
    steps: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    model_errors: int = 0
    #: Each episode's process metrics (`mindagent.evaluation.metrics.eval_episode`); empty in files from
    #: before eval measured them.
    episodes: tuple[dict[str, Any], ...] = ()
    #: The model names the provider said served this tau's calls (empty for built-in policies).
    served_models: tuple[str, ...] = ()
    #: Generation settings asked for but not sent on some call (a temperature the model refused).
    not_sent: tuple[str, ...] = ()
    #: Answers replayed from the checkpoint of an earlier, failed try (`mindagent.evaluation.checkpoint`):
    #: the tau was continued from its last played step, not played in one go (0: in one go).
    replayed_calls: int = 0

    @property
    def rate(self) -> float:
        total = self.completed + self.failed + self.active
        return self.completed / total if total else 0.0

    @property
    def rate_paper(self) -> float:
        total = self.completed + self.failed
        return self.completed / total if total else 0.0

    def to_dict(self) -> dict[str, object]:
        """Counts, costs and rate (the episodes' metrics are `mindagent.evaluation.sweep`'s to write)."""
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)
                                  if f.name not in ("episodes", "served_models", "not_sent", "replayed_calls")}
        if self.served_models:
            out["served_models"] = list(self.served_models)
        if self.not_sent:
            out["not_sent"] = list(self.not_sent)
        if self.replayed_calls:
            out["replayed_calls"] = self.replayed_calls
        out["rate"] = round(self.rate, 6)
        return out


def cos(taus: Sequence[TauResult]) -> float:
    return sum(t.rate for t in taus) / len(taus) if taus else 0.0


def cos_paper(taus: Sequence[TauResult]) -> float:
    return sum(t.rate_paper for t in taus) / len(taus) if taus else 0.0
