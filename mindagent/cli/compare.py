"""`mindagent compare A.json B.json` and the tables of a many-seed `eval`.

A cell of a sweep is a sample over order streams once the sweep ran on several seeds. The seed
tables print it as n, mean, spread, an interval of the mean (t by default: the bootstrap covered
83 % at five seeds) and the per-seed values, and place a published single-stream figure against a
prediction interval of single streams, in words that say who is above whom.

`compare` pairs two result files cell by cell on their common seeds. Before its table it says how
many seeds the exact sign-flip test would need to reject anything here (its smallest p is 2 / 2^n),
then tests every cell (the paired t-test by default, which can reject at five seeds; `--test
sign-flip` for the exact test) and corrects over the cells with Holm (`--correction none` to turn
it off). Cells whose difference is the same on every seed are marked: they have no spread to
measure, so their p is a limit, not an estimate (`mindagent.evaluation.inference`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mindagent.cli.common import err, fail
from mindagent.core import registry as domains
from mindagent.core.domain import RunProtocol
from mindagent.evaluation.inference import holm, paired_t, place, prediction_interval, sign_flip_seeds_needed
from mindagent.evaluation.seeds import SeedSweep, per_seed_values
from mindagent.evaluation.stats import mean, paired_test

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)
#: Paired seeds (over all cells) from which `compare` shows a progress bar on stderr.
PROGRESS_FROM = 20_000
TESTS = ("t", "sign-flip")
CORRECTIONS = ("holm", "none")
INTERVALS = ("t", "bootstrap")


def print_seed_tables(sweep: SeedSweep, compare: bool, interval: str = "t") -> None:
    """Per team size: n, mean, spread, interval and per-seed CoS; with `compare`, the published
    figure placed against the prediction interval of one stream, and the bound over the same seeds."""
    config = sweep.config
    reference = domains.get(config.domain).reference_figures() if compare else None
    cells = sweep.cells()
    method = "t interval" if interval == "t" else "percentile bootstrap interval (under-covers at small n)"
    caption = f"mean over seeds; sd: spread of the per-seed values; 95 % {method} of the mean"
    if reference is not None:
        caption += (f"; verdict: {reference.published_name} (one stream) against the 95 % prediction interval "
                    f"of one {config.model} stream")
    for agents in config.agents:
        table = Table(title=f"{config.domain}, {agents} agents, {config.model}: CoS over seeds "
                            f"{','.join(map(str, sweep.seeds))}", caption=caption)
        for col in ("level", "n", "mean", "sd", "95 % interval", "per seed"):
            table.add_column(col, no_wrap=col != "per seed")
        if reference is not None:
            table.add_column(reference.published_name)
            table.add_column("verdict")
            if reference.bound is not None:
                table.add_column("bound (mean)")
        for cell in (c for c in cells if c["agents"] == agents):
            values = list(cell["values"].values())
            lo, hi = cell["t_interval"] if interval == "t" else cell["interval"]
            flat = " (no spread)" if cell["sd"] == 0 else ""
            row = [str(cell["level"]), str(len(values)), f"{cell['mean']:.3f}", f"{cell['sd']:.3f}",
                   f"{lo:.3f}-{hi:.3f}{flat}", " ".join(f"{v:.3f}" for v in values)]
            if reference is not None:
                figure = reference.published(str(cell["level"]), agents)
                row.append("-" if figure is None else f"{figure:.3f}")
                row.append("-" if figure is None else place(figure, prediction_interval(values), config.model,
                                                            reference.published_name))
                if reference.bound is not None:
                    bounds = [reference.bound(str(cell["level"]), agents,
                                              RunProtocol(config.rules, s, config.episodes, config.steps,
                                                          tuple(config.taus)))
                              for s in sweep.seeds]
                    row.append(f"{sum(bounds) / len(bounds):.3f}")
            table.add_row(*row)
        out.print(table)


@dataclass(frozen=True, slots=True)
class CellTest:
    level: str
    agents: int
    n: int
    mean_a: float
    mean_b: float
    diff: float
    sd: float
    interval: tuple[float, float]
    p: float
    flat: bool  # the same difference on every seed


def _test_cell(level: str, agents: int, xs: list[float], ys: list[float], test: str) -> CellTest:
    if test == "t":
        t = paired_t(xs, ys)
        return CellTest(level, agents, t.n, mean(xs), mean(ys), t.mean_diff, t.sd_diff, (t.interval.lo, t.interval.hi),
                        t.p_value, t.no_spread)
    s = paired_test(xs, ys)
    diffs = [y - x for x, y in zip(xs, ys, strict=True)]
    return CellTest(level, agents, s.n, mean(xs), mean(ys), s.mean_diff, paired_t(xs, ys).sd_diff, s.interval,
                    s.p_value, len(set(diffs)) == 1)


def compare(
    first: Path = typer.Argument(..., exists=True, dir_okay=False, help="results A (a run or a --seeds summary)"),
    second: Path = typer.Argument(..., exists=True, dir_okay=False, help="results B, compared with A"),
    test: str = typer.Option("t", "--test", help="t: the paired t-test (rejects from 2 seeds when the differences "
                             "vary); sign-flip: the exact sign-flip permutation test (needs many more seeds)"),
    correction: str = typer.Option("holm", "--correction", help="holm: Holm's correction over the cells compared; "
                                   "none: each cell on its own"),
    alpha: float = typer.Option(0.05, "--alpha", min=1e-6, max=0.5, help="significance level"),
) -> None:
    """Test two result files cell by cell, paired by seed: which differences are significant."""
    if test not in TESTS:
        fail(f"--test takes one of: {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        fail(f"--correction takes one of: {', '.join(CORRECTIONS)}")
    try:
        config_a, a = per_seed_values(first)
        config_b, b = per_seed_values(second)
    except (ValueError, OSError) as exc:  # ResultsError is a ValueError: already one line naming the file
        fail(f"cannot read the results: {exc}")
    for key in ("domain", "rules", "episodes", "steps", "taus"):
        if config_a.get(key) != config_b.get(key):
            out.print(f"[yellow]note:[/yellow] the files differ in {key} ({config_a.get(key)!r} / {config_b.get(key)!r})")
    cells = [(cell, sorted(set(a[cell]) & set(b[cell]))) for cell in sorted(set(a) & set(b),
                                                                             key=lambda k: (k[1], _level_key(k[0])))]
    cells = [(cell, seeds) for cell, seeds in cells if seeds]
    if not cells:
        fail("the files have no cell with a common seed")
    tested: list[CellTest] = []
    work = sum(len(seeds) for _, seeds in cells)
    with Progress(TextColumn("comparing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True, disable=work < PROGRESS_FROM) as bar:
        task = bar.add_task("cells", total=len(cells))
        for (level, agents), seeds in cells:
            bar.advance(task)
            tested.append(_test_cell(level, agents, [a[(level, agents)][s] for s in seeds],
                                     [b[(level, agents)][s] for s in seeds], test))
    _print_comparison(first, second, tested, test, correction, alpha)


def _print_comparison(first: Path, second: Path, tested: list[CellTest], test: str, correction: str,
                      alpha: float) -> None:
    m = len(tested)
    corrected = correction == "holm"
    adjusted = holm([c.p for c in tested]) if corrected else [c.p for c in tested]
    fewest = min(c.n for c in tested)
    needed = sign_flip_seeds_needed(m, alpha, corrected)
    name = "paired t-test" if test == "t" else "exact sign-flip permutation test"
    how = f"Holm's correction over {m} cells" if corrected else "no correction over cells"
    out.print(f"test: {name} (--test), {how} (--correction), alpha {alpha:g}; "
              f"{fewest if fewest == max(c.n for c in tested) else f'{fewest}+'} paired seeds per cell")
    out.print(f"the exact sign-flip test can reject here only from {needed} seeds (its smallest p is 2 / 2^n"
              + (f", below alpha / {m} for Holm's first step)" if corrected else ")")
              + ("; the t-test can reject from 2 seeds when the differences vary" if test == "sign-flip" else ""))
    interval = "t interval" if test == "t" else "bootstrap interval"
    table = Table(title=f"B = {second.name} against A = {first.name}, paired by seed",
                  caption=f"{name}; * adjusted p < {alpha:g}; sd: spread of B - A over seeds; 95 % {interval} of "
                          "B - A; 'no spread': B - A was the same (not 0) on every seed, so p is a limit, not an estimate")
    for col in ("level", "agents", "n", "A mean", "B mean", "B - A", "sd", "95 % interval", "p",
                "p (Holm)" if corrected else "p (uncorrected)", "", "note"):
        table.add_column(col, no_wrap=True)
    significant = flat = 0
    for cell, p_adjusted in zip(tested, adjusted, strict=True):
        hit = p_adjusted < alpha
        significant += hit
        same = cell.flat and abs(cell.diff) < 1e-12
        flat += cell.flat and not same
        lo, hi = cell.interval
        table.add_row(cell.level, str(cell.agents), str(cell.n), f"{cell.mean_a:.3f}", f"{cell.mean_b:.3f}",
                      f"{cell.diff:+.3f}", f"{cell.sd:.3f}", f"{lo:+.3f}..{hi:+.3f}", f"{cell.p:.4f}",
                      f"{p_adjusted:.4f}", "*" if hit else "", _note(cell.n, cell.flat, same))
    out.print(table)
    out.print(f"{significant} of {m} cells differ significantly ({name}, "
              + (f"Holm-corrected over {m} cells" if corrected else "uncorrected") + f", alpha {alpha:g})")
    if flat:
        out.print(f"{flat} cell(s) had no spread in B - A (marked 'no spread'): their verdict rests on the "
                  "difference alone; more seeds would measure its spread")
    if fewest < 2:
        out.print("cells with one seed cannot differ significantly under either test: run more seeds (eval --seeds)")


def _note(n: int, flat: bool, same: bool) -> str:
    if n < 2:
        return "one seed: untestable"
    if same:
        return "identical"
    return "no spread" if flat else ""


def _level_key(name: str) -> tuple[int, str]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else -1, name)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
