"""How hard each shipped level is, as measured, for the lobby's level picker.

A level's label is the band its built-in planner's Collaboration Score falls in, under the same
protocol `levelgen` calibrates generated levels with (five taus, three consecutive episodes each,
order seed 0, reference rules) and with the same bands (`levelgen.BANDS`, or `HANDOFF_BANDS` for a
split kitchen, where every hand-off costs three commands). The figures are measured by
`python -m cuisineworld.adapter.difficulty --write` into ``levels/data/difficulty.json`` (a sweep of
every shipped level takes a few minutes, too long for a server start), so a label is a measurement
that can be checked (tests re-measure a cell) rather than an opinion typed in by hand.

Example::

    level_choices()[0]   # {"level": "level_0", "difficulty": "easy", "planner_cos": 0.745, "agents": 2}
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from cuisineworld import load_level
from cuisineworld.adapter.levelgen import DIFFICULTIES, in_band
from cuisineworld.levels.limits import MAX_LEVEL_FILE_BYTES
from cuisineworld.levels.loader import level_names

#: Where the measured figures live, inside the package's level data.
DATA_FILE = "difficulty.json"
#: The team the calibration protocol measures (a split kitchen: one agent per profile, at least this).
MEASURED_AGENTS = 2


def label(cos: float, handoffs: bool) -> str:
    """The difficulty whose band holds `cos` (below every band: the hardest)."""
    for name in DIFFICULTIES:
        if in_band(cos, name, handoffs):
            return name
    return DIFFICULTIES[-1]


def measure(level: str) -> dict[str, Any]:
    """One level's figures: the planner's CoS under the calibration protocol and its label."""
    from cuisineworld.adapter.planners import make_policy
    from cuisineworld.adapter.planners.evaluate import run_cell

    compiled = load_level(level)
    profiles = compiled.team_profiles(MEASURED_AGENTS)
    handoffs = profiles is not None
    data = json.loads(resources.files("cuisineworld.levels").joinpath("data", "levels", f"{level}.json").read_text())
    agents = max(MEASURED_AGENTS, len(data.get("agents") or []))
    cos = run_cell(make_policy("planner"), compiled, agents).cos
    return {"agents": agents, "planner_cos": round(cos, 4), "handoffs": handoffs, "difficulty": label(cos, handoffs)}


@cache
def measured() -> dict[str, dict[str, Any]]:
    """The shipped figures (empty when the file is missing or unreadable: the lobby shows no label)."""
    try:
        text = resources.files("cuisineworld.levels").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    except OSError:
        return {}
    if len(text) > MAX_LEVEL_FILE_BYTES:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return {}
    levels = raw.get("levels") if isinstance(raw, dict) else None
    return {k: v for k, v in levels.items() if isinstance(v, dict)} if isinstance(levels, dict) else {}


def level_choices() -> list[dict[str, Any]]:
    """Every shipped level with its measured label (None where it was not measured)."""
    figures = measured()
    out: list[dict[str, Any]] = []
    for name in level_names():
        f = figures.get(name, {})
        out.append({"level": name, "difficulty": f.get("difficulty"), "planner_cos": f.get("planner_cos"),
                    "agents": f.get("agents")})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Measure every shipped level's difficulty with the planner.")
    parser.add_argument("--write", action="store_true", help="write the package's difficulty.json")
    parser.add_argument("--levels", nargs="*", help="only these levels")
    args = parser.parse_args()
    names = args.levels or level_names()
    levels = {name: measure(name) for name in names}
    out = {"protocol": "planner, reference rules, taus 1.0-3.0, 3 episodes each, seed 0", "levels": levels}
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    if args.write:
        path = Path(str(resources.files("cuisineworld.levels").joinpath("data", DATA_FILE)))
        path.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
