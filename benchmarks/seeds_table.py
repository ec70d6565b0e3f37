"""Markdown table of a many-seed planner sweep against GPT-4 (what the README shows).

    mindagent eval --levels paper --agents 2,3,4 --model planner --seeds 0-9 --out results/planner.json
    python benchmarks/seeds_table.py results/planner.json

Per cell: mean CoS over the seeds, its 95 % bootstrap interval, and where the paper's GPT-4
figure falls (inside / above / below the interval); `>=` marks a mean at or above GPT-4.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cuisineworld.adapter.paper import GPT4_COS, PAPER_AGENT_COUNTS, PAPER_LEVELS
from mindagent.evaluation.stats import verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary", type=Path)
    args = parser.parse_args()
    data = json.loads(args.summary.read_text(encoding="utf-8"))
    cells = {(c["level"], c["agents"]): c for c in data["cells"]}
    print(f"seeds {data['seeds'][0]}-{data['seeds'][-1]}: mean [95 % interval] (GPT-4 figure is inside / above / below)")
    print()
    print("| agents | " + " | ".join(lv.replace("level_", "L") for lv in PAPER_LEVELS) + " |")
    print("|---" * (len(PAPER_LEVELS) + 1) + "|")
    at_or_above = total = 0
    verdicts: dict[str, int] = {"inside": 0, "above": 0, "below": 0}
    for agents in PAPER_AGENT_COUNTS:
        marks = []
        for level in PAPER_LEVELS:
            cell = cells.get((level, agents))
            if cell is None:
                marks.append("-")
                continue
            gpt4 = GPT4_COS[agents][level]
            lo, hi = cell["interval"]
            where = verdict(gpt4, (lo, hi))
            verdicts[where] += 1
            total += 1
            at_or_above += cell["mean"] >= gpt4
            marks.append(f"{cell['mean']:.3f} [{lo:.3f}-{hi:.3f}] {where}")
        print(f"| {agents} | " + " | ".join(marks) + " |")
    print()
    print(f"mean at or above GPT-4 in {at_or_above} of {total} cells; GPT-4's figure is below our interval in "
          f"{verdicts['below']}, inside it in {verdicts['inside']}, above it in {verdicts['above']}")


if __name__ == "__main__":
    main()
