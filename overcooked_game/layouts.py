"""Layouts: the package's shipped kitchens by name, or a user's `.layout` file, read safely.

A `.layout` file is a Python dict literal (the package's own format). The package reads it with
`eval`; we never do: `ast.literal_eval` takes the same files and refuses code. Every problem with
a layout becomes one `LayoutError` line naming the file and what is wrong.

Cooking follows the classic dynamics of Carroll et al. 2019, which LLM-Coordination and its
baselines were measured on: a pot starts cooking by itself at three onions and takes 20 timesteps.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: LLM-Coordination's five layouts, in its tables' order. ``counter_circuit`` is the onion-only
#: variant the paper used (the package ships it as ``counter_circuit_o_1order``; the package's own
#: ``counter_circuit`` has tomato orders).
CLASSIC: dict[str, str] = {
    "cramped_room": "cramped_room",
    "asymmetric_advantages": "asymmetric_advantages",
    "coordination_ring": "coordination_ring",
    "forced_coordination": "forced_coordination",
    "counter_circuit": "counter_circuit_o_1order",
}
LAYOUT_SUFFIX = ".layout"
#: A layout file bigger than this is not a kitchen (the largest shipped one is under 1 KB).
MAX_LAYOUT_BYTES = 64 * 1024
MAX_SIDE = 32
_CELLS = set("XOPDS12 ")
_KEYS = {"grid", "start_bonus_orders", "start_all_orders", "rew_shaping_params"}
_ONION_SOUP = {"ingredients": ["onion", "onion", "onion"]}


class LayoutError(ValueError):
    """A layout that does not exist or cannot be played here; the message is one line."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A kitchen grid (rows of the package's letters, chefs marked 1 and 2) and where it came from."""

    name: str
    rows: tuple[str, ...]
    source: str

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)


def layouts_dir() -> Path:
    from overcooked.static import LAYOUTS_DIR

    return Path(LAYOUTS_DIR)


def is_layout_path(level: str) -> bool:
    """A level given as a file (by suffix or a path separator) rather than a shipped name."""
    return level.endswith(LAYOUT_SUFFIX) or "/" in level or "\\" in level


def load_layout(level: str) -> Layout:
    """The layout a `--level` names: a shipped name (see `level_names`) or a `.layout` file path."""
    if is_layout_path(level):
        path = Path(level)
        return _parse(_read(path), path.stem, str(path))
    if level not in _shipped():
        raise LayoutError(f"overcooked has no layout {level!r}; choose one of {', '.join(level_names()[:8])}, ... "
                          f"(--levels all lists them) or give a {LAYOUT_SUFFIX} file")
    return _shipped()[level]


def level_names() -> list[str]:
    """The five classic layouts first (LLM-Coordination's order), then every other shipped
    two-chef onion-soup layout, sorted by name."""
    shipped = _shipped()
    return [*CLASSIC, *sorted(n for n in shipped if n not in CLASSIC)]


@functools.cache
def _shipped() -> dict[str, Layout]:
    """Every package layout this domain can play, by our name (read once per process)."""
    aliases = {file: name for name, file in CLASSIC.items()}
    found: dict[str, Layout] = {}
    for path in sorted(layouts_dir().glob(f"*{LAYOUT_SUFFIX}")):
        name = aliases.get(path.stem, path.stem)
        if path.stem in CLASSIC and path.stem != CLASSIC[path.stem]:
            continue  # the package's tomato counter_circuit: ours is the onion-only one
        try:
            found[name] = _parse(_read(path), name, f"overcooked:{path.name}")
        except LayoutError:
            continue  # tomatoes, more than two chefs, bonus orders: not this domain's game
    return found


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_LAYOUT_BYTES + 1)
    except OSError as exc:
        raise LayoutError(f"{path}: cannot read the layout file ({exc.strerror or exc})") from None
    if len(data) > MAX_LAYOUT_BYTES:
        raise LayoutError(f"{path}: a layout file is at most {MAX_LAYOUT_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LayoutError(f"{path}: a layout file is UTF-8 text") from None


def _parse(text: str, name: str, source: str) -> Layout:
    try:
        data: Any = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as exc:
        raise LayoutError(f"{source}: not a layout (a dict literal with a 'grid'): {type(exc).__name__}") from None
    if not isinstance(data, dict) or not isinstance(data.get("grid"), str):
        raise LayoutError(f"{source}: not a layout: expected a dict with a 'grid' string")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise LayoutError(f"{source}: settings this domain does not play: {', '.join(unknown)}")
    if data.get("start_bonus_orders"):
        raise LayoutError(f"{source}: bonus orders are not played here (onion soups only)")
    orders = data.get("start_all_orders")
    if orders not in (None, [], [_ONION_SOUP]):
        raise LayoutError(f"{source}: only three-onion soups are played here; start_all_orders must be "
                          f"[{_ONION_SOUP}]")
    rows = tuple(line.strip() for line in data["grid"].strip("\n").split("\n"))
    _check_grid(rows, source)
    return Layout(name, rows, source)


def _check_grid(rows: tuple[str, ...], source: str) -> None:
    """What the package would assert (and what our commands need), as one readable line."""
    if not rows or not rows[0]:
        raise LayoutError(f"{source}: the grid is empty")
    if len(rows) > MAX_SIDE or any(len(r) > MAX_SIDE for r in rows):
        raise LayoutError(f"{source}: the grid is at most {MAX_SIDE}x{MAX_SIDE}")
    if any(len(r) != len(rows[0]) for r in rows):
        raise LayoutError(f"{source}: the grid rows have different lengths")
    cells = "".join(rows)
    bad = sorted(set(cells) - _CELLS)
    if bad:
        hint = " (tomatoes are not played here)" if "T" in bad else ""
        raise LayoutError(f"{source}: unknown grid letters {''.join(bad)!r}{hint}; use X O P D S 1 2 and spaces")
    for letter, what in (("1", "chef 1"), ("2", "chef 2")):
        if cells.count(letter) != 1:
            raise LayoutError(f"{source}: the grid needs exactly one {letter!r} ({what}), found {cells.count(letter)}")
    for letter, what in (("O", "onion dispenser"), ("D", "dish dispenser"), ("P", "pot"), ("S", "serving spot")):
        if letter not in cells:
            raise LayoutError(f"{source}: the grid needs at least one {letter!r} ({what})")
    edge = rows[0] + rows[-1] + "".join(r[0] + r[-1] for r in rows)
    if any(c in " 12" for c in edge):
        raise LayoutError(f"{source}: the grid's border must be counters or stations, not floor")


def build_mdp(layout: Layout) -> Any:
    """The package's `OvercookedGridworld` for a layout (classic cooking dynamics)."""
    from overcooked.mdp.overcooked_mdp import OvercookedGridworld

    params = {"layout_name": layout.name, "start_all_orders": [_ONION_SOUP], "start_bonus_orders": []}
    return OvercookedGridworld.from_grid(list(layout.rows), base_layout_params=params,
                                         params_to_overwrite={"old_dynamics": True})


@functools.lru_cache(maxsize=16)
def motion_planner(rows: tuple[str, ...]) -> Any:
    """The package's single-chef `MotionPlanner` with every counter as a goal (for placing and
    picking up), built once per grid and process: it precomputes every shortest plan, which takes
    a moment on the larger layouts, and holds no episode state."""
    from overcooked.planning.planners import MotionPlanner

    mdp = build_mdp(Layout("planner", rows, "planner"))
    return MotionPlanner(mdp, counter_goals=mdp.get_counter_locations())
