"""The paper's full protocol with the scheduler baseline, next to GPT-4 and the upper bound.

12 levels x {2, 3, 4} agents x 5 taus x 3 consecutive 60-step episodes (540 episodes) on the
reference rule set. Prints the wall time and a Markdown table (paste-ready for the README), and
optionally writes the results JSON that `mindagent.evaluation.plots.plot_results` draws.

    python benchmarks/planner_sweep.py [--rules reference] [--json out.json] [--png out.png]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cuisineworld.adapter.paper import GPT4_COS, PAPER_AGENT_COUNTS, PAPER_LEVELS
from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.planners.evaluate import CellResult, run_cell
from cuisineworld.adapter.planners.upper_bound import upper_bound


def sweep(policy_name: str, rules: str) -> tuple[list[CellResult], dict[tuple[str, int], float], float]:
    start = time.perf_counter()
    cells = [run_cell(make_policy(policy_name), level, agents, rules=rules)
             for level in PAPER_LEVELS for agents in PAPER_AGENT_COUNTS]
    elapsed = time.perf_counter() - start
    bounds = {(level, agents): upper_bound(level, agents, rules=rules).cos
              for level in PAPER_LEVELS for agents in PAPER_AGENT_COUNTS}
    return cells, bounds, elapsed


def markdown(cells: list[CellResult], bounds: dict[tuple[str, int], float]) -> str:
    by_key = {(c.level, c.agents): c for c in cells}
    header = "| agents | " + " | ".join(level.replace("level_", "L") for level in PAPER_LEVELS) + " | avg |"
    rule = "|---" * (len(PAPER_LEVELS) + 2) + "|"
    lines = [header, rule]
    for agents in PAPER_AGENT_COUNTS:
        rows = {
            "planner": [by_key[(lv, agents)].cos for lv in PAPER_LEVELS],
            "GPT-4": [GPT4_COS[agents][lv] for lv in PAPER_LEVELS],
            "bound": [bounds[(lv, agents)] for lv in PAPER_LEVELS],
        }
        for label, row in rows.items():
            marks = []
            for lv, v in zip(PAPER_LEVELS, row, strict=True):
                short = label == "planner" and v < GPT4_COS[agents][lv]
                marks.append(f"{v:.3f}{'*' if short else ''}")
            lines.append(f"| {agents} {label} | " + " | ".join(marks) + f" | {sum(row) / len(row):.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="planner", choices=["planner", "random"])
    parser.add_argument("--rules", default="reference", choices=["reference", "fixed"])
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--png", type=Path, help="draw the efficiency curves here (needs --json)")
    args = parser.parse_args()
    cells, bounds, elapsed = sweep(args.policy, args.rules)
    episodes = sum(len(c.taus) for c in cells) * 3
    print(f"{args.policy} on {args.rules} rules: {len(cells)} cells, {episodes} episodes in {elapsed:.1f} s")
    print()
    print(markdown(cells, bounds))
    short = [(c.level, c.agents) for c in cells if c.cos < GPT4_COS[c.agents][c.level]]
    print()
    print(f"cells below GPT-4 (*): {len(short)} {short}")
    refused = sum(c.refused for c in cells)
    print(f"commands refused by the engine: {refused}")
    if args.json:
        payload = {
            "config": {"model": args.policy, "rules": args.rules, "episodes": 3, "seed": 0, "steps": 60,
                       "wall_seconds": round(elapsed, 2)},
            "cells": [dict(c.to_dict(), gpt4=GPT4_COS[c.agents][c.level], bound=bounds[(c.level, c.agents)])
                      for c in cells],
        }
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")
        if args.png:
            from mindagent.evaluation.plots import plot_results

            print(f"wrote {plot_results(args.json, args.png)}")


if __name__ == "__main__":
    main()
