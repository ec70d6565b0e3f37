"""The paper's RL baseline (Table 12) reproduced: masked PPO on level_1 and level_4 with 2 agents.

Trains one centralized MaskablePPO policy per level (dense reward unless ``--reward``, all five paper taus drawn per
episode, seeded), then evaluates it with the same sweep as every dispatcher (`mindagent eval`'s
protocol: reference rules, seed 0, three consecutive 60-step episodes per tau) greedily and
sampling, beside the planner and the paper's figures: masked PPO 0.451 / 0.598 and GPT-4 at
the fourth task interval (tau 2.5) 0.947 / 0.917. The learning curve is the evaluated completion
rate at tau 2.5 and the CoS of the checkpoints (every `--curve-every` steps), drawn to
``OUT/curve.png``; the training's own curve is in ``OUT/<level>/progress.csv`` (and TensorBoard).

    python benchmarks/rl_baseline.py --steps 1000000 --out runs/rl_baseline      # train, then evaluate
    python benchmarks/rl_baseline.py --eval-only --out runs/rl_baseline          # evaluate what is there
    python benchmarks/rl_baseline.py --levels level_1 --reward dense-v1           # the README's earlier run

Training runs one level after another on one core each call; run two calls with one ``--levels``
each to use two cores. A run still training can be evaluated: the latest checkpoint is used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

from cuisineworld import PAPER_TAUS
from cuisineworld.adapter.paper import GPT4_TAU4_2_AGENTS, MASKED_PPO_2_AGENTS
from mindagent.core import registry as domains
from mindagent.dispatch.brains import make_brain
from mindagent.evaluation.scoring import TauResult, cos
from mindagent.evaluation.sweep import EvalConfig, Results, run_eval

PAPER_TAU = 2.5  # Table 12 compares at the fourth task interval


def evaluate(model: str, level: str, agents: int, episodes: int, seed: int) -> list[TauResult]:
    config = EvalConfig(levels=[level], agents=[agents], model=model, episodes=episodes, seed=seed)
    results = Results(None, config)
    domain = domains.get("cuisineworld")
    asyncio.run(run_eval(config, results, lambda: make_brain(model, domain, seed=seed)))
    if results.failures:
        raise RuntimeError("; ".join(results.failures))
    return [results.done[(level, agents)][t] for t in config.taus]


def latest_model(folder: Path) -> tuple[Path, int]:
    """model.zip when training finished, else the newest checkpoint, with its step count."""
    final = folder / "model.zip"
    meta = json.loads((folder / "policy.json").read_text())
    if final.exists() and meta.get("trained_steps"):
        return final, int(meta["trained_steps"])
    return max(checkpoints(folder), key=lambda c: c[1])


def checkpoints(folder: Path) -> list[tuple[Path, int]]:
    found = []
    for path in (folder / "checkpoints").glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((path, int(match.group(1))))
    return sorted(found, key=lambda c: c[1])


def rates(taus: list[TauResult]) -> str:
    return " | ".join(f"{t.completed}/{t.completed + t.failed + t.active} ({t.rate:.3f})" for t in taus)


def row(name: str, taus: list[TauResult], paper_rl: str, gpt4: str) -> str:
    at = next(t for t in taus if t.tau == PAPER_TAU)
    return f"| {name} | {rates(taus)} | {cos(taus):.3f} | {at.rate:.3f} | {paper_rl} | {gpt4} |"


def curve(folder: Path, level: str, agents: int, every: int, episodes: int, seed: int,
          known: list[dict[str, float]]) -> list[dict[str, float]]:
    """Checkpoints evaluated at multiples of `every`; points in `known` (an earlier call's) are kept."""
    points = [p for p in known if int(p["steps"]) % every == 0]
    done = {int(p["steps"]) for p in points}
    for path, steps in checkpoints(folder):
        if steps % every or steps in done:
            continue
        taus = evaluate(f"policy:{path}", level, agents, episodes, seed)
        at = next(t for t in taus if t.tau == PAPER_TAU)
        points.append({"steps": steps, "cos": cos(taus), "rate_tau_2.5": at.rate})
    return sorted(points, key=lambda p: p["steps"])


def plot(curves: dict[str, list[dict[str, float]]], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for (level, points), colour in zip(curves.items(), ("tab:blue", "tab:orange"), strict=False):
        xs = [p["steps"] for p in points]
        ax.plot(xs, [p["cos"] for p in points], color=colour, label=f"{level} CoS (greedy)")
        ax.plot(xs, [p["rate_tau_2.5"] for p in points], color=colour, linestyle="--", label=f"{level} tau 2.5")
        if level in MASKED_PPO_2_AGENTS:
            ax.axhline(MASKED_PPO_2_AGENTS[level], color=colour, linestyle=":", label=f"{level} paper PPO")
    ax.set_xlabel("training steps (joint actions)")
    ax.set_ylabel("completion rate")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="level_1,level_4")
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path("runs/rl_baseline"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--reward", default="dense", help="the training reward (dense-v1 reproduces the earlier runs)")
    parser.add_argument("--eval-only", action="store_true", help="evaluate the runs already in --out")
    parser.add_argument("--curve-every", type=int, default=100_000, help="evaluate checkpoints at multiples of this")
    args = parser.parse_args()
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    if not args.eval_only:
        from cuisineworld.adapter.rl.train import TrainConfig, train

        for level in levels:
            config = TrainConfig(level=level, agents=args.agents, steps=args.steps, out=args.out / level, seed=args.seed,
                                 taus=tuple(PAPER_TAUS), reward=args.reward)
            result = train(config)
            print(f"{level}: trained {result.steps:,} steps in {result.seconds / 60:.1f} min", flush=True)
    print(f"paper protocol: reference rules, seed {args.seed}, {args.episodes} x 60-step episodes per tau, "
          f"{args.agents} agents; completed/total (rate) per tau {', '.join(f'{t:g}' for t in PAPER_TAUS)}")
    saved = args.out / "curve.json"
    known: dict[str, list[dict[str, float]]] = json.loads(saved.read_text()) if saved.exists() else {}
    curves = {}
    lines = []
    for level in levels:
        folder = args.out / level
        model, steps = latest_model(folder)
        meta = json.loads((folder / "policy.json").read_text())
        minutes = f"{meta['seconds'] / 60:.0f} min" if meta.get("seconds") else "still training"
        paper_rl = f"{MASKED_PPO_2_AGENTS.get(level, float('nan')):.3f}"
        gpt4 = f"{GPT4_TAU4_2_AGENTS.get(level, float('nan')):.3f}"
        lines.append(row(f"{level} masked PPO, greedy ({steps:,} steps, {minutes})",
                         evaluate(f"policy:{model}", level, args.agents, args.episodes, args.seed), paper_rl, gpt4))
        lines.append(row(f"{level} masked PPO, sampled", evaluate(f"policy:{model}?sample", level, args.agents,
                                                                   args.episodes, args.seed), paper_rl, gpt4))
        lines.append(row(f"{level} planner", evaluate("planner", level, args.agents, args.episodes, args.seed),
                         paper_rl, gpt4))
        curves[level] = curve(folder, level, args.agents, args.curve_every, args.episodes, args.seed, known.get(level, []))
        for p in curves[level]:
            print(f"  {level} {int(p['steps']):>9,} steps: CoS {p['cos']:.3f}, tau 2.5 {p['rate_tau_2.5']:.3f}")
    print("| dispatcher | " + " | ".join(f"tau {t:g}" for t in PAPER_TAUS)
          + " | CoS | rate at tau 2.5 | paper masked PPO | paper GPT-4 (tau 2.5) |")
    print("|---|" + "---|" * (len(PAPER_TAUS) + 4))
    print("\n".join(lines))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "curve.json").write_text(json.dumps(curves, indent=1) + "\n")
    plot(curves, args.out / "curve.png")
    print(f"learning curve: {args.out / 'curve.png'} ({args.out / 'curve.json'})")


if __name__ == "__main__":
    main()
