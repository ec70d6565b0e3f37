"""Markdown table of a many-seed planner sweep against GPT-4 (what the README shows).

    mindagent eval --levels paper --agents 2,3,4 --model planner --seeds 0-9 --out results/planner.json
    python benchmarks/seeds_table.py results/planner.json

Per cell: mean CoS over the seeds with its 95 % t interval, and where the paper's GPT-4 figure (one
order stream) falls against the 95 % prediction interval of one planner stream, in words that say
who is above whom; `>=` counts means at or above GPT-4. Zero-spread cells are marked.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cuisineworld.adapter.paper import GPT4_COS, PAPER_AGENT_COUNTS, PAPER_LEVELS
from mindagent.evaluation.inference import place, prediction_interval, t_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary", type=Path)
    args = parser.parse_args()
    data = json.loads(args.summary.read_text(encoding="utf-8"))
    cells = {(c["level"], c["agents"]): c for c in data["cells"]}
    print(f"seeds {data['seeds'][0]}-{data['seeds'][-1]} (n = {len(data['seeds'])}): mean [95 % t interval]; "
          "GPT-4's single stream against the 95 % prediction interval of one planner stream")
    print()
    print("| agents | " + " | ".join(lv.replace("level_", "L") for lv in PAPER_LEVELS) + " |")
    print("|---" * (len(PAPER_LEVELS) + 1) + "|")
    at_or_above = total = 0
    counts: dict[str, int] = {}
    for agents in PAPER_AGENT_COUNTS:
        marks = []
        for level in PAPER_LEVELS:
            cell = cells.get((level, agents))
            if cell is None:
                marks.append("-")
                continue
            values = [float(v) for v in cell["values"].values()]
            gpt4 = GPT4_COS[agents][level]
            mean_iv = t_interval(values)
            where = place(gpt4, prediction_interval(values), "planner", "GPT-4")
            key = where.split(" (")[0]
            counts[key] = counts.get(key, 0) + 1
            total += 1
            at_or_above += cell["mean"] >= gpt4
            marks.append(f"{cell['mean']:.3f} [{mean_iv.lo:.3f}-{mean_iv.hi:.3f}] {where}")
        print(f"| {agents} | " + " | ".join(marks) + " |")
    print()
    print(f"mean at or above GPT-4 in {at_or_above} of {total} cells; "
          + "; ".join(f"{words}: {n}" for words, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
