"""Fixtures of the Minecraft tests: `fakes` bundles an in-memory fake of the bridge for the
session and planner tests (no Node, no Minecraft, no timing).

The fake answers `observe` with an observation the test edits, records every request, and answers
actions from a table the test fills (a result dict, or an `ActionFailed` to raise). Events are
pushed with `emit`, as the real bridge would send them.
"""

from __future__ import annotations

import asyncio
import copy
from types import SimpleNamespace
from typing import Any

import pytest

from minecraft.protocol import EventLine
from minecraft.transport import ActionFailed


def bot_view(inventory: dict[str, int] | None = None, connected: bool = True) -> dict[str, Any]:
    return {
        "connected": connected,
        "position": [0.5, 5.0, 0.5],
        "health": 20,
        "inventory": {"iron_sword": 1, "iron_pickaxe": 1, "iron_axe": 1, **(inventory or {})},
        "blocks": {"furnace": {"count": 1, "nearest": 3.2}, "chest": {"count": 1, "nearest": 3.2},
                   "coal_ore": {"count": 3, "nearest": 6.0}},
        "entities": [{"name": "cow", "kind": "mob", "distance": 8.4}, {"name": "pig", "kind": "mob", "distance": 8.2}],
        "busy": None,
    }


def observation(**bots: dict[str, Any]) -> dict[str, Any]:
    return {
        "bots": bots,
        "kitchen": {
            "tick": 10,
            "furnaces": [{"pos": [-1, 5, 3], "input": None, "fuel": None, "output": None,
                          "burn_ticks_left": 0, "cook_progress": 0, "cook_total": 40}],
            "chests": [{"pos": [1, 5, 3], "items": {}}],
            "mobs": [{"id": 1, "name": "cow", "pos": [5, 5, 8], "health": 10},
                     {"id": 3, "name": "pig", "pos": [-5, 5, 8], "health": 10},
                     {"id": 5, "name": "sheep", "pos": [5, 5, -7], "health": 8},
                     {"id": 7, "name": "chicken", "pos": [-5, 5, -7], "health": 4}],
            "players": [],
            "blocks": [{"name": "coal_ore", "pos": [6, 5, 0], "present": True},
                       {"name": "oak_log", "pos": [-6, 5, 0], "present": True}],
        },
        "cache": {"furnace": None, "chest": None},
    }


class FakeBridge:
    def __init__(self, obs: dict[str, Any]) -> None:
        self.obs = obs
        self.events: asyncio.Queue[EventLine] = asyncio.Queue()
        self.on_restart: list[Any] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.actions: dict[tuple[str, str], Any] = {}
        self.started = False

    async def start(self) -> None:
        self.started = True

    async def close(self) -> None:
        self.started = False

    def emit(self, **fields: Any) -> None:
        self.events.put_nowait(EventLine.model_validate(fields))

    async def request(self, op: str, args: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        args = args or {}
        self.calls.append((op, args))
        if op == "observe":
            return copy.deepcopy(self.obs)
        if op in ("connect", "reset"):
            return {"connected": args.get("names", [])}
        answer = self.actions.get((op, args.get("bot", "")), {})
        if isinstance(answer, ActionFailed):
            raise answer
        return answer

    def action_calls(self) -> list[tuple[str, dict[str, Any]]]:
        return [(op, a) for op, a in self.calls if op not in ("observe", "connect", "reset", "kitchen")]


@pytest.fixture
def fakes() -> SimpleNamespace:
    """The fake bridge and observation builders (the suite runs with --import-mode=importlib,
    so helpers travel as a fixture rather than an importable module)."""
    return SimpleNamespace(FakeBridge=FakeBridge, bot_view=bot_view, observation=observation)
