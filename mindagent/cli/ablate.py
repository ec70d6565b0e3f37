"""`mindagent ablate`: the paper's prompt ablations for one model, as one resumable command."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from mindagent.cli import options as o
from mindagent.cli.common import err, fail
from mindagent.core.domain import SpecError
from mindagent.dispatch.brains import Brain, LLMBrain, RuleBrain, generation_settings, make_brain
from mindagent.evaluation.ablation import ABLATIONS, plot_ablation, run_ablation
from mindagent.evaluation.sweep import EvalConfig
from mindagent.llm.base import LLMError
from mindagent.llm.ratelimit import RateGate, RateLimits

_NAMES = ", ".join(a.name for a in ABLATIONS)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def ablate(
    domain_name: str = o.DOMAIN, model: str = o.MODEL,
    levels: str = typer.Option("level_3", help="comma-separated levels (the paper used level_3)"),
    agents: str = typer.Option("2", help="comma-separated team sizes"),
    taus: str = typer.Option("1.0,1.5,2.0,2.5,3.0", help="comma-separated tau values"),
    episodes: int = typer.Option(3, min=1, max=20), steps: int = typer.Option(60, min=1), seed: int = typer.Option(0),
    only: str | None = typer.Option(None, "--only", help="comma-separated configurations (default: all: "
                                    + _NAMES + ")"),
    base_url: str | None = o.BASE_URL, model_path: str | None = o.MODEL_PATH, temperature: float = o.TEMPERATURE,
    max_tokens: int | None = o.MAX_TOKENS, timeout: float = o.TIMEOUT, threads: int | None = o.THREADS,
    rules: str = o.RULES, repair: int = o.REPAIR,
    out_dir: Path = typer.Option(Path("results/ablation"), "--out", help="folder: one results file per "
                                 "configuration, ablation.json/.csv and ablation.png; resumed if it exists"),
    concurrency: int | None = typer.Option(None, min=1, max=64,
                                           help="model requests (and cells) at once for the whole run (default 1)"),
    rpm: int | None = typer.Option(None, "--rpm", min=1, max=1_000_000,
                                   help="model requests per minute for the whole run, retries included "
                                        "(default: no limit)"),
    tpm: int | None = typer.Option(None, "--tpm", min=1, max=1_000_000_000,
                                   help="model tokens per minute for the whole run, retries included (a request "
                                        "weighs its prompt's estimate plus --max-tokens; default: no limit)"),
    baseline: list[str] = typer.Option([], "--baseline", help="another dispatcher run on the full prompt's "
                                       "protocol and printed as a row beside the model's (repeatable): a rule "
                                       "chooser such as rule:first (needs --dispatch goals or --mode taskgraph) "
                                       "or a built-in policy such as planner"),
    dispatch: str = o.DISPATCH, team: str = o.TEAM,
) -> None:
    """Run the prompt ablations (full, no knowledge, few-step demo, no demo, no feedback, memory 0,
    demo with 2/3/4 agents) and print the paper-style table with each one's difference from full."""
    domain = o.domain_or_exit(domain_name)
    if not domain.has_demo:
        fail(f"{domain.name} has no one-shot demonstration, so the paper's prompt ablations do not apply")
    try:
        level_list = domain.parse_levels(levels)
        team_sizes = [int(a) for a in agents.split(",") if a.strip()]
        tau_list = [float(t) for t in taus.split(",") if t.strip()]
    except (SpecError, ValueError) as exc:
        fail(str(exc))
    names = [n.strip() for n in only.split(",")] if only else None
    unknown = [n for n in names or [] if n not in {a.name for a in ABLATIONS}]
    if unknown:
        fail(f"unknown configuration {unknown[0]!r}; known: {', '.join(a.name for a in ABLATIONS)}")
    for size in team_sizes:
        o.game_spec(domain.name, level_list[0], size, tau_list[0], seed, rules, None)
    try:
        probe = make_brain(model, domain, seed=seed, base_url=base_url, model_path=model_path, threads=threads)
    except (SpecError, LLMError) as exc:
        fail(str(exc))
    if not isinstance(probe, LLMBrain):
        fail(f"{model} reads no prompt; ablations need a language model")
    settings = o.dispatch_settings(dispatch, team=team)
    for other in baseline:
        try:
            brain = make_brain(other, domain, seed=seed)
        except (SpecError, LLMError) as exc:
            fail(f"--baseline: {exc}")
        if isinstance(brain, RuleBrain) and not settings.has_menu:
            fail(f"--baseline {other} chooses from a menu: add --dispatch goals or --mode taskgraph")
        if isinstance(brain, LLMBrain):
            fail(f"--baseline {other} is a language model; a baseline is a rule chooser or a built-in policy")
    base = EvalConfig(levels=level_list, agents=team_sizes, model=model, taus=tau_list, episodes=episodes, seed=seed,
                      steps=steps, rules=rules, repair=repair, domain=domain.name, dispatch=settings,
                      generation=generation_settings(model, base_url=base_url, temperature=temperature,
                                                     max_tokens=max_tokens, brain=probe))

    limits = RateLimits(rpm=rpm, concurrency=concurrency, tpm=tpm)
    gate = RateGate(limits) if limits.limited else None  # one budget for every configuration's brains

    def factory() -> Brain:
        return make_brain(model, domain, seed=seed, base_url=base_url, model_path=model_path, temperature=temperature,
                          max_tokens=max_tokens, timeout_s=timeout, threads=threads, gate=gate)

    def baseline_factory(other: str) -> Callable[[], Brain]:
        return lambda: make_brain(other, domain, seed=seed)

    count = (len(names) if names else len(ABLATIONS)) + len(baseline)
    total = count * len(level_list) * len(team_sizes) * len(tau_list) * episodes
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"ablate {model}", total=total)
        try:
            rows, failures = asyncio.run(run_ablation(base, out_dir, factory, names, lambda: bar.advance(task),
                                                      concurrency=concurrency or 1,
                                                      baselines=[(b, baseline_factory(b)) for b in baseline]))
        except ValueError as exc:  # a results file made with other settings
            fail(str(exc))
    table = Table(title=f"ablations: {model}, {', '.join(level_list)}, {agents} agents",
                  caption="CoS averaged over the cells; tokens are prompt + output")
    for column in ("configuration", "CoS", "vs full", "dishes", "tokens/step", "tokens/dish", "model errors"):
        table.add_column(column, no_wrap=True)
    for r in rows:
        cos = "-" if r["cos"] is None else f"{r['cos']:.3f}" + ("" if r["complete"] else " (partial)")
        delta = "" if r["name"] == "full" or r["delta"] is None else f"{r['delta']:+.3f}"
        table.add_row(r["label"], cos, delta, str(r["completed"]), str(r["tokens_per_step"] or "-"),
                      str(r["tokens_per_dish"] or "-"), str(r["model_errors"]))
    out.print(table)
    plot_ablation(rows, out_dir / "ablation.png", f"{model} on {', '.join(level_list)}, {agents} agents")
    out.print(f"table: {out_dir / 'ablation.csv'}, plot: {out_dir / 'ablation.png'}")
    if failures:
        for line in failures:
            err.print(f"[red]failed:[/red] {line}")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("ablate")(ablate)
