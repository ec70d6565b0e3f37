"""Collaboration-efficiency curves from a results file, like the paper's Figures 3 and 21.

One panel per level: completion rate against tau for each team size (one line per agent count),
so how much a bigger team helps and how fast the rate falls as orders come faster can be read at
a glance. The legend gives each line's CoS and, for the paper's cells under the reference rules,
the paper's figure for that cell (the domain's `reference_figures`).

Results file (as `mindagent.evaluation.sweep` writes it; `cos_paper` is the paper's stated formula)::

    {"config": {"model": "planner", "rules": "reference", ...},
     "cells": [{"level": "level_3", "agents": 2, "cos": 0.8, "cos_paper": 0.9,
                "taus": [{"tau": 1.0, "completed": 10, "failed": 16, "active": 0, "rate": 0.38}, ...]}]}

Example::

    plot_results("results.json", "efficiency.png")
"""

from __future__ import annotations

import json
import logging
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PANEL_SIZE = (3.2, 2.6)  # inches per level panel
COLUMNS = 4


def _level_key(name: str) -> tuple[int, str]:
    tail = name.rsplit("_", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (10**6, name)


def plot_results(results_json_path: str | Path, out_png: str | Path, title: str | None = None) -> Path:
    """Draw completion rate vs tau per level and agent count; returns the PNG path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mindagent.core import registry as domains

    data: dict[str, Any] = json.loads(Path(results_json_path).read_text(encoding="utf-8"))
    cells = data.get("cells", [])
    config = data.get("config", {})
    figures = domains.get(str(config.get("domain") or domains.default_domain())).reference_figures()
    reference = config.get("rules", "reference") == "reference" and figures is not None
    by_level: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for cell in cells:
        by_level[str(cell["level"])].append(cell)
    levels = sorted(by_level, key=_level_key)
    if not levels:
        raise ValueError(f"{results_json_path}: no cells to plot")
    cols = min(COLUMNS, len(levels))
    rows = math.ceil(len(levels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_SIZE[0] * cols, PANEL_SIZE[1] * rows),
                             squeeze=False, sharey=True)
    for ax, level in zip(axes.flat, levels, strict=False):  # the grid may have spare panels
        for cell in sorted(by_level[level], key=lambda c: int(c["agents"])):
            taus = sorted(cell.get("taus", []), key=lambda t: float(t["tau"]))
            xs = [float(t["tau"]) for t in taus]
            ys = [float(t["rate"]) for t in taus]
            label = f"{cell['agents']} agents: CoS {float(cell.get('cos', 0.0)):.2f}"
            gpt4 = figures.published(level, int(cell["agents"])) if reference and figures is not None else None
            if gpt4 is not None:
                label += f" (GPT-4 {gpt4:.2f})"
            ax.plot(xs, ys, marker="o", label=label)
        ax.set_title(level)
        ax.set_xlabel("tau (task interval factor)")
        ax.set_ylim(0.0, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    for ax in axes[:, 0]:
        ax.set_ylabel("completion rate")
    for ax in list(axes.flat)[len(levels):]:
        ax.axis("off")
    who = config.get("model") or config.get("policy") or "dispatcher"
    fig.suptitle(title or f"Collaboration efficiency: {who} ({config.get('rules', 'reference')} rules)")
    fig.tight_layout()
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    log.info("wrote %s", out)
    return out
