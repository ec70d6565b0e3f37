"""Fixtures of the behaviour-cloning tests: the cached human trials and one tiny trained proxy.

The trials come from PyPI on first use (`ensure_trials`); without a network the tests that need them
skip with that reason, except under CI (CI=true), where setup fills the cache and a skip would hide a
broken install step.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import require_module

# a slice that trains in seconds and still beats always guessing "stay" on held-out rows
TINY_LAYOUT, TINY_LIMIT, TINY_EPOCHS, TINY_SEED = "coordination_ring", 2500, 8, 3


def _need_stack() -> None:
    require_module("overcooked", "pip install overcooked==0.2.1")
    require_module("pandas", "pip install pandas (bash scripts/setup.sh --dev)")
    require_module("torch", "pip install torch (the rl extra)")


@pytest.fixture(scope="session")
def trials() -> dict[str, Path]:
    """Paths of both cached splits (fetched if needed; skipped only when offline outside CI)."""
    _need_stack()
    from overcooked_game.bc.data import ensure_trials
    from overcooked_game.bc.errors import TrialsUnavailable

    try:
        return ensure_trials()
    except TrialsUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the human trials cache is empty under CI: {exc}")
        pytest.skip(f"no network to fetch the human trials: {exc}")


@pytest.fixture(scope="session")
def tiny_policy(trials: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    """A proxy trained on a slice of one layout (the result of `train`, files in a temp folder)."""
    from overcooked_game.bc.train import train

    out = tmp_path_factory.mktemp("bc") / TINY_LAYOUT
    return train(TINY_LAYOUT, out, epochs=TINY_EPOCHS, seed=TINY_SEED, limit=TINY_LIMIT)
