"""LLM-Coordination's published Overcooked scores (Agashe et al., Tables 1 and 2): mean sparse
reward over 400 timesteps, in the order of `layouts.CLASSIC`. Our rows are measured, never here."""

from __future__ import annotations

LAYOUT_ORDER = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit")

#: Table 1, self-play (two copies of the same agent).
TABLE1: dict[str, tuple[float, ...]] = {
    "PPO_SP": (198.8, 167.2, 190.8, 151.9, 122.3),
    "PBT": (216.9, 190.1, 173.8, 169.5, 140.1),
    "LLM-Co GPT-4": (220.0, 280.0, 180.0, 200.0, 160.0),
}
#: Table 2, with a behaviour-cloning human proxy as partner, then with the positions swapped.
TABLE2: dict[str, tuple[float, ...]] = {
    "BC": (103.5, 136.5, 59.0, 20.5, 38.0),
    "PPO_BC": (156.4, 72.6, 126.4, 58.9, 69.5),
    "LLM-Co GPT-4": (160.0, 180.0, 160.0, 120.0, 140.0),
    "BC (swapped)": (110.0, 137.5, 70.0, 31.0, 44.0),
    "PPO_BC (swapped)": (163.9, 178.8, 129.8, 76.9, 57.6),
    "LLM-Co GPT-4 (swapped)": (180.0, 140.0, 160.0, 80.0, 120.0),
}
REWARD_PER_SOUP = 20


def published(table: dict[str, tuple[float, ...]], row: str, layout: str) -> float | None:
    """A row's figure for a layout, or None for a layout the paper did not run."""
    if layout not in LAYOUT_ORDER or row not in table:
        return None
    return table[row][LAYOUT_ORDER.index(layout)]


def as_rate(reward: float) -> float:
    """A reward per 400-timestep episode in the units `mindagent eval` prints: our sessions keep one
    standing order open, so an episode with n soups counts n completed and 1 active, a rate of
    n / (n + 1). A pair scoring `reward` every episode shows exactly this rate (monotone in the
    reward, so above/below verdicts keep their meaning): LLM-Co's 220 (11 soups) is 11/12."""
    soups = reward / REWARD_PER_SOUP
    return soups / (soups + 1)
