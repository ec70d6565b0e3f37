"""`mindagent run` (one episode), `mindagent replay` (re-execute a recording), `mindagent prompt`."""

from __future__ import annotations

import asyncio
import json
import math
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mindagent.cli import options as o
from mindagent.cli.common import err, fail
from mindagent.cli.domain_options import with_domain_options
from mindagent.core import registry as domains
from mindagent.core.capabilities import Scored
from mindagent.core.domain import SpecError
from mindagent.core.episode import EpisodeResult, run_episode
from mindagent.dispatch.brains import PolicyBrain, generation_settings, make_brain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.llm.base import LLMError
from mindagent.recordings.recording import CAP_ENV, Recorder, RecordingError, recording_path

out = Console(highlight=False, soft_wrap=True)


def run(
    domain: str | None = o.DOMAIN,
    level: str | None = o.LEVEL,
    agents: int = typer.Option(2, min=1, max=8),
    tau: float = typer.Option(1.0, min=0.1, max=1000.0, help="order lifetime factor (0.1-1000)"),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, "--steps", min=1,
                                     help="shorten the episode to this many steps (at most the level's length)"),
    model: str = o.MODEL, base_url: str | None = o.BASE_URL, model_path: str | None = o.MODEL_PATH,
    grammar_field: str = o.GRAMMAR_FIELD,
    temperature: float = o.TEMPERATURE, max_tokens: int | None = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    repair: int = o.REPAIR, rules: str = o.RULES, recipes: Path | None = o.RECIPES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str | None = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK,
    memory: int = o.MEMORY, memory_budget: int = o.MEMORY_BUDGET, dispatch: str = o.DISPATCH,
    plan_steps: int = o.PLAN_STEPS, goal_every: int = o.GOAL_EVERY,
    team: str = o.TEAM, control: str | None = o.CONTROL, partners: str = o.PARTNERS,
    subtask_executor: str = o.SUBTASK_EXECUTOR, threads: int | None = o.THREADS,
    out_dir: Path = typer.Option(Path("recordings"), "--out-dir", help="where the JSONL recording goes"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON summary object at the end"),
    head_chef: list[str] = typer.Option([], "--head-chef", help="an instruction shown to the dispatcher every step (repeatable)"),
    domain_options: dict[str, object] | None = None,
) -> None:
    """Play one episode with a dispatcher and record it."""
    # --steps cuts the run, not the episode: the prompt still says the level's length
    if not math.isfinite(tau):
        fail(f"--tau {tau} is not a number between 0.1 and 1000")
    spec = o.game_spec(domain, level, agents, tau, seed, rules, None, recipes, domain_options)
    settings = o.dispatch_settings(dispatch, plan_steps, goal_every, team, control, partners, subtask_executor)
    prompt = o.prompt_config(spec.domain, no_knowledge, no_recipes, no_instructions, demo, demo_agents, no_feedback, memory,
                             memory_budget)
    try:
        brain = make_brain(model, domains.get(spec.domain), seed=seed, base_url=base_url, model_path=model_path,
                           temperature=temperature, max_tokens=max_tokens, timeout_s=timeout, threads=threads,
                           grammar_field=grammar_field)
    except (SpecError, LLMError) as exc:  # a bad --model spec: one line, no traceback
        fail(str(exc))
    generation = generation_settings(model, base_url=base_url, temperature=temperature, max_tokens=max_tokens,
                                     brain=brain, grammar_field=grammar_field)
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out-dir {out_dir} is not a folder")
    session = domains.make_session(spec)
    if steps is not None and steps > session.max_steps:
        fail(f"--steps {steps} is longer than {spec.level}'s {session.max_steps} steps; --steps only shortens")
    for line in head_chef:
        session.add_instruction(line)
    try:
        dispatcher = Dispatcher.for_session(session, brain, prompt, repair=repair, dispatch=settings, seed=seed)
    except SpecError as exc:
        fail(str(exc))
    path = recording_path(out_dir, spec, model)
    recorders: list[Recorder] = []
    if not as_json:
        o.print_world_notes(spec)

    async def go() -> EpisodeResult:
        try:
            await session.reset(seed=seed)
            if isinstance(brain, PolicyBrain):  # a built-in policy starts each episode fresh
                brain.reset(session)
            path.unlink(missing_ok=True)
            recorder = Recorder(path)
            recorders.append(recorder)
            recorder.header(**spec.header(), model=model, prompt=prompt.to_dict(), repair=repair, episode=1,
                            dispatch=settings.to_dict(), generation=generation, run_steps=steps,
                            **session.episode_header())
            total = min(steps or session.max_steps, session.max_steps)
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          console=err, disable=as_json, transient=True) as bar:
                task = bar.add_task(f"{spec.level} x{agents} tau {tau}", total=total)
                return await run_episode(session, dispatcher, recorder, on_step=lambda t, r: bar.advance(task), steps=steps)
        finally:
            await brain.aclose()
            await session.aclose()

    started = time.perf_counter()
    try:
        result = asyncio.run(go())
    except (OSError, RuntimeError) as exc:  # a game server that cannot start, a dead bridge, an unwritable folder
        fail(f"{spec.domain}: {type(exc).__name__}: {exc}", code=1)
    except SpecError as exc:  # a dispatcher that cannot play this game (a policy trained on another kitchen)
        fail(str(exc))
    summary = {"domain": spec.domain, "level": spec.level, "agents": agents, "tau": tau, "seed": seed, "model": model,
               "completed": result.completed, "failed": result.failed, "active": result.active,
               "steps": result.steps, "prompt_tokens": result.prompt_tokens,
               "output_tokens": result.output_tokens, "model_errors": result.model_errors, "recording": str(path)}
    if isinstance(session, Scored):  # a game's own score beside its completions (Overcooked: the reward)
        summary["score"] = session.score
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        scored = f", score {summary['score']}" if "score" in summary else ""
        out.print(f"{spec.level}, {agents} agents, tau {tau}, {model}: {result.completed} completed{scored}, "
                  f"{result.failed} failed, {result.active} still open after {result.steps} steps "
                  f"({time.perf_counter() - started:.1f}s). Recording: {path}")
    if recorders and recorders[0].cut:
        err.print(f"[yellow]the recording reached its size cap ({recorders[0].max_bytes} bytes, {CAP_ENV}) and was "
                  f"cut[/yellow]: {recorders[0].dropped} line(s) not kept", markup=True, highlight=False)
    if result.model_errors:  # the agents idled on those steps: not a result to report as one
        err.print(f"[red]{result.model_errors} model call(s) failed[/red] (last: {result.last_error}); "
                  "see the recording", markup=True, highlight=False)
        raise typer.Exit(1)


def replay(file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a JSONL recording")) -> None:
    """Re-execute a recording through its domain; exit 1 at the first divergence."""
    from mindagent.recordings.replay import replay_recording

    try:
        report = replay_recording(file)
    except RecordingError as exc:
        err.print(f"[red]replay failed:[/red] {exc}", highlight=False, markup=True)
        raise typer.Exit(1) from None
    except (SpecError, ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError,
            UnicodeDecodeError, OSError) as exc:  # a crafted or damaged file: one line, never a traceback
        err.print(f"[red]replay failed:[/red] {file} is not a valid recording "
                  f"({type(exc).__name__}: {str(exc)[:200]})", highlight=False, markup=True)
        raise typer.Exit(1) from None
    out.print(f"replayed {report.steps} steps identically: {report.completed} completed, {report.failed} failed, {report.active} open")
    note = report.incomplete()
    if note is not None:  # a killed writer or a full file: everything kept still replayed identically
        err.print(f"[yellow]{escape(str(file))}:[/yellow] {escape(note)}", highlight=False, markup=True)


def prompt(
    domain: str | None = o.DOMAIN, level: str | None = o.LEVEL, agents: int = typer.Option(2, min=1, max=8),
    tau: float = typer.Option(1.0), seed: int = typer.Option(0), rules: str = o.RULES, recipes: Path | None = o.RECIPES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str | None = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK,
    memory: int = o.MEMORY,
    as_json: bool = typer.Option(False, "--json", help="print the messages as JSON"),
    domain_options: dict[str, object] | None = None,
) -> None:
    """Print the prompt the dispatcher would send at step 0 (a live-world domain is started for it)."""
    from mindagent.dispatch.memory import Memory

    spec = o.game_spec(domain, level, agents, tau, seed, rules, None, recipes, domain_options)
    config = o.prompt_config(spec.domain, no_knowledge, no_recipes, no_instructions, demo, demo_agents, no_feedback, memory)
    session = domains.make_session(spec)

    async def build() -> list[dict[str, object]]:
        try:
            await session.reset(seed=seed)
            dispatcher = Dispatcher.for_session(session, None, config)
            messages, _ = dispatcher.messages(session, Memory(memory), [])
            return [{"role": m.role, "content": m.content, "cache_prefix": m.cache_prefix} for m in messages]
        finally:
            await session.aclose()

    messages = asyncio.run(build())
    if as_json:
        typer.echo(json.dumps(messages, indent=1))
        return
    for m in messages:
        typer.echo(f"=== {m['role']}{' (end of cached prefix)' if m['cache_prefix'] else ''} ===\n{m['content']}\n")


def register(app: typer.Typer) -> None:
    app.command("run")(with_domain_options("run")(run))
    app.command("replay")(replay)
    app.command("prompt")(with_domain_options("prompt")(prompt))
