"""Rows of the old trials as the `overcooked` package's own states and actions.

The trials store Python literals (single quotes, ``False``), read with `ast.literal_eval`, never
`eval`. Their states are in the format of 2019: objects keyed by ``"x,y"`` strings and soups as
``[ingredient, count, ticks]``; `OvercookedState.from_dict` still reads such soups, so this module only
turns the object map into the list the package expects and keeps the timestep. Anything else in a row
(a third player, an unknown action, a malformed soup) becomes one `CorruptTrials` line naming the row.
"""

from __future__ import annotations

import ast
from typing import Any

from overcooked_game.bc.errors import CorruptTrials, MissingDependency
from overcooked_game.bc.layouts import ClassicLayout

# what the trials wrote for "interact"; moves are [dx, dy] lists
_INTERACT_LABELS = ("INTERACT", "interact")


def overcooked_module() -> Any:
    """The `overcooked` package, or one line saying how to install it."""
    try:
        import overcooked
    except ImportError as exc:
        raise MissingDependency("the `overcooked` package is needed: pip install overcooked==0.2.1 "
                                "(bash scripts/setup.sh installs it)") from exc
    return overcooked


def make_mdp(layout: ClassicLayout) -> Any:
    """The package's gridworld for a classic layout, with the dynamics the people played (2019's:
    a pot starts cooking by itself when the third onion goes in; today's default needs a key press).

    Building it also sets the package's (global) recipe configuration to that layout's, which the
    old-format soups need to know their cooking time, so build it before parsing its states.
    """
    return overcooked_module().OvercookedGridworld.from_layout_name(layout.package_layout, old_dynamics=True)


def _literal(text: Any, where: str) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise CorruptTrials(f"{where}: not a Python literal: {text[:80]!r}") from exc


def parse_state(text: Any, timestep: int, where: str) -> Any:
    """An `OvercookedState` from a row's state (the old dict format)."""
    raw = _literal(text, where)
    if not isinstance(raw, dict) or not isinstance(raw.get("players"), list) or len(raw["players"]) != 2:
        raise CorruptTrials(f"{where}: a state needs two players: {str(text)[:80]!r}")
    objects = raw.get("objects", {})
    if isinstance(objects, dict):
        objects = [objects[key] for key in sorted(objects)]
    if not isinstance(objects, list):
        raise CorruptTrials(f"{where}: objects are neither a map nor a list")
    try:
        return overcooked_module().OvercookedState.from_dict(
            {"players": raw["players"], "objects": objects, "timestep": timestep})
    except Exception as exc:  # the package asserts, indexes and unpacks as it reads: any failure is this row's
        raise CorruptTrials(f"{where}: the state does not parse ({type(exc).__name__}: {str(exc)[:120]})") from exc


def parse_joint_action(text: Any, where: str) -> tuple[int, int]:
    """Both players' action indices (the package's ``Action.INDEX_TO_ACTION`` order)."""
    raw = _literal(text, where)
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise CorruptTrials(f"{where}: a joint action needs two actions: {str(text)[:80]!r}")
    first, second = (action_index(a, where) for a in raw)
    return first, second


def action_index(raw: Any, where: str = "action") -> int:
    """The index of one action: ``"INTERACT"`` or a ``[dx, dy]`` move (``[0, 0]`` is stay)."""
    action_type = overcooked_module().Action
    action: Any = action_type.INTERACT if raw in _INTERACT_LABELS else None
    if action is None and isinstance(raw, (list, tuple)) and len(raw) == 2:
        action = (raw[0], raw[1])
    try:
        index = action_type.ACTION_TO_INDEX.get(action) if action is not None else None
    except TypeError:  # an unhashable part, e.g. [[1], 0]
        index = None
    if not isinstance(index, int):
        raise CorruptTrials(f"{where}: unknown action {raw!r}")
    return index
