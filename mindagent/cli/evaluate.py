"""`mindagent eval`: the paper's sweep (levels x agents x 5 taus x 3 episodes) with any dispatcher."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from mindagent.cli import options as o
from mindagent.cli.common import err
from mindagent.setup_run import make_brain

# tables are wide: when piped (no terminal to measure) do not squeeze them into 80 columns
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def print_tables(results: object, compare: bool) -> None:
    from mindagent.evaluation import Results

    assert isinstance(results, Results)
    cells = results.cells()
    paper = bound = None
    if compare:
        from mindagent.paper import GPT4_COS

        paper = GPT4_COS
        try:
            from mindagent.planners.upper_bound import cos_upper_bound
        except ImportError:  # pragma: no cover - the bound ships with the planners
            cos_upper_bound = None
        bound = cos_upper_bound
    for agents in results.config.agents:
        table = Table(title=f"{agents} agents, {results.config.model}: completed / total per tau",
                      caption="CoS: reference denominator; CoS\u2020: the paper's formula (no still-active orders)")
        table.add_column("level", no_wrap=True)
        for tau in results.config.taus:
            table.add_column(f"{tau:g}", no_wrap=True)
        table.add_column("CoS")
        table.add_column("CoS\u2020")
        if paper is not None:
            table.add_column("GPT-4")
        if bound is not None:
            table.add_column("bound")
        for cell in (c for c in cells if c["agents"] == agents):
            taus = {t["tau"]: t for t in cell["taus"]}  # type: ignore[union-attr]
            row = [str(cell["level"])]
            for tau in results.config.taus:
                t = taus.get(tau)
                row.append(f"{t['completed']}/{t['completed'] + t['failed'] + t['active']}" if t else "-")
            row += [f"{cell['cos']:.3f}", f"{cell['cos_paper']:.3f}"]
            if paper is not None:
                value = paper.get(agents, {}).get(str(cell["level"]))
                row.append(f"{value:.3f}" if value is not None else "-")
            if bound is not None:
                row.append(f"{bound(str(cell['level']), agents, results.config.rules):.3f}")
            table.add_row(*row)
        out.print(table)


def evaluate(
    levels: str = typer.Option("paper", help="paper | all | comma-separated names or paths"),
    agents: str = typer.Option("2,3,4", help="comma-separated team sizes"),
    episodes: int = typer.Option(3, min=1, max=20),
    taus: str = typer.Option("1.0,1.5,2.0,2.5,3.0", help="comma-separated tau values"),
    seed: int = typer.Option(0),
    steps: int = typer.Option(60, min=1),
    domain: str = typer.Option("cuisineworld", help="cuisineworld or minecraft"),
    model: str = o.MODEL, base_url: str | None = o.BASE_URL, model_path: str | None = o.MODEL_PATH,
    temperature: float = o.TEMPERATURE, max_tokens: int = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    repair: int = o.REPAIR, rules: str = o.RULES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK, memory: int = o.MEMORY,
    out_file: Path | None = typer.Option(None, "--out", help="results JSON (CSV beside it); resumed if it exists"),
    concurrency: int = typer.Option(1, min=1, max=64, help="taus run at once (API backends)"),
    record: Path | None = typer.Option(None, "--record", help="write every episode's recording into this folder"),
    compare: str | None = typer.Option(None, "--compare", help="'paper': show the paper's GPT-4 CoS and our upper bound"),
) -> None:
    """Run the CoS sweep and print per-tau tables like the paper's Tables 6-8."""
    from mindagent.evaluation import EvalConfig, Results, parse_levels, run_eval

    if domain == "minecraft":
        from mindagent.cli.minecraft_cmds import eval_minecraft

        eval_minecraft(agents=int(agents.split(",")[0]), episodes=episodes, seed=seed, steps=steps, model=model,
                       base_url=base_url, model_path=model_path, out_file=out_file)
        return
    try:
        config = EvalConfig(
            levels=parse_levels(levels), agents=[int(a) for a in agents.split(",")], model=model,
            taus=[float(t) for t in taus.split(",")], episodes=episodes, seed=seed, steps=steps, rules=rules,
            prompt=o.prompt_config(no_knowledge, no_recipes, no_instructions, demo, demo_agents, no_feedback, memory),
            repair=repair, record_dir=str(record) if record else None)
        results = Results(out_file, config)
        make_brain(model, seed=seed, base_url=base_url, model_path=model_path)  # fail fast on a bad spec
    except (ValueError, OSError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None

    def factory():  # one brain per unit: API clients are cheap, the local model is cached per process
        return make_brain(model, seed=seed, base_url=base_url, model_path=model_path, temperature=temperature,
                          max_tokens=max_tokens, timeout_s=timeout)

    todo = sum(1 for lv in config.levels for a in config.agents for t in config.taus if not results.has(lv, a, t))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"eval {model}", total=todo * config.episodes)
        asyncio.run(run_eval(config, results, factory, concurrency, on_episode=lambda: bar.advance(task)))
    print_tables(results, compare == "paper")
    if out_file is not None:
        out.print(f"results: {out_file} and {out_file.with_suffix('.csv')}")
    if results.failures:
        for line in results.failures:
            err.print(f"[red]failed:[/red] {line}")
        err.print("the other units are saved; run the same command again to retry the failed ones")
        raise typer.Exit(1)


def plot(results: Path = typer.Argument(..., exists=True, dir_okay=False),
         out_png: Path = typer.Option(None, "--out", help="PNG path (default: beside the results file)")) -> None:
    """Draw collaboration-efficiency curves (completion rate against tau) to a PNG."""
    from mindagent.plots import plot_results

    target = out_png or results.with_suffix(".png")
    plot_results(results, target)
    out.print(f"wrote {target}")


def register(app: typer.Typer) -> None:
    app.command("eval")(evaluate)
    app.command("plot")(plot)
