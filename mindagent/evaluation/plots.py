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

import logging
import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mindagent.evaluation.readers import ResultsError, RunCell, SeedSummary, read_results

log = logging.getLogger(__name__)

PANEL_SIZE = (3.2, 2.6)  # inches per level panel
COLUMNS = 4
#: Level panels on one figure (one PNG page): a page's cost is bounded, so the whole is linear.
PAGE_LEVELS = 24
#: Most levels one plot draws (10 pages); a file with more is refused rather than drawn for minutes.
MAX_LEVELS = 240


def _level_key(name: str) -> tuple[int, str]:
    tail = name.rsplit("_", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (10**6, name)


def page_path(out: Path, page: int) -> Path:
    """The PNG of page `page` (0-based): ``efficiency.png``, ``efficiency.p2.png``, ..."""
    return out if page == 0 else out.with_name(f"{out.stem}.p{page + 1}{out.suffix or '.png'}")


def plot_results(results_json_path: str | Path, out_png: str | Path, title: str | None = None,
                 on_page: Callable[[int, int], None] | None = None) -> Path:
    """Draw completion rate vs tau per level and agent count; returns the (first) PNG path.

    At most `PAGE_LEVELS` level panels go on one figure, further levels on further pages
    (`page_path`), so the time grows linearly with the levels; more than `MAX_LEVELS` are refused.
    `on_page(done, pages)` is told after each page (a progress bar)."""
    import matplotlib

    matplotlib.use("Agg")
    from mindagent.core import registry as domains

    results = read_results(Path(results_json_path))  # bounded and checked: ResultsError, one line
    if isinstance(results, SeedSummary):
        raise ResultsError(f"{results_json_path}: a seed summary has no per-tau rates; plot one of its per-seed files")
    config = results.config
    figures = domains.get(str(config.get("domain") or domains.default_domain())).reference_figures()
    by_level: dict[str, list[RunCell]] = defaultdict(list)
    for cell in results.cells:
        by_level[cell.level].append(cell)
    levels = sorted(by_level, key=_level_key)
    if not levels:
        raise ValueError(f"{results_json_path}: no cells to plot")
    if len(levels) > MAX_LEVELS:
        raise ResultsError(f"{results_json_path}: {len(levels)} levels, more than the {MAX_LEVELS} a plot takes")
    reference = figures if config.get("rules", "reference") == "reference" else None
    who = config.get("model") or config.get("policy") or "dispatcher"
    heading = title or f"Collaboration efficiency: {who} ({config.get('rules', 'reference')} rules)"
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    pages = [levels[i:i + PAGE_LEVELS] for i in range(0, len(levels), PAGE_LEVELS)]
    for number, page in enumerate(pages):
        suffix = f" ({number + 1}/{len(pages)})" if len(pages) > 1 else ""
        _draw_page(page, by_level, reference, heading + suffix, page_path(out, number))
        if on_page is not None:
            on_page(number + 1, len(pages))
    return out


def _draw_page(levels: list[str], by_level: dict[str, list[RunCell]], reference: Any, heading: str,
               target: Path) -> None:
    """One figure of up to `PAGE_LEVELS` panels, saved to `target`."""
    import matplotlib.pyplot as plt

    cols = min(COLUMNS, len(levels))
    rows = math.ceil(len(levels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_SIZE[0] * cols, PANEL_SIZE[1] * rows),
                             squeeze=False, sharey=True)
    for ax, level in zip(axes.flat, levels, strict=False):  # the grid may have spare panels
        for cell in sorted(by_level[level], key=lambda c: c.agents):
            taus = sorted(cell.taus, key=lambda t: t.tau)
            label = f"{cell.agents} agents: CoS {cell.cos:.2f}"
            gpt4 = reference.published(level, cell.agents) if reference is not None else None
            if gpt4 is not None:
                label += f" (GPT-4 {gpt4:.2f})"
            ax.plot([t.tau for t in taus], [t.rate for t in taus], marker="o", label=label)
        ax.set_title(level)
        ax.set_xlabel("tau (task interval factor)")
        ax.set_ylim(0.0, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    for ax in axes[:, 0]:
        ax.set_ylabel("completion rate")
    for ax in list(axes.flat)[len(levels):]:
        ax.axis("off")
    fig.suptitle(heading)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    plt.close(fig)
    log.info("wrote %s", target)
