"""The MindAgent paper's published numbers, as data (reference section 8).

Kept apart from the code that reproduces them so a comparison table, a plot or a test can read
the target without re-typing it. CoS values use the reference denominator (completed + failed +
still active), which is what reproduces the paper's per-tau rates.

Example::

    from cuisineworld.adapter.paper import GPT4_COS, gpt4_cos
    GPT4_COS[2]["level_3"]       # 0.764 (by agents, then level)
    gpt4_cos("level_3", 2)       # the same, None for a cell the paper did not report
"""

from __future__ import annotations

PAPER_LEVELS: tuple[str, ...] = (
    "level_0", "level_1", "level_7", "level_2", "level_4", "level_8",
    "level_3", "level_9", "level_10", "level_5", "level_11", "level_12",
)
"""The 12 levels of the paper, in the column order of its table (by difficulty class)."""

DIFFICULTY: dict[str, str] = {
    "level_0": "very simple", "level_1": "very simple", "level_7": "very simple",
    "level_2": "simple", "level_4": "simple", "level_8": "simple",
    "level_3": "intermediate", "level_9": "intermediate", "level_10": "intermediate",
    "level_5": "advanced", "level_11": "advanced", "level_12": "advanced",
}

_GPT4_ROWS: dict[int, tuple[float, ...]] = {
    2: (0.727, 0.706, 0.682, 0.687, 0.664, 0.504, 0.764, 0.725, 0.701, 0.661, 0.692, 0.559),
    3: (0.781, 0.778, 0.780, 0.528, 0.600, 0.455, 0.822, 0.771, 0.815, 0.689, 0.733, 0.570),
    4: (0.771, 0.761, 0.761, 0.505, 0.592, 0.626, 0.848, 0.744, 0.790, 0.692, 0.675, 0.534),
}
GPT4_AVERAGE: dict[int, float] = {2: 0.673, 3: 0.694, 4: 0.692}

GPT4_COS: dict[int, dict[str, float]] = {
    agents: dict(zip(PAPER_LEVELS, row, strict=True)) for agents, row in _GPT4_ROWS.items()
}
"""GPT-4 Collaboration Score by number of agents, then level."""


def gpt4_cos(level: str, agents: int) -> float | None:
    """The paper's GPT-4 CoS for one cell, or None when the paper has no such cell."""
    return GPT4_COS.get(agents, {}).get(level)

LEVEL3_RATES_2_AGENTS: tuple[tuple[int, int], ...] = ((10, 26), (10, 17), (11, 13), (12, 12), (11, 11))
"""Level 3, 2 agents, GPT-4: completed / (completed + failed + active) per tau; mean 0.764."""

ABLATIONS_LEVEL3_2_AGENTS: dict[str, float] = {
    "full": 0.764,
    "two-step demo": 0.710,
    "without inference knowledge": 0.714,
    "without feedback": 0.311,
}

OTHER_MODELS_LEVEL3: dict[str, dict[int, float]] = {
    "Claude-2": {2: 0.3125, 3: 0.372, 4: 0.473},
    "LLaMA-2-70B": {2: 0.0, 3: 0.0, 4: 0.0},
    "GPT-3.5": {2: 0.0, 3: 0.0, 4: 0.0},
}

MASKED_PPO_2_AGENTS: dict[str, float] = {"level_1": 0.451, "level_4": 0.598}
"""Table 12: the paper's centralized masked PPO with dense rewards, 2 agents (the tau is not stated)."""

GPT4_TAU4_2_AGENTS: dict[str, float] = {"level_1": 0.947, "level_4": 0.917}
"""Table 12's comparison row: GPT-4's completion rate at the fourth task interval (tau 2.5), 2 agents."""

MINECRAFT_GPT4_2_AGENTS: dict[str, object] = {
    "rates": (0.195, 0.381, 0.704, 0.792, 0.833),
    "cos": 0.581,
}

PAPER_AGENT_COUNTS: tuple[int, ...] = (2, 3, 4)
