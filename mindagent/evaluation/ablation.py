"""The paper's ablation study (section 6, Table 2) as one grid: a prompt configuration per row.

Each configuration differs from the full prompt in exactly one component: no inference
knowledge, a two-step demo, no demo, no environment feedback, no memory, or the demo made with
2, 3 or 4 agents. Every configuration is an ordinary `eval` sweep with its own results file in
the output folder (so the study resumes configuration by configuration, tau by tau, and a
folder made with other settings is refused, as `eval` refuses); the table puts them side by
side with the difference from the full prompt and what each cost in tokens.

Baselines (``mindagent ablate --baseline rule:first``) are other dispatchers run on the full
configuration's protocol, one results file each, printed as rows beside the model's: a rule
chooser in the model's seat, or a built-in policy, so the table shows what the model adds.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindagent.dispatch.brains import Brain
from mindagent.evaluation.sweep import EvalConfig, Results, run_eval

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ablation:
    name: str
    label: str
    change: dict[str, Any]


#: The rows of the table, the full prompt first (the paper's Table 2 plus its demo-size rows).
ABLATIONS = (
    Ablation("full", "full prompt", {}),
    Ablation("no-knowledge", "no inference knowledge", {"knowledge": False}),
    Ablation("few-step-demo", "few-step demo", {"demo": "few-step"}),
    Ablation("no-demo", "no demo", {"demo": "none"}),
    Ablation("no-feedback", "no feedback", {"feedback": False}),
    Ablation("memory-0", "memory 0", {"memory": 0}),
    Ablation("demo-2-agents", "demo with 2 agents", {"demo_agents": 2}),
    Ablation("demo-3-agents", "demo with 3 agents", {"demo_agents": 3}),
    Ablation("demo-4-agents", "demo with 4 agents", {"demo_agents": 4}),
)


def ablation_config(base: EvalConfig, ablation: Ablation) -> EvalConfig:
    """`base` with one prompt component changed; recordings go to a sub-folder per configuration
    (their file names say level, team and tau, not the prompt)."""
    record_dir = str(Path(base.record_dir) / ablation.name) if base.record_dir else None
    return dataclasses.replace(base, prompt=dataclasses.replace(base.prompt, **ablation.change), record_dir=record_dir)


def row(ablation: Ablation, results: Results) -> dict[str, Any]:
    """One table row: CoS (mean over cells), completed dishes and tokens per step and per dish."""
    cells = results.cells()
    taus = [t for c in cells for t in c["taus"]]
    steps = sum(int(t.get("steps", 0)) for t in taus)
    completed = sum(int(t["completed"]) for t in taus)
    tokens = sum(int(t.get("prompt_tokens", 0)) + int(t.get("output_tokens", 0)) for t in taus)
    expected = len(results.config.levels) * len(results.config.agents) * len(results.config.taus)
    return {
        "name": ablation.name, "label": ablation.label, "prompt": results.config.prompt.to_dict(),
        "cos": round(sum(c["cos"] for c in cells) / len(cells), 6) if cells else None,
        "complete": len(taus) == expected, "completed": completed, "steps": steps,
        "tokens_per_step": round(tokens / steps, 1) if steps else None,
        "tokens_per_dish": round(tokens / completed, 1) if completed else None,
        "cached_tokens": sum(int(t.get("cached_tokens", 0)) for t in taus),
        "model_errors": sum(int(t.get("model_errors", 0)) for t in taus),
    }


def baseline_ablation(model: str) -> Ablation:
    """The row of a baseline dispatcher: the full prompt's settings, another `model`."""
    return Ablation("baseline-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", model), f"baseline {model}", {})


async def run_ablation(base: EvalConfig, out_dir: Path, brain_factory: Callable[[], Brain],
                       names: list[str] | None = None,
                       on_episode: Callable[[], None] | None = None,
                       concurrency: int = 1,
                       baselines: Sequence[tuple[str, Callable[[], Brain]]] = ()) -> tuple[list[dict[str, Any]], list[str]]:
    """Run (or resume) every chosen configuration, then each baseline (its model and brain
    factory), `concurrency` cells at once; returns the table rows (baselines last) and failed units."""
    chosen = [a for a in ABLATIONS if names is None or a.name in names]
    rows, failures = [], []
    for ablation in chosen:
        config = ablation_config(base, ablation)
        results = Results(out_dir / f"{ablation.name}.json", config)  # ValueError: other settings
        await run_eval(config, results, brain_factory, concurrency, on_episode=on_episode)
        failures += [f"{ablation.name}: {f}" for f in results.failures]
        rows.append(row(ablation, results))
    for model, factory in baselines:
        ablation = baseline_ablation(model)
        config = dataclasses.replace(ablation_config(base, ablation), model=model, generation={})
        results = Results(out_dir / f"{ablation.name}.json", config)
        await run_eval(config, results, factory, concurrency, on_episode=on_episode)
        failures += [f"{ablation.name}: {f}" for f in results.failures]
        rows.append(row(ablation, results))
    full = next((r["cos"] for r in rows if r["name"] == "full"), None)
    for r in rows:
        r["delta"] = round(r["cos"] - full, 6) if r["cos"] is not None and full is not None else None
    save_table(rows, base, out_dir)
    return rows, failures


def save_table(rows: list[dict[str, Any]], base: EvalConfig, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "ablation.json").write_text(json.dumps({"config": base.to_dict(), "rows": rows}, indent=1),
                                           encoding="utf-8")
    with (out_dir / "ablation.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        keys = ["name", "label", "cos", "delta", "completed", "steps", "tokens_per_step", "tokens_per_dish",
                "cached_tokens", "model_errors", "complete"]
        writer.writerow(keys)
        for r in rows:
            writer.writerow([r[k] for k in keys])


def plot_ablation(rows: list[dict[str, Any]], target: Path, title: str) -> None:
    """A bar per configuration (CoS), the full prompt's level as a line across."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in rows if r["cos"] is not None]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(shown), 3.2))
    ax.bar([r["label"] for r in shown], [r["cos"] for r in shown], color="#4c72b0")
    full = next((r["cos"] for r in shown if r["name"] == "full"), None)
    if full is not None:
        ax.axhline(full, color="#dd8452", linestyle="--", linewidth=1, label=f"full prompt {full:.3f}")
        ax.legend(fontsize=7)
    ax.set_ylabel("CoS")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.tick_params(axis="x", labelrotation=35, labelsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    plt.close(fig)


