"""Wall time of the paper sweep with the planner on 1 and N worker processes (and on a local Ray).

On a machine shared with other work the speed-up is capped by the cores left free, so beside the
wall time it prints the CPU seconds, the cores the run got on average (CPU / wall; 2.0 means both
cores were ours all along), the extra CPU the pool spent over one worker (its overhead: process
start, pickling, the parent saving results) and the load average when each run started.

Runs the same sweep through `mindagent.evaluation.executors.run_units` once per executor setting, writes each
results file, and prints the wall times, the speed-up over one worker and whether the files are
byte-identical (they must be: units are deterministic and the file is written in config order).

    python benchmarks/sweep_workers.py [--workers 2] [--ray] [--levels paper] [--agents 2,3,4]
    python benchmarks/sweep_workers.py --unit-costs [--workers 2]

`--unit-costs` instead measures every unit's CPU seconds in this process (one at a time, so the
figures barely depend on other work on the machine) and prints the speed-up a pool of `--workers`
would reach on idle cores with those costs, for units taken in configuration order and largest
first (`mindagent.evaluation.executors.unit_cost`), pool overhead aside.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import os
import resource
import tempfile
import time
from pathlib import Path

from mindagent.core import registry as domains
from mindagent.evaluation import sweep as evaluation
from mindagent.evaluation.executors import BrainRecipe, run_units, unit_cost
from mindagent.evaluation.sweep import EvalConfig, Results


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def sweep(levels: list[str], agents: list[int], out: Path, workers: int, executor: str) -> float:
    config = EvalConfig(levels=levels, agents=agents, model="planner")
    results = Results(out, config)
    units = [(results, lv, a, t) for lv in levels for a in agents for t in config.taus]
    recipe = BrainRecipe("planner", config.domain, config.seed)
    start = time.perf_counter()
    run_units(units, lambda _: recipe, workers=workers, executor=executor)
    elapsed = time.perf_counter() - start
    if results.failures:
        raise SystemExit(f"failed units: {results.failures}")
    return elapsed


def makespan(costs: list[float], workers: int) -> float:
    """When the last unit ends if each goes to the first free worker, in the order given."""
    free = [0.0] * workers
    for cost in costs:
        heapq.heappush(free, heapq.heappop(free) + cost)
    return max(free)


def unit_costs(levels: list[str], agents: list[int], workers: int) -> None:
    config = EvalConfig(levels=levels, agents=agents, model="planner")
    recipe = BrainRecipe("planner", config.domain, config.seed)
    results = Results(None, config)
    costs: dict[tuple[str, int, float], float] = {}
    for lv in levels:
        for a in agents:
            for t in config.taus:
                start = time.process_time()
                asyncio.run(evaluation.run_tau(config, lv, a, t, recipe.make))
                costs[(lv, a, t)] = time.process_time() - start
    total = sum(costs.values())
    by_team = {a: sum(c for (_, n, _), c in costs.items() if n == a) for a in agents}
    print(f"{len(costs)} units, {total:.1f} CPU s in all; by team size: "
          + ", ".join(f"{a} agents {c:.1f} s" for a, c in by_team.items()))
    config_order = list(costs.values())
    largest_first = [costs[k] for k in sorted(costs, key=lambda k: unit_cost((results, *k)))]
    for label, order in (("configuration order", config_order), ("largest first", largest_first)):
        span = makespan(order, workers)
        print(f"{workers} workers, {label}: last unit ends at {span:.1f} CPU s: {total / span:.3f}x on idle cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ray", action="store_true", help="also run on a local Ray")
    parser.add_argument("--levels", default="paper")
    parser.add_argument("--agents", default="2,3,4")
    parser.add_argument("--unit-costs", action="store_true", help="per-unit CPU seconds and the ideal speed-up")
    args = parser.parse_args()
    levels = domains.get("cuisineworld").parse_levels(args.levels)
    agents = [int(a) for a in args.agents.split(",")]
    if args.unit_costs:
        unit_costs(levels, agents, args.workers)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = [("1 worker", 1, "local"), (f"{args.workers} workers", args.workers, "local")]
        if args.ray:
            runs.append(("local Ray", 1, "ray"))
        times: dict[str, float] = {}
        cpus: dict[str, float] = {}
        files: dict[str, bytes] = {}
        for label, workers, executor in runs:
            path = folder / f"{executor}{workers}.json"
            load = os.getloadavg()[0]
            cpu = cpu_seconds()
            times[label] = sweep(levels, agents, path, workers, executor)
            cpus[label] = cpu_seconds() - cpu  # Ray's workers are not our children: not counted
            files[label] = path.read_bytes()
            print(f"{label:>10}: {times[label]:7.1f} s wall, {cpus[label]:7.1f} s CPU here, "
                  f"{cpus[label] / times[label]:.2f} cores on average, load {load:.1f} at start  "
                  f"({len(levels) * len(agents) * 5} units)", flush=True)
        base = times["1 worker"]
        for label in list(times)[1:]:
            same = files[label] == files["1 worker"]
            print(f"{label}: {base / times[label]:.2f}x faster than 1 worker; results file identical: {same}")
            if label != "local Ray":
                print(f"{label}: CPU {cpus[label] / cpus['1 worker']:.3f}x one worker's "
                      f"(1.000 = no pool overhead)")


if __name__ == "__main__":
    main()
