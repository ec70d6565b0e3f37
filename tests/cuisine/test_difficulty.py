"""The lobby's difficulty labels are measurements: the shipped figures cover every shipped level,
each label is the band its figure falls in, and re-measuring a level gives the shipped figure."""

from __future__ import annotations

import pytest

from cuisineworld.adapter.difficulty import label, level_choices, measure, measured
from cuisineworld.adapter.domain import CuisineDomain
from cuisineworld.adapter.levelgen import BANDS, HANDOFF_BANDS
from cuisineworld.levels.loader import level_names
from mindagent.core.capabilities import LevelDifficulty


def test_every_shipped_level_has_a_measured_label_in_its_band() -> None:
    figures = measured()
    assert set(figures) == set(level_names())
    for name, f in figures.items():
        assert f["difficulty"] == label(f["planner_cos"], f["handoffs"]), name
        low, high = (HANDOFF_BANDS if f["handoffs"] else BANDS)[f["difficulty"]]
        assert f["planner_cos"] < high or high >= 1.0, name
        assert f["planner_cos"] >= low or f["difficulty"] == "hard", name


@pytest.mark.parametrize("level", ["level_0", "relay_sashimi"])
def test_a_level_measured_again_gives_the_shipped_figure(level: str) -> None:
    assert measure(level) == measured()[level]


def test_the_kitchen_declares_its_levels_difficulty() -> None:
    domain = CuisineDomain()
    assert isinstance(domain, LevelDifficulty)
    labels = domain.level_difficulty()
    assert labels["level_2"] == "easy" and labels["level_12"] == "hard"
    assert [c["level"] for c in level_choices()] == level_names()


def test_a_figure_below_every_band_is_hard() -> None:
    assert label(0.05, handoffs=False) == "hard" and label(1.0, handoffs=True) == "easy"
