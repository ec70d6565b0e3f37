"""How faithful a behaviour-cloning proxy design is: its BC pair beside LLM-Coordination's "BC" rows.

The pre-registered fidelity criterion of issue #25 (docs/howto/overcooked.md, "The human proxy"):
a design is judged by (a) its held-out action accuracy and (b) how a BC agent (cloned from one split
of the human trials) beside the proxy (cloned from the other) scores over 400 timesteps against the
paper's BC rows, on all five classic layouts and both starting positions, on seeds 20-59 -- never by
the planner's score beside the proxy. This prints (b): per cell the mean reward with a 95 %
bootstrap interval over the seeds, the paper's figure, and the mean absolute difference over the
ten cells (lower is closer), plus (a) read from each proxy's meta.json.

    python benchmarks/overcooked_bc_pair.py --agent-root /tmp/bc35/carroll/train \\
        --proxy-root /tmp/bc35/carroll/test [--seeds 20-59] [--layouts cramped_room,...]

Each root holds one trained clone per layout (ROOT/LAYOUT). With the same root twice it measures
two copies of one proxy (what the table benchmark's "BC pair" row does).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from mindagent.evaluation.stats import bootstrap_interval, mean
from overcooked_game.bc.pair import PAPER_BC, measure
from overcooked_game.layouts import CLASSIC


def seed_range(text: str) -> range:
    """``20-59`` (inclusive) or a count ``10`` (seeds 0-9)."""
    first, _, last = text.partition("-")
    return range(int(first), int(last) + 1) if last else range(int(first))


def cell(values: tuple[int, ...]) -> str:
    lo, hi = bootstrap_interval([float(v) for v in values])
    return f"{mean([float(v) for v in values]):.1f} [{lo:.0f}, {hi:.0f}]"


def accuracy(root: Path, layout: str) -> str:
    meta = json.loads((root / layout / "meta.json").read_text(encoding="utf-8"))
    return f"{meta['heldout_accuracy']:.3f} (stay {meta['heldout_majority_rate']:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent-root", type=Path, required=True, help="the BC agents: ROOT/LAYOUT per layout")
    parser.add_argument("--proxy-root", type=Path, required=True, help="the human proxies: ROOT/LAYOUT per layout")
    parser.add_argument("--seeds", type=seed_range, default=seed_range("20-59"), help="20-59 (inclusive) or a count")
    parser.add_argument("--layouts", default=",".join(CLASSIC))
    args = parser.parse_args()
    layouts = [name.strip() for name in args.layouts.split(",") if name.strip()]
    started = time.perf_counter()
    results = [measure(layout, args.agent_root / layout, args.proxy_root / layout, args.seeds) for layout in layouts]
    took = time.perf_counter() - started
    seeds = args.seeds
    print(f"BC agent {args.agent_root} beside proxy {args.proxy_root}: mean sparse reward over 400 timesteps "
          f"[95 % bootstrap interval], n = {len(seeds)} seeds ({seeds.start}-{seeds.stop - 1}); "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {took:.0f} s, load average {os.getloadavg()[0]:.2f}")
    print("| layout | agent chef0 + proxy | paper BC | proxy chef0 + agent | paper BC (swapped) | "
          "held-out accuracy: agent | proxy |")
    print("|---|---|---|---|---|---|---|")
    gaps: list[float] = []
    for result in results:
        paper = PAPER_BC[result.layout]
        gaps += [abs(mean([float(v) for v in result.first]) - paper[0]),
                 abs(mean([float(v) for v in result.swapped]) - paper[1])]
        print(f"| {result.layout} | {cell(result.first)} | {paper[0]} | {cell(result.swapped)} | {paper[1]} | "
              f"{accuracy(args.agent_root, result.layout)} | {accuracy(args.proxy_root, result.layout)} |")
    print(f"mean absolute difference from the paper's BC rows over {len(gaps)} cells: {mean(gaps):.1f}")


if __name__ == "__main__":
    main()
