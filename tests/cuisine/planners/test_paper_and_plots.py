"""The paper's numbers as data, and the efficiency plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuisineworld.adapter.paper import (
    GPT4_AVERAGE,
    GPT4_COS,
    LEVEL3_RATES_2_AGENTS,
    PAPER_LEVELS,
    gpt4_cos,
)
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.adapter.planners.evaluate import run_cell
from mindagent.evaluation.plots import plot_results


def test_gpt4_table_is_complete_and_its_averages_agree():
    assert sum(len(row) for row in GPT4_COS.values()) == 36
    assert gpt4_cos("level_3", 2) == 0.764 and gpt4_cos("level_6", 2) is None
    for agents, average in GPT4_AVERAGE.items():
        row = [GPT4_COS[agents][level] for level in PAPER_LEVELS]
        assert sum(row) / len(row) == pytest.approx(average, abs=0.002)


def test_level3_rates_reproduce_its_cos():
    rates = [c / t for c, t in LEVEL3_RATES_2_AGENTS]
    assert sum(rates) / len(rates) == pytest.approx(GPT4_COS[2]["level_3"], abs=0.001)


def test_plot_writes_a_png(tmp_path: Path):
    cells = [run_cell(CuisinePlanner(), level, agents, taus=(1.0, 2.0, 3.0))
             for level in ("level_0", "level_7") for agents in (2, 3)]
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"config": {"model": "planner", "rules": "reference"},
                                   "cells": [c.to_dict() for c in cells]}))
    out = plot_results(results, tmp_path / "plots" / "efficiency.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_results_use_the_evaluation_format():
    cell = run_cell(CuisinePlanner(), "level_0", 2, taus=(3.0,)).to_dict()
    assert set(cell) >= {"level", "agents", "cos", "cos_paper", "taus"}
    assert set(cell["taus"][0]) >= {"tau", "completed", "failed", "active", "rate"}  # type: ignore[index]


def test_plot_refuses_an_empty_file(tmp_path: Path):
    results = tmp_path / "empty.json"
    results.write_text(json.dumps({"config": {}, "cells": []}))
    with pytest.raises(ValueError):
        plot_results(results, tmp_path / "x.png")
