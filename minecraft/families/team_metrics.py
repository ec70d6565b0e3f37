"""VillagerBench's team figures, shared by every Minecraft task family.

A family counts, per bot, how busy it was and what it contributed (blocks placed, items made,
conditions met: the family decides) and hands the counts here, so balance and contribution mean
the same thing in every family's table.

- **Balance B** (VillagerBench appendix A, eqs. 1-2): ``1 - σ(t')`` with ``t'`` each bot's activity
  min-max normalised. As the formula is written, two bots with unequal activity always get 0.5
  (their ``t'`` is 0 and 1) and equal activity gives 1; one bot has no balance (None, as their
  Table 6 leaves it blank).
- **Agent contribution rate ACR** (their appendix A.5, eqs. 8-9): ``1 - (σ - σmin) / (σmax - σmin)``
  with σ the population deviation of each bot's contribution. The paper does not give σmin and
  σmax; ours are the extremes for the same total: σmin = 0 (all contribute equally) and σmax the
  deviation when one bot contributes everything, ``total * sqrt(n - 1) / n``. So ACR is 1 for an
  even split, 0 when one bot did it all, and None for one bot or when nobody contributed.

Example::

    team_figures({"Alex": 5, "Steve": 3}, {"Alex": 4, "Steve": 2})
    # {'balance_B': 0.5, 'agent_contribution': 0.6667, 'activity_per_agent': {...}, ...}
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

#: Decimal places the figures are rounded to in results and recordings.
DIGITS = 4


def balance(activity: Sequence[float]) -> float | None:
    """VillagerBench's balance B of per-bot activity; None for fewer than two bots."""
    if len(activity) < 2:
        return None
    if any(a < 0 or not math.isfinite(a) for a in activity):
        raise ValueError(f"activity must be finite and not negative, not {list(activity)}")
    low, high = min(activity), max(activity)
    if high == low:
        return 1.0
    scaled = [(a - low) / (high - low) for a in activity]
    return 1.0 - statistics.pstdev(scaled)


def agent_contribution(contributions: Sequence[float]) -> float | None:
    """VillagerBench's agent contribution rate (ACR) of per-bot contributions, scaled between an
    even split (1) and one bot doing everything (0); None for one bot or nothing contributed."""
    n = len(contributions)
    if any(c < 0 or not math.isfinite(c) for c in contributions):
        raise ValueError(f"contributions must be finite and not negative, not {list(contributions)}")
    total = sum(contributions)
    if n < 2 or total == 0:
        return None
    sigma_max = total * math.sqrt(n - 1) / n
    sigma = statistics.pstdev(contributions)
    return min(1.0, max(0.0, 1.0 - sigma / sigma_max))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def team_figures(activity: Mapping[str, int], contributions: Mapping[str, int]) -> dict[str, Any]:
    """B and ACR for a team, with the per-bot counts they came from (bots in the order given).

    `activity`: what each bot did (its confirmed actions); `contributions`: what each bot added
    to the task's result (a family's own unit). Both name the same bots.
    """
    if list(activity) != list(contributions):
        raise ValueError(f"activity and contributions name different bots: {list(activity)} / {list(contributions)}")
    return {"balance_B": _rounded(balance(list(activity.values()))),
            "agent_contribution": _rounded(agent_contribution(list(contributions.values()))),
            "activity_per_agent": dict(activity), "contribution_per_agent": dict(contributions)}


#: The team figures `mindagent eval` prints beside a family's own score (process-metric key, header).
EVAL_COLUMNS: tuple[tuple[str, str], ...] = (("balance_B", "B"), ("agent_contribution", "ACR"))
