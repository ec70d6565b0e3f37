"""`mindagent compare A.json B.json` and the tables of a many-seed `eval`.

A cell of a sweep is a sample over order streams once the sweep ran on several seeds; these
tables print it as mean, 95 % bootstrap interval and per-seed values, and say where a published
single-stream figure falls. `compare` pairs two result files cell by cell on their common seeds and
marks the differences the sign-flip permutation test finds significant (`mindagent.evaluation.stats`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mindagent.cli.common import err, fail
from mindagent.core import registry as domains
from mindagent.core.domain import RunProtocol
from mindagent.evaluation.seeds import SeedSweep, per_seed_values
from mindagent.evaluation.stats import ALPHA, mean, paired_test, verdict

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)
#: Paired seeds (over all cells) from which `compare` shows a progress bar on stderr.
PROGRESS_FROM = 20_000


def print_seed_tables(sweep: SeedSweep, compare: bool) -> None:
    """Per team size: mean, interval and per-seed CoS; with `compare`, the published figure, its
    place against our interval, and the upper bound's mean over the same seeds."""
    config = sweep.config
    reference = domains.get(config.domain).reference_figures() if compare else None
    cells = sweep.cells()
    for agents in config.agents:
        table = Table(title=f"{config.domain}, {agents} agents, {config.model}: CoS over seeds "
                            f"{','.join(map(str, sweep.seeds))}",
                      caption="mean over seeds; 95 % percentile bootstrap interval of the mean")
        for col in ("level", "mean", "95 % interval", "per seed"):
            table.add_column(col, no_wrap=col != "per seed")
        if reference is not None:
            table.add_column(reference.published_name)
            table.add_column("verdict")
            if reference.bound is not None:
                table.add_column("bound (mean)")
        for cell in (c for c in cells if c["agents"] == agents):
            lo, hi = cell["interval"]
            row = [str(cell["level"]), f"{cell['mean']:.3f}", f"{lo:.3f}-{hi:.3f}",
                   " ".join(f"{v:.3f}" for v in cell["values"].values())]
            if reference is not None:
                figure = reference.published(str(cell["level"]), agents)
                row.append("-" if figure is None else f"{figure:.3f}")
                # "above": the published figure is above our interval (we are below it)
                row.append("-" if figure is None else verdict(figure, (lo, hi)))
                if reference.bound is not None:
                    bounds = [reference.bound(str(cell["level"]), agents,
                                              RunProtocol(config.rules, s, config.episodes, config.steps,
                                                          tuple(config.taus)))
                              for s in sweep.seeds]
                    row.append(f"{sum(bounds) / len(bounds):.3f}")
            table.add_row(*row)
        out.print(table)


def compare(
    first: Path = typer.Argument(..., exists=True, dir_okay=False, help="results A (a run or a --seeds summary)"),
    second: Path = typer.Argument(..., exists=True, dir_okay=False, help="results B, compared with A"),
) -> None:
    """Test two result files cell by cell, paired by seed: which differences are significant."""
    try:
        config_a, a = per_seed_values(first)
        config_b, b = per_seed_values(second)
    except (ValueError, OSError) as exc:  # ResultsError is a ValueError: already one line naming the file
        fail(f"cannot read the results: {exc}")
    for key in ("domain", "rules", "episodes", "steps", "taus"):
        if config_a.get(key) != config_b.get(key):
            out.print(f"[yellow]note:[/yellow] the files differ in {key} ({config_a.get(key)!r} / {config_b.get(key)!r})")
    table = Table(title=f"B = {second.name} against A = {first.name}, paired by seed",
                  caption=f"sign-flip permutation test of the mean difference; * p < {ALPHA}")
    for col in ("level", "agents", "seeds", "A mean", "B mean", "B - A", "95 % interval", "p", ""):
        table.add_column(col, no_wrap=True)
    significant = compared = 0
    cells = [(cell, sorted(set(a[cell]) & set(b[cell]))) for cell in sorted(set(a) & set(b),
                                                                             key=lambda k: (k[1], _level_key(k[0])))]
    work = sum(len(seeds) for _, seeds in cells)
    with Progress(TextColumn("comparing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True, disable=work < PROGRESS_FROM) as bar:
        task = bar.add_task("cells", total=len(cells))
        for cell, seeds in cells:
            bar.advance(task)
            if not seeds:
                continue
            xs = [a[cell][s] for s in seeds]
            ys = [b[cell][s] for s in seeds]
            result = paired_test(xs, ys)
            compared += 1
            significant += result.significant
            lo, hi = result.interval
            table.add_row(cell[0], str(cell[1]), str(len(seeds)), f"{mean(xs):.3f}", f"{mean(ys):.3f}",
                          f"{result.mean_diff:+.3f}", f"{lo:+.3f}..{hi:+.3f}", f"{result.p_value:.3f}",
                          "*" if result.significant else "")
    if not compared:
        fail("the files have no cell with a common seed")
    out.print(table)
    out.print(f"{significant} of {compared} cells differ significantly (p < {ALPHA}); with one seed per cell no "
              "difference can be significant (the smallest p of a sign-flip test on n pairs is 2 / 2^n)")


def _level_key(name: str) -> tuple[int, str]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else -1, name)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
