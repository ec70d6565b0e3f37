"""What an ablation study leaves in its folder: ``ablation.json`` (versioned), ``ablation.csv`` and a plot.

``ablation.json`` carries ``"schema": "mindagent/ablation@2"``: the rows with n, mean, interval,
difference from the full prompt and the Holm-corrected p, the seeds and the test used. (Files
before the schema held one seed and no test; nothing reads them back: the study's own results
files are what a resume reads.)
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from mindagent.evaluation.sweep import EvalConfig

SCHEMA = "mindagent/ablation@2"
CSV_KEYS = ("name", "label", "n", "cos", "sd", "lo", "hi", "delta", "delta_lo", "delta_hi", "p", "p_holm",
            "significant", "note", "same_as", "completed", "steps", "tokens_per_step", "tokens_per_dish",
            "cached_tokens", "model_errors", "complete")


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    interval = row.get("interval") or [None, None]
    delta = row.get("delta_interval") or [None, None]
    return {**row, "lo": interval[0], "hi": interval[1], "delta_lo": delta[0], "delta_hi": delta[1],
            "same_as": " ".join(row.get("same_as") or [])}


def save_table(rows: list[dict[str, Any]], base: EvalConfig, seeds: list[int], alpha: float, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    test = {"test": "paired t-test against the full prompt, paired by seed", "correction": "holm", "alpha": alpha}
    payload = {"schema": SCHEMA, "config": {k: v for k, v in base.to_dict().items() if k != "seed"}, "seeds": seeds,
               **test, "rows": rows}
    tmp = out_dir / "ablation.json.tmp"
    tmp.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    os.replace(tmp, out_dir / "ablation.json")
    with (out_dir / "ablation.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_KEYS)
        for row in rows:
            flat = _flat(row)
            writer.writerow(["" if flat.get(k) is None else flat[k] for k in CSV_KEYS])


def plot_ablation(rows: list[dict[str, Any]], target: Path, title: str) -> None:
    """A bar per configuration (mean CoS) with its 95 % t interval, the full prompt's level as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in rows if r.get("cos") is not None]
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(shown), 3.2))
    lows = [r["cos"] - r["interval"][0] for r in shown]
    highs = [r["interval"][1] - r["cos"] for r in shown]
    ax.bar([r["label"] for r in shown], [r["cos"] for r in shown], color="#4c72b0", yerr=[lows, highs],
           capsize=3, error_kw={"linewidth": 0.8})
    full = next((r["cos"] for r in shown if r["name"] == "full"), None)
    if full is not None:
        ax.axhline(full, color="#dd8452", linestyle="--", linewidth=1, label=f"full prompt {full:.3f}")
        ax.legend(fontsize=7)
    ax.set_ylabel("CoS (95 % t interval over seeds)" if any(r["n"] > 1 for r in shown) else "CoS")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.tick_params(axis="x", labelrotation=35, labelsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    plt.close(fig)
