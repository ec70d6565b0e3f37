"""A behaviour-cloning human proxy for Overcooked-AI: the partner that plays like the people of
Carroll et al. (2019), trained on their human-human trials.

- `overcooked_game.bc.data`: the trials, fetched from PyPI into a checked cache, as package states;
- `overcooked_game.bc.features`: what the network sees of a state from one chef's side;
- `overcooked_game.bc.train`: ``train(layout, out_dir, epochs, seed)`` writes ``policy.pt`` + ``meta.json``;
- `overcooked_game.bc.policy`: ``BCPolicy.load(dir).act(state, player_index, rng)``, a partner chef;
- `overcooked_game.bc.command`: the ``train-bc`` command (``python -m overcooked_game.bc train-bc``).

The names below are imported on first use, so importing this package costs nothing (no torch,
pandas or `overcooked` until a proxy is trained or loaded).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BCPolicy": "overcooked_game.bc.policy",
    "train": "overcooked_game.bc.train",
    "ensure_trials": "overcooked_game.bc.data",
    "load_transitions": "overcooked_game.bc.data",
    "ACTION_NAMES": "overcooked_game.bc.model",
    "BCError": "overcooked_game.bc.errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
