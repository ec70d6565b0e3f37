"""Shared fixtures. Tests mirror the source tree; real-service tests carry the `slow` marker."""

from __future__ import annotations

import pytest

from cuisineworld import World, load_level


@pytest.fixture
def make_world():
    """A world factory: make_world("level_3", n_agents=2, rules="fixed", tau=1.0, seed=0)."""

    def _make(level: str = "level_3", n_agents: int = 2, rules: str = "reference", **kw) -> World:
        world = World(load_level(level, rules=rules), n_agents=n_agents, **kw)
        world.reset()
        return world

    return _make
