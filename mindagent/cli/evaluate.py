"""`mindagent eval`: the paper's sweep (levels x agents x taus x episodes) with any dispatcher, any domain."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from mindagent.cli import options as o
from mindagent.cli.common import err, fail
from mindagent.cli.compare import INTERVALS, print_seed_tables
from mindagent.cli.domain_options import single_use_given, with_domain_options
from mindagent.cli.dryrun import dry_run as run_dry
from mindagent.core import registry as domains
from mindagent.core.capabilities import ProcessColumns
from mindagent.core.domain import SpecError
from mindagent.dispatch.brains import MenuBrain, PolicyBrain, generation_settings, make_brain
from mindagent.dispatch.rules import RULE_PREFIX
from mindagent.evaluation.executors import EXECUTORS, BrainRecipe, ExecutorError, default_workers, run_units, with_gate
from mindagent.evaluation.provenance import input_files
from mindagent.evaluation.seeds import SeedSweep
from mindagent.evaluation.stats import parse_seeds
from mindagent.evaluation.sweep import EvalConfig, Results
from mindagent.llm.base import LLMError
from mindagent.llm.ratelimit import RateGate, RateLimits

# tables are wide: when piped (no terminal to measure) do not squeeze them into 80 columns
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def process_columns(results: Results) -> list[tuple[str, str]]:
    """The process metrics the domain asks to see beside the rates of these levels (first seen first)."""
    domain = domains.get(results.config.domain)
    if not isinstance(domain, ProcessColumns):
        return []
    columns: dict[str, str] = {}
    for level in results.config.levels:
        for key, header in domain.eval_columns(level):
            columns.setdefault(key, header)
    return list(columns.items())


def _figure(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def print_tables(results: Results, compare: bool) -> None:
    cells = results.cells()
    extra = process_columns(results)
    reference = domains.get(results.config.domain).reference_figures() if compare else None
    paper = reference.published if reference is not None else None
    bound = reference.bound if reference is not None else None
    for agents in results.config.agents:
        table = Table(title=f"{results.config.domain}, {agents} agents, {results.config.model}: completed / total per tau",
                      caption="CoS: reference denominator; CoS\u2020: the paper's formula (no still-active orders)")
        table.add_column("level", no_wrap=True)
        for tau in results.config.taus:
            table.add_column(f"{tau:g}", no_wrap=True)
        table.add_column("CoS")
        table.add_column("CoS\u2020")
        for _, header in extra:
            table.add_column(header)
        if reference is not None:
            table.add_column(reference.published_name)
        if bound is not None:
            table.add_column("bound")
        for cell in (c for c in cells if c["agents"] == agents):
            taus = {t["tau"]: t for t in cell["taus"]}
            row = [str(cell["level"])]
            for tau in results.config.taus:
                t = taus.get(tau)
                broken = (cell["level"], agents, tau) in results.failed_units
                row.append(f"{t['completed']}/{t['completed'] + t['failed'] + t['active']}" if t
                           else "failed" if broken else "-")
            row += [f"{cell['cos']:.3f}", f"{cell['cos_paper']:.3f}"]
            process = (cell.get("metrics") or {}).get("process") or {}
            row += [_figure(process.get(key)) for key, _ in extra]
            if paper is not None:
                value = paper(str(cell["level"]), agents)
                row.append(f"{value:.3f}" if value is not None else "-")
            if bound is not None:
                row.append(f"{bound(str(cell['level']), agents, results.config.protocol()):.3f}")
            table.add_row(*row)
        out.print(table)


def evaluate(
    domain: str | None = o.DOMAIN,
    levels: str | None = typer.Option(None, help="all | comma-separated names or paths | a set the domain names "
                                      "(CuisineWorld: paper); default: the domain's own set"),
    agents: str | None = typer.Option(None, help="comma-separated team sizes (default: the domain's; "
                                      "CuisineWorld: 2,3,4)"),
    episodes: int = typer.Option(3, min=1, max=20),
    taus: str | None = typer.Option(None, help="comma-separated tau values (default: the domain's; CuisineWorld: "
                                    "1.0,1.5,2.0,2.5,3.0)"),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, min=1, help="steps per episode (default: the domain's; CuisineWorld: 60)"),
    model: str = o.MODEL, base_url: str | None = o.BASE_URL, grammar_field: str = o.GRAMMAR_FIELD,
    model_path: str | None = o.MODEL_PATH,
    temperature: float = o.TEMPERATURE, max_tokens: int | None = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    repair: int = o.REPAIR, rules: str = o.RULES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str | None = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK,
    memory: int = o.MEMORY, memory_budget: int = o.MEMORY_BUDGET, dispatch: str = o.DISPATCH,
    plan_steps: int = o.PLAN_STEPS, goal_every: int = o.GOAL_EVERY,
    team: str = o.TEAM, control: str | None = o.CONTROL, partners: str = o.PARTNERS,
    subtask_executor: str = o.SUBTASK_EXECUTOR, threads: int | None = o.THREADS,
    domain_options: dict[str, object] | None = None,
    out_file: Path | None = typer.Option(None, "--out", help="results JSON (CSV beside it); resumed if it exists"),
    concurrency: int | None = typer.Option(None, min=1, max=64,
                                           help="model requests at once for the whole sweep (default 1 in this "
                                                "process, one per worker with --workers / Ray)"),
    rpm: int | None = typer.Option(None, "--rpm", min=1, max=1_000_000,
                                   help="model requests per minute for the whole sweep, all workers and retries "
                                        "included (default: no limit)"),
    tpm: int | None = typer.Option(None, "--tpm", min=1, max=1_000_000_000,
                                   help="model tokens per minute for the whole sweep, all workers and retries included "
                                        "(a request weighs its prompt's estimate plus --max-tokens, as providers "
                                        "meter it; default: no limit)"),
    record: Path | None = typer.Option(None, "--record", help="write every episode's recording into this folder"),
    compare: str | None = typer.Option(None, "--compare", help="'paper': show the paper's figures and our upper bound"),
    seeds: str | None = typer.Option(None, "--seeds", help="run on several order streams (0-9, 0,3,5): mean, "
                                     "95 % interval and per-seed CoS per cell; one results file per seed"),
    workers: int | None = typer.Option(None, "--workers", min=1, max=256,
                                       help="processes running units at once (default: the cores for built-in "
                                            "policies, 1 for language models)"),
    interval: str = typer.Option("t", "--interval", help="with --seeds: t (the t interval of the mean, "
                                 "default: it covers at 5 seeds) or bootstrap (percentile; narrow at small n)"),
    retries: int = typer.Option(4, "--retries", min=0, max=20, help="retries of a model call after a rate limit, "
                                "timeout, 5xx or dropped connection (a paid run may want more)"),
    max_retry_after: float = typer.Option(30.0, "--max-retry-after", min=0.0, max=3600.0,
                                          help="longest wait, in seconds, a server's Retry-After may impose "
                                               "before a retry (raise --timeout with it: it bounds the whole call)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the calls, tokens (with the cacheable share) and "
                                 "an estimated cost; run nothing"),
    prices: Path | None = typer.Option(None, "--prices", exists=True, dir_okay=False,
                                       help="with --dry-run: a price table in the shipped format (USD per million "
                                            "tokens), instead of the shipped one"),
    executor: str = typer.Option("local", "--executor", help="local (processes on this machine) or ray"),
    address: str | None = typer.Option(None, "--address", help="a Ray cluster to run on (--executor ray)"),
) -> None:
    """Run the CoS sweep and print per-tau tables like the paper's Tables 6-8."""
    from mindagent.evaluation.sweep import run_eval

    chosen = o.domain_or_exit(domain)
    agents, taus, steps = agents or chosen.eval_agents, taus or chosen.eval_taus, steps or chosen.eval_steps
    try:
        level_list = chosen.parse_levels(levels or chosen.default_levels)
        team_sizes = [int(a) for a in agents.split(",") if a.strip()]
        tau_list = [float(t) for t in taus.split(",") if t.strip()]
        if not all(0.1 <= t <= 1000.0 for t in tau_list):  # also refuses inf and nan
            raise ValueError("--taus must lie between 0.1 and 1000")
    except (SpecError, ValueError) as exc:
        fail(str(exc))
    if not team_sizes or not tau_list:
        fail("--agents and --taus need at least one value each")
    if compare not in (None, "paper"):
        fail("--compare takes 'paper'")
    first = o.game_spec(chosen.name, level_list[0], team_sizes[0], tau_list[0], seed, rules, None, None, domain_options)
    for size in team_sizes[1:]:
        o.game_spec(chosen.name, level_list[0], size, tau_list[0], seed, rules, None, None, domain_options)
    for tau in tau_list[1:]:  # a tau the domain refuses fails here, not unit by unit inside the sweep
        o.game_spec(chosen.name, level_list[0], team_sizes[0], tau, seed, rules, None, None, domain_options)
    o.print_world_notes(first)
    single = single_use_given(dict(domain_options or {}))
    if single and (concurrency or 1) > 1:
        fail(f"{single[0]} names one resource; units run at once would share it (use --concurrency 1)")
    if interval not in INTERVALS:
        fail(f"--interval takes one of: {', '.join(INTERVALS)}")
    if executor not in EXECUTORS:
        fail(f"--executor takes one of: {', '.join(EXECUTORS)}")
    try:
        seed_list = parse_seeds(seeds) if seeds is not None else None
    except ValueError as exc:
        fail(f"--seeds: {exc}")
    no_model = model in chosen.policies or model.startswith(RULE_PREFIX)  # no requests, no tokens: run wide
    n_workers = workers or (default_workers() if no_model else 1)
    if single and (n_workers > 1 or executor != "local"):
        fail(f"{single[0]} names one resource; units run at once would share it (use --workers 1)")
    config = EvalConfig(
        levels=level_list, agents=team_sizes, model=model, taus=tau_list, episodes=episodes, seed=seed, steps=steps,
        rules=rules, prompt=o.prompt_config(chosen.name, no_knowledge, no_recipes, no_instructions, demo, demo_agents,
                                            no_feedback, memory, memory_budget),
        repair=repair, record_dir=str(record) if record else None, domain=chosen.name, options=dict(first.options),
        dispatch=o.dispatch_settings(dispatch, plan_steps, goal_every, team, control, partners, subtask_executor))
    if dry_run:
        try:
            config.files = input_files(config.levels, config.options)
            run_dry(config, seed_list or [seed], max_tokens, no_model, prices, out_file, several=seed_list is not None)
        except (SpecError, ValueError, OSError) as exc:  # a bad price table is a ResultsError: one line
            fail(str(exc))
        return
    try:
        probe = make_brain(model, chosen, seed=seed, base_url=base_url, model_path=model_path, threads=threads,
                           grammar_field=grammar_field)
        config.generation = generation_settings(model, base_url=base_url, temperature=temperature,
                                                max_tokens=max_tokens, brain=probe, grammar_field=grammar_field)
        if config.dispatch.mode != "step" and isinstance(probe, PolicyBrain):
            fail(f"--dispatch {dispatch} needs a language model; {model} decides every step itself")
        if isinstance(probe, MenuBrain) and not config.dispatch.has_menu:
            fail(f"{model} chooses from a menu: add --dispatch goals or --mode taskgraph (with the rule executor)")
        if config.dispatch.executor == "model" and isinstance(probe, PolicyBrain):
            fail(f"--subtask-executor model needs a language model; {model} decides every command itself")
        config.files = input_files(config.levels, config.options)
        results = Results(out_file, config) if seed_list is None else None
        sweep = SeedSweep(config, seed_list, out_file) if seed_list is not None else None
    except (SpecError, LLMError, ValueError, OSError) as exc:
        fail(str(exc))

    def recipe_for(run: EvalConfig) -> BrainRecipe:  # one brain per unit, built where the unit runs
        return dataclasses.replace(recipe, seed=run.seed)

    limits = None if no_model else RateLimits(rpm=rpm, concurrency=concurrency, tpm=tpm)
    recipe = BrainRecipe(model, chosen.name, seed, base_url, model_path, temperature, max_tokens, timeout, threads,
                         limits=limits, retries=retries, max_retry_after_s=max_retry_after, grammar_field=grammar_field)
    runs = list(sweep.runs.values()) if sweep is not None else [results] if results is not None else []
    units = [(r, lv, a, t) for r in runs for lv in config.levels for a in config.agents for t in config.taus
             if not r.has(lv, a, t)]
    for run in runs:  # a unit that failed mid-episode goes on from where it stopped
        for (lv, a, t), checkpoint in run.checkpoints.items():
            err.print(f"continuing {lv}, {a} agents, tau {t:g}{f' (seed {run.config.seed})' if sweep else ''} from "
                      f"episode {checkpoint.episode}, step {checkpoint.step}: {len(checkpoint.answers)} answers "
                      "replayed, not asked again")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"eval {model}", total=len(units) * config.episodes)
        if n_workers == 1 and executor == "local":  # in this process: --concurrency for API backends
            if limits is not None and limits.limited:  # one budget for every unit of every seed
                recipe = with_gate(recipe, RateGate(limits))
            for run in runs:
                asyncio.run(run_eval(run.config, run, recipe_for(run.config).make, concurrency or 1,
                                     on_episode=lambda: bar.advance(task)))
        else:
            try:
                run_units(units, recipe_for, n_workers, executor, address,
                          on_unit=lambda _: bar.advance(task, config.episodes))
            except ExecutorError as exc:
                fail(str(exc))
    failures: list[str] = []
    if sweep is not None:
        sweep.save()
        print_seed_tables(sweep, compare == "paper", interval)
        failures = sweep.failures
    elif results is not None:
        print_tables(results, compare == "paper")
        failures = results.failures
    if out_file is not None:
        out.print(f"results: {out_file}" + ("" if sweep else f" and {out_file.with_suffix('.csv')}"))
    if failures:
        for line in failures:
            err.print(f"[red]failed:[/red] {line}")
        err.print("the other units are saved; run the same command again to retry the failed ones")
        raise typer.Exit(1)


def plot(results: Path = typer.Argument(..., exists=True, dir_okay=False),
         out_png: Path = typer.Option(None, "--out", help="PNG path (default: beside the results file)")) -> None:
    """Draw collaboration-efficiency curves (completion rate against tau) to a PNG (a page per 24 levels)."""
    from mindagent.evaluation.plots import plot_results

    target = out_png or results.with_suffix(".png")
    with Progress(TextColumn("plotting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task("pages", total=None)
        try:
            plot_results(results, target, on_page=lambda done, pages: bar.update(task, completed=done, total=pages))
        except (ValueError, SpecError, OSError) as exc:  # ResultsError and JSON errors are ValueErrors: one line
            fail(f"cannot plot: {exc}")
    out.print(f"wrote {target}")


def register(app: typer.Typer) -> None:
    app.command("eval")(with_domain_options("eval")(evaluate))
    app.command("plot")(plot)
