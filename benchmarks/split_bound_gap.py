"""The planner's gap to the upper bound on the shipped forced-collaboration levels.

pass_sushi, relay_sashimi and secret_salad with 2, 3 and 4 agents under the paper's protocol
(5 taus x 3 episodes, seed 0) on both rule sets: the planner's CoS, the reach-aware bound, the gap
(bound minus planner), and the median gap over the 9 cells of each rule set. Prints the date, the
load average and the wall time beside the table (the figures themselves do not depend on load).

    python benchmarks/split_bound_gap.py [--rules reference fixed]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.planners.evaluate import run_cell
from cuisineworld.adapter.planners.upper_bound import upper_bound

LEVELS = ("pass_sushi", "relay_sashimi", "secret_salad")
AGENTS = (2, 3, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["reference", "fixed"], choices=["reference", "fixed"])
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"taken {datetime.date.today().isoformat()}, load average {os.getloadavg()[0]:.1f}")
    print()
    print("| level | rules | " + " | ".join(f"{n} agents: planner / bound (gap)" for n in AGENTS) + " |")
    print("|---" * (len(AGENTS) + 2) + "|")
    gaps: dict[str, list[float]] = {rules: [] for rules in args.rules}
    for level in LEVELS:
        for rules in args.rules:
            marks = []
            for agents in AGENTS:
                planner = run_cell(make_policy("planner"), level, agents, rules=rules).cos
                bound = upper_bound(level, agents, rules=rules).cos
                gaps[rules].append(bound - planner)
                marks.append(f"{planner:.3f} / {bound:.3f} ({bound - planner:.3f})")
            print(f"| {level} | {rules} | " + " | ".join(marks) + " |")
    print()
    for rules, values in gaps.items():
        print(f"{rules}: median gap {statistics.median(values):.3f} over n = {len(values)} cells "
              f"(min {min(values):.3f}, max {max(values):.3f})")
    print(f"wall time {time.perf_counter() - start:.1f} s, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
