"""The cross-play table (issue 29): trained policies beside partners they never trained with.

Rows are the player in seat 0, columns its partner in seat 1, on one 2-agent level (on the
diagonal a player plays both seats as one team: its own play); each cell is
the CoS over the paper's taus (`crossplay.cos`: completed / all orders per tau, pooled over that
tau's episodes) with its 95 % bootstrap interval and n, the number of episodes. Every cell plays
the same order streams (tau i's kitchen seeded ``seed + i``).

Players: each ``--policy DIR`` (an SB3 run folder of `mindagent train`), the planner, a
behaviour-cloned proxy of the planner (``--clone DIR``; trained there first, from planner play,
when the folder holds none) and a random teammate.

    python benchmarks/rl_crossplay.py --level level_1 --policy /tmp/xp_l1 --clone /tmp/xp_clone [--episodes 6] [--select]

``--select`` plays each run's checkpoint that scored best on a held-out stream (own play, other
seeds than the table's), the held-out selection issue 29 asks for, instead of its last model.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from machine_load import MachineLoad

from cuisineworld import PAPER_TAUS
from cuisineworld.adapter.rl.crossplay import cos, interval, make_player, play_cell
from cuisineworld.adapter.rl.planner_clone import META, CloneConfig, fit_clone


def select(run: Path, level: str, taus: tuple[float, ...], seed: int) -> Path:
    """The run's checkpoint (or final model) with the best own-play CoS on a held-out stream: order
    streams seeded `seed` + i, not the table's, 2 episodes per tau; the first best on ties."""
    candidates = sorted((run / "checkpoints").glob("model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))
    scores = []
    for path in [*candidates, run / "model.zip"]:
        player = make_player(f"policy:{path}")
        scores.append((cos(play_cell(level, player, player, taus, 2, seed=seed)), path))
    best = max(scores, key=lambda pair: pair[0])
    print("held-out own-play CoS (seed " + str(seed) + "): " + ", ".join(f"{p.name} {c:.3f}" for c, p in scores)
          + f"; playing {best[1]}")
    return best[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_1")
    parser.add_argument("--policy", type=Path, action="append", default=[], help="a run folder or a released name (repeatable)")
    parser.add_argument("--clone", type=Path, help="a planner clone's folder (made there when missing)")
    parser.add_argument("--clone-episodes", type=int, default=12, help="planner episodes per tau to clone from")
    parser.add_argument("--episodes", type=int, default=6, help="episodes per tau per cell")
    parser.add_argument("--partners", nargs="+", help="partner specs (default: the players themselves)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--select", action="store_true",
                        help="play each run's best checkpoint on a held-out stream (seed --select-seed) instead of model.zip")
    parser.add_argument("--select-seed", type=int, default=100)
    args = parser.parse_args()
    taus = tuple(PAPER_TAUS)
    players = [f"policy:{select(p, args.level, taus, args.select_seed) if args.select else p}" for p in args.policy]
    if args.clone is not None:
        if not (args.clone / META).is_file():
            meta = fit_clone(CloneConfig(args.level, 2, episodes=args.clone_episodes, seed=args.seed), args.clone)
            print(f"trained the planner clone in {args.clone}: {meta['samples']} states, "
                  f"held-out accuracy {meta['held_out_accuracy']:.3f}")
        players.append(f"clone:{args.clone}")
    players += ["planner", "random"]
    partners = args.partners or players
    print(f"{args.level}, 2 agents, reference rules, taus {', '.join(map(str, taus))}, {args.episodes} episodes per tau "
          f"per cell, seed {args.seed}; CoS [95 % bootstrap interval], n episodes")
    print("| seat 0 \\ seat 1 | " + " | ".join(partners) + " |")
    print("|---|" + "---:|" * len(partners))
    probe = MachineLoad.start()
    started = time.perf_counter()
    cells: dict[str, dict[str, float]] = {}
    for first_spec in players:
        row = []
        for second_spec in partners:
            first = make_player(first_spec, args.seed)
            second = first if second_spec == first_spec else make_player(second_spec, args.seed + 1)
            cell = play_cell(args.level, first, second, taus, args.episodes, seed=args.seed)
            low, high = interval(cell, seed=args.seed)
            cells[f"{first_spec} | {second_spec}"] = {"cos": cos(cell), "low": low, "high": high, "n": len(cell)}
            row.append(f"{cos(cell):.3f} [{low:.3f}, {high:.3f}] n={len(cell)}")
        print(f"| {first_spec} | " + " | ".join(row) + " |", flush=True)
    seen = probe.stop(server_cpu_s=0.0)
    print(f"\n{time.perf_counter() - started:.0f} s wall; load average (1 min) {seen.load_start:.1f}-{seen.load_end:.1f}")
    print(json.dumps(cells))


if __name__ == "__main__":
    main()
