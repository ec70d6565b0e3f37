"""`mindagent eval` shows a family's own figures (C, VHR) and the team figures (B, ACR) beside the rate."""

from __future__ import annotations

import pytest
from rich.console import Console

from mindagent.cli import evaluate
from mindagent.evaluation.scoring import TauResult
from mindagent.evaluation.sweep import EvalConfig, Results
from minecraft.domain import DOMAIN


def _printed(results: Results, monkeypatch: pytest.MonkeyPatch) -> str:
    console = Console(record=True, width=200, highlight=False)
    monkeypatch.setattr(evaluate, "out", console)
    evaluate.print_tables(results, compare=False)
    return console.export_text()


def _episode(c: float, vhr: float, b: float | None, acr: float | None) -> dict[str, object]:
    return {"agents": [], "process": {"completion_C": c, "view_hit_rate": vhr, "balance_B": b,
                                      "agent_contribution": acr}}


def test_construction_columns_are_the_mean_over_episodes(monkeypatch: pytest.MonkeyPatch) -> None:
    level = "construction:easy:0"
    results = Results(None, EvalConfig(levels=[level], agents=[2], model="planner", taus=[1.0], episodes=2,
                                       domain="minecraft"))
    results.add(level, 2, TauResult(1.0, 12, 0, 2, episodes=(_episode(1.0, 1.0, 0.5, 0.8),
                                                             _episode(0.75, 0.5, 1.0, None))))
    text = _printed(results, monkeypatch)
    header = next(line for line in text.splitlines() if "CoS" in line and "level" in line)
    assert [h for h in ("C ", "VHR", " B ", "ACR") if h in header] == ["C ", "VHR", " B ", "ACR"]
    row = next(line for line in text.splitlines() if level in line)
    # C 0.875, VHR 0.750, B 0.750; ACR only where an episode had one (0.800)
    assert "12/14" in row and "0.875" in row and "0.750" in row and "0.800" in row


def test_the_kitchen_table_has_no_family_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DOMAIN.eval_columns("minecraft") == ()
    results = Results(None, EvalConfig(levels=["minecraft"], agents=[2], model="planner", taus=[1.0], episodes=1,
                                       domain="minecraft"))
    results.add("minecraft", 2, TauResult(1.0, 3, 1, 0))
    text = _printed(results, monkeypatch)
    assert "VHR" not in text and "ACR" not in text and "3/4" in text
