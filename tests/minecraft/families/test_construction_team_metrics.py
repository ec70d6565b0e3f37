"""The shared team figures (balance B, agent contribution rate) every Minecraft family reports."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minecraft.families.team_metrics import agent_contribution, balance, team_figures

counts = st.lists(st.integers(min_value=0, max_value=1000), min_size=2, max_size=8)


def test_even_work_is_balanced_and_one_bot_has_no_team_figure() -> None:
    assert balance([4, 4]) == 1.0 and agent_contribution([4, 4]) == 1.0
    assert balance([7]) is None and agent_contribution([7]) is None


def test_one_bot_doing_everything_contributes_zero() -> None:
    assert agent_contribution([9, 0]) == 0.0
    assert agent_contribution([0, 0, 6, 0]) == pytest.approx(0.0, abs=1e-12)
    assert agent_contribution([0, 0]) is None  # nothing was contributed: no split to judge


def test_two_unequal_bots_always_get_half_a_balance_as_the_formula_is_written() -> None:
    assert balance([1, 2]) == balance([1, 100]) == 0.5


def test_acr_between_the_extremes() -> None:
    # three bots, total 6: σ of (3, 2, 1) is sqrt(2/3); σmax = 6 * sqrt(2) / 3
    assert agent_contribution([3, 2, 1]) == pytest.approx(1 - math.sqrt(2 / 3) / (6 * math.sqrt(2) / 3))


@given(counts)
def test_figures_stay_in_the_unit_interval_and_ignore_bot_order(values: list[int]) -> None:
    for figure in (balance, agent_contribution):
        value = figure(values)
        if value is not None:
            assert 0.0 <= value <= 1.0
            assert figure(list(reversed(values))) == pytest.approx(value)


@given(counts, st.integers(min_value=1, max_value=50))
def test_acr_does_not_depend_on_the_unit_of_contribution(values: list[int], k: int) -> None:
    a, b = agent_contribution(values), agent_contribution([v * k for v in values])
    assert a == b or (a is not None and b is not None and a == pytest.approx(b))


def test_team_figures_name_the_same_bots_and_refuse_bad_counts() -> None:
    got = team_figures({"Alex": 5, "Steve": 3}, {"Alex": 4, "Steve": 2})
    assert got["balance_B"] == 0.5 and got["agent_contribution"] == round(1 - (1 / 3), 4)
    assert got["activity_per_agent"] == {"Alex": 5, "Steve": 3}
    with pytest.raises(ValueError, match="different bots"):
        team_figures({"Alex": 1}, {"Steve": 1})
    with pytest.raises(ValueError, match="not negative"):
        balance([1, -1])
    with pytest.raises(ValueError, match="not negative"):
        agent_contribution([float("nan"), 1.0])
