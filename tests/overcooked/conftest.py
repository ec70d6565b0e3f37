"""The Overcooked tests need the `overcooked` extra (skipped locally without it, failed under CI)."""

from __future__ import annotations

from conftest import require_module

require_module("overcooked", "pip install -e '.[overcooked]' (scripts/setup.sh installs it)")
