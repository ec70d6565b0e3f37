"""`compare` scales linearly: two seed summaries of 100,000 seeds each compare in under 10 s
(vectorised, capped resampling). Slow tier; prints the time beside the machine's load."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

SEEDS = 100_000
BOUND_S = 10.0


def summary(path: Path, shift: float, rng: random.Random) -> Path:
    values = {str(s): round(min(1.0, max(0.0, rng.gauss(0.6 + shift, 0.1))), 6) for s in range(SEEDS)}
    cells = [{"level": "level_3", "agents": 2, "mean": 0.0, "interval": [0.0, 0.0], "values": values}]
    path.write_text(json.dumps({"schema": "mindagent/seed-sweep@1", "config": {"domain": "cuisineworld"},
                                "seeds": list(range(SEEDS)), "cells": cells}))
    return path


@pytest.mark.slow
def test_100000_seeds_compare_in_under_10_seconds(tmp_path: Path) -> None:
    rng = random.Random(0)
    a, b = summary(tmp_path / "a.json", 0.0, rng), summary(tmp_path / "b.json", 0.01, rng)
    runner = CliRunner()
    runner.invoke(app, ["--help"])  # build the command tree before the clock starts
    started = time.perf_counter()
    result = runner.invoke(app, ["compare", str(a), str(b)])
    took = time.perf_counter() - started
    load = os.getloadavg()
    print(f"\ncompare of {SEEDS} seeds: {took:.2f}s (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{os.cpu_count()} cores)")
    assert result.exit_code == 0, result.output
    assert "1 of 1 cells differ significantly" in result.output
    assert took < BOUND_S
