"""`mindagent ablate`: the paper's prompt ablations for one model, as one resumable study over seeds."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from mindagent.cli import options as o
from mindagent.cli.common import err, fail
from mindagent.core.domain import SpecError
from mindagent.dispatch.brains import Brain, LLMBrain, MenuBrain, ScoredBrain, generation_settings, make_brain
from mindagent.evaluation.ablation import ABLATIONS, AblationError, BrainFor, plan_rows, run_ablation
from mindagent.evaluation.ablation_table import plot_ablation
from mindagent.evaluation.readers import ResultsError
from mindagent.evaluation.stats import parse_seeds
from mindagent.evaluation.sweep import EvalConfig
from mindagent.llm.base import LLMError
from mindagent.llm.ratelimit import RateGate, RateLimits

_NAMES = ", ".join(a.name for a in ABLATIONS)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def ablate(
    domain_name: str = o.DOMAIN, model: str = o.MODEL,
    levels: str = typer.Option("level_3", help="comma-separated levels (the paper used level_3)"),
    agents: str = typer.Option("2", help="comma-separated team sizes"),
    taus: str = typer.Option("1.0,1.5,2.0,2.5,3.0", help="comma-separated tau values"),
    episodes: int = typer.Option(3, min=1, max=20), steps: int = typer.Option(60, min=1), seed: int = typer.Option(0),
    seeds: str | None = typer.Option(None, "--seeds", help="run every configuration on several order streams "
                                     "(0-4, 0,3,5): each row gets n, mean, a 95 % t interval and a paired test "
                                     "against the full prompt (Holm-corrected over the rows); one results file "
                                     "per configuration and seed"),
    alpha: float = typer.Option(0.05, "--alpha", min=1e-6, max=0.5, help="significance level of the tests"),
    only: str | None = typer.Option(None, "--only", help="comma-separated configurations (default: all: "
                                    + _NAMES + "); the full prompt is always run, as every row is tested against it"),
    base_url: str | None = o.BASE_URL, grammar_field: str = o.GRAMMAR_FIELD, model_path: str | None = o.MODEL_PATH,
    temperature: float = o.TEMPERATURE, max_tokens: int | None = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    threads: int | None = o.THREADS, rules: str = o.RULES, repair: int = o.REPAIR,
    out_dir: Path = typer.Option(Path("results/ablation"), "--out", help="folder: the results files of every "
                                 "configuration, ablation.json/.csv and ablation.png; resumed if it exists"),
    record: Path | None = typer.Option(None, "--record", help="write every episode's recording into this folder "
                                       "(a sub-folder per configuration)"),
    concurrency: int | None = typer.Option(None, min=1, max=64,
                                           help="model requests (and cells) at once for the whole run (default 1)"),
    rpm: int | None = typer.Option(None, "--rpm", min=1, max=1_000_000,
                                   help="model requests per minute for the whole run, retries included "
                                        "(default: no limit)"),
    tpm: int | None = typer.Option(None, "--tpm", min=1, max=1_000_000_000,
                                   help="model tokens per minute for the whole run, retries included (a request "
                                        "weighs its prompt's estimate plus --max-tokens; default: no limit)"),
    retries: int = typer.Option(4, "--retries", min=0, max=20, help="retries of a model call after a rate limit, "
                                "timeout, 5xx or dropped connection"),
    max_retry_after: float = typer.Option(30.0, "--max-retry-after", min=0.0, max=3600.0,
                                          help="longest wait, in seconds, a server's Retry-After may impose"),
    baseline: list[str] = typer.Option([], "--baseline", help="another dispatcher run on the full prompt's "
                                       "protocol and printed as a row beside the model's (repeatable): a rule "
                                       "chooser such as rule:first (needs --dispatch goals or --mode taskgraph) "
                                       "or a built-in policy such as planner"),
    dispatch: str = o.DISPATCH, team: str = o.TEAM,
) -> None:
    """Run the prompt ablations (full, no knowledge, few-step demo, no demo, no feedback, memory 0,
    demo with 2/3/4 agents) and print the paper-style table: each row's CoS with its interval over
    seeds, its difference from the full prompt and the paired test of that difference."""
    domain = o.domain_or_exit(domain_name)
    if not domain.has_demo:
        fail(f"{domain.name} has no one-shot demonstration, so the paper's prompt ablations do not apply")
    try:
        level_list = domain.parse_levels(levels)
        team_sizes = list(dict.fromkeys(int(a) for a in agents.split(",") if a.strip()))
        tau_list = list(dict.fromkeys(float(t) for t in taus.split(",") if t.strip()))
    except (SpecError, ValueError) as exc:
        fail(str(exc))
    try:
        seed_list = parse_seeds(seeds) if seeds is not None else None
    except ValueError as exc:
        fail(f"--seeds: {exc}")
    if not team_sizes or not tau_list:
        fail("--agents and --taus need at least one value each")
    names = [n.strip() for n in only.split(",") if n.strip()] if only else None
    unknown = [n for n in names or [] if n not in {a.name for a in ABLATIONS}]
    if unknown:
        fail(f"unknown configuration {unknown[0]!r}; known: {', '.join(a.name for a in ABLATIONS)}")
    for size in team_sizes:
        o.game_spec(domain.name, level_list[0], size, tau_list[0], seed, rules, None)
    try:
        probe = make_brain(model, domain, seed=seed, base_url=base_url, model_path=model_path, threads=threads,
                           grammar_field=grammar_field)
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
        if isinstance(brain, MenuBrain) and not settings.has_menu:
            fail(f"--baseline {other} chooses from a menu: add --dispatch goals or --mode taskgraph")
        if isinstance(brain, LLMBrain | ScoredBrain):
            fail(f"--baseline {other} is a language model; a baseline is a rule chooser or a built-in policy")
    base = EvalConfig(levels=level_list, agents=team_sizes, model=model, taus=tau_list, episodes=episodes, seed=seed,
                      steps=steps, rules=rules, repair=repair, domain=domain.name, dispatch=settings,
                      record_dir=str(record) if record else None,
                      generation=generation_settings(model, base_url=base_url, temperature=temperature,
                                                     max_tokens=max_tokens, brain=probe, grammar_field=grammar_field))

    limits = RateLimits(rpm=rpm, concurrency=concurrency, tpm=tpm)
    gate = RateGate(limits) if limits.limited else None  # one budget for every configuration's brains

    def factory(run: EvalConfig) -> Brain:
        return make_brain(model, domain, seed=run.seed, base_url=base_url, model_path=model_path,
                          temperature=temperature, max_tokens=max_tokens, timeout_s=timeout, threads=threads,
                          gate=gate, retries=retries, max_retry_after_s=max_retry_after, grammar_field=grammar_field)

    def baseline_factory(other: str) -> BrainFor:
        return lambda run: make_brain(other, domain, seed=run.seed)

    planned = plan_rows(base, names, baseline)
    cells = sum(len(r.owns) for r in planned) * len(level_list) * len(tau_list) * episodes
    total = cells * len(seed_list or [seed])
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"ablate {model}", total=total)
        try:
            rows, failures = asyncio.run(run_ablation(base, out_dir, factory, names, lambda: bar.advance(task),
                                                      concurrency=concurrency or 1,
                                                      baselines=[(b, baseline_factory(b)) for b in baseline],
                                                      seeds=seed_list, alpha=alpha, on_note=err.print))
        except (AblationError, ResultsError, ValueError) as exc:  # a folder made with other settings
            fail(str(exc))
    print_study(rows, model, level_list, agents, seed_list or [seed], alpha)
    plot_ablation(rows, out_dir / "ablation.png", f"{model} on {', '.join(level_list)}, {agents} agents")
    out.print(f"table: {out_dir / 'ablation.csv'}, plot: {out_dir / 'ablation.png'}")
    if failures:
        for line in failures:
            err.print(f"[red]failed:[/red] {line}")
        err.print("the other units are saved; run the same command again to continue the failed ones")
        raise typer.Exit(1)


def print_study(rows: list[dict[str, Any]], model: str, levels: list[str], agents: str, seeds: list[int],
                alpha: float) -> None:
    """The table, then what the tests say (and what one seed cannot say)."""
    several = len(seeds) > 1
    table = Table(title=f"ablations: {model}, {', '.join(levels)}, {agents} agents, seeds {','.join(map(str, seeds))}",
                  caption="CoS: mean over seeds of the mean over cells; 95 % t interval of that mean; vs full: "
                          "mean paired difference (its 95 % t interval); p: paired t-test against the full "
                          f"prompt, Holm-corrected over the rows; * p < {alpha:g}; tokens are prompt + output")
    for column in ("configuration", "n", "CoS", "95 % interval", "vs full", "95 % interval (vs full)", "p (Holm)",
                   "", "dishes", "tokens/step", "tokens/dish", "model errors", "note"):
        table.add_column(column, no_wrap=column != "configuration")
    for r in rows:
        label = r["label"] + (f" (= {', '.join(r['same_as'])})" if r["same_as"] else "")
        if r["cos"] is None:
            table.add_row(label, "0", "-", "", "", "", "", "", str(r["completed"]), "-", "-", str(r["model_errors"]),
                          "not finished")
            continue
        lo, hi = r["interval"]
        interval = f"{lo:.3f}-{hi:.3f}" if r["measured"] else ("one seed" if r["n"] < 2 else "no spread")
        delta = dlo_hi = p = ""
        if r.get("delta") is not None:
            delta = f"{r['delta']:+.3f}"
            dlo, dhi = r["delta_interval"]
            dlo_hi = f"{dlo:+.3f}..{dhi:+.3f}" if r["paired"] > 1 and r["note"] == "" else ""
            p = f"{r['p_holm']:.4f}" if r["paired"] > 1 else ""
        shared = ", ".join(f"{n} agents from {other}" for n, other in r["shares"].items())
        note = "; ".join(x for x in (r.get("note") or "", "partial" if not r["complete"] else "",
                                     f"shares {shared}" if shared else "") if x)
        table.add_row(label, str(r["n"]), f"{r['cos']:.3f}", interval, delta, dlo_hi, p,
                      "*" if r.get("significant") else "", str(r["completed"]), str(r["tokens_per_step"] or "-"),
                      str(r["tokens_per_dish"] or "-"), str(r["model_errors"]), note)
    out.print(table)
    tested = [r for r in rows if r.get("p_holm") is not None]
    if not several:
        out.print("one seed: no interval and no test; run the study on several order streams (--seeds 0-4)")
    elif tested:
        hits = sum(1 for r in tested if r.get("significant"))
        out.print(f"{hits} of {len(tested)} configurations differ significantly from the full prompt (paired t-test "
                  f"over seeds, Holm-corrected over {len(tested)} rows, alpha {alpha:g})")


def register(app: typer.Typer) -> None:
    app.command("ablate")(ablate)
