"""The Overcooked tests need the `overcooked` extra: skipped locally without it, failed under CI."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture(autouse=True)
def _overcooked_installed(require: Callable[[str, str], None]) -> None:
    require("overcooked", "pip install -e '.[overcooked]' (scripts/setup.sh installs it)")
