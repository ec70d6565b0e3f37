"""`mindagent run` (one episode), `mindagent replay` (re-execute a recording), `mindagent prompt`."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mindagent.cli import options as o
from mindagent.cli.common import err, level_or_exit
from mindagent.dispatcher import Dispatcher, run_episode
from mindagent.recording import Recorder, RecordingError
from mindagent.setup_run import GameSpec, make_brain, make_session, pick_demo, recording_path

out = Console(highlight=False, soft_wrap=True)


def run(
    level: str = typer.Option("level_3", help="level name or path to a level file"),
    agents: int = typer.Option(2, min=1, max=8),
    tau: float = typer.Option(1.0, min=0.1),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, "--steps", min=1, help="shorten the episode"),
    domain: str = typer.Option("cuisineworld", help="cuisineworld or minecraft"),
    model: str = o.MODEL, base_url: str | None = o.BASE_URL, model_path: str | None = o.MODEL_PATH,
    temperature: float = o.TEMPERATURE, max_tokens: int = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    repair: int = o.REPAIR, rules: str = o.RULES, recipes: Path | None = o.RECIPES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK, memory: int = o.MEMORY,
    out_dir: Path = typer.Option(Path("recordings"), "--out-dir", help="where the JSONL recording goes"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON summary object at the end"),
    mc_host: str | None = typer.Option(None, "--mc-host", help="Minecraft: use this offline-mode server"),
    mc_port: int | None = typer.Option(None, "--mc-port"),
    mc_version: str | None = typer.Option(None, "--mc-version"),
    head_chef: list[str] = typer.Option([], "--head-chef", help="an instruction shown to the dispatcher every step (repeatable)"),
    cook_ticks: int | None = typer.Option(None, "--cook-ticks", min=1, help="Minecraft embedded server: furnace cook ticks (vanilla 200)"),
) -> None:
    """Play one episode with a dispatcher and record it."""
    if domain == "minecraft":
        from mindagent.cli.minecraft_cmds import run_minecraft

        run_minecraft(agents=agents, tau=tau, seed=seed, steps=steps, model=model, base_url=base_url,
                      model_path=model_path, as_json=as_json, out_dir=out_dir, mc_host=mc_host, mc_port=mc_port,
                      mc_version=mc_version, temperature=temperature, max_tokens=max_tokens, timeout=timeout, repair=repair,
                      cook_ticks=cook_ticks)
        return
    if domain != "cuisineworld":
        raise typer.BadParameter("--domain must be cuisineworld or minecraft")
    level_or_exit(level, rules, recipes)
    prompt = o.prompt_config(no_knowledge, no_recipes, no_instructions, demo, demo_agents, no_feedback, memory)
    spec = GameSpec(level, agents, tau, seed, rules, steps, str(recipes) if recipes else None)
    session = make_session(spec)
    for line in head_chef:
        session.add_instruction(line)
    try:
        brain = make_brain(model, seed=seed, base_url=base_url, model_path=model_path, temperature=temperature,
                           max_tokens=max_tokens, timeout_s=timeout)
    except Exception as exc:  # a bad --model spec or missing key: one line, no traceback
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    dispatcher = Dispatcher(brain, prompt, pick_demo(session, prompt), repair=repair)
    path = recording_path(out_dir, spec, model)
    path.unlink(missing_ok=True)
    recorder = Recorder(path)
    session.world.reset()
    recorder.header(**spec.header(), model=model, prompt=prompt.to_dict(), repair=repair,
                    generator_state=session.world.episode_start_state, episode=1)

    async def go() -> object:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, disable=as_json, transient=True) as bar:
            task = bar.add_task(f"{spec.level} x{agents} tau {tau}", total=min(steps or session.max_steps, session.max_steps))
            try:
                return await run_episode(session, dispatcher, recorder, on_step=lambda t, r: bar.advance(task), steps=steps)
            finally:
                await brain.aclose()

    started = time.perf_counter()
    result = asyncio.run(go())
    summary = {"level": spec.level, "agents": agents, "tau": tau, "seed": seed, "model": model,
               "completed": result.completed, "failed": result.failed, "active": result.active,  # type: ignore[attr-defined]
               "steps": result.steps, "prompt_tokens": result.prompt_tokens,  # type: ignore[attr-defined]
               "output_tokens": result.output_tokens, "recording": str(path)}  # type: ignore[attr-defined]
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        out.print(f"{spec.level}, {agents} agents, tau {tau}, {model}: {result.completed} completed, "  # type: ignore[attr-defined]
                  f"{result.failed} failed, {result.active} still open after {result.steps} steps "  # type: ignore[attr-defined]
                  f"({time.perf_counter() - started:.1f}s). Recording: {path}")


def replay(file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a JSONL recording")) -> None:
    """Re-execute a recording through the engine; exit 1 at the first divergence."""
    from mindagent.replay import replay_recording

    try:
        report = replay_recording(file)
    except RecordingError as exc:
        err.print(f"[red]replay failed:[/red] {exc}")
        raise typer.Exit(1) from None
    out.print(f"replayed {report.steps} steps identically: {report.completed} completed, {report.failed} failed, {report.active} open")


def prompt(
    level: str = typer.Option("level_3"), agents: int = typer.Option(2, min=1, max=8), tau: float = typer.Option(1.0),
    seed: int = typer.Option(0), rules: str = o.RULES, recipes: Path | None = o.RECIPES,
    no_knowledge: bool = o.NO_KNOWLEDGE, no_recipes: bool = o.NO_RECIPES, no_instructions: bool = o.NO_INSTRUCTIONS,
    demo: str = o.DEMO, demo_agents: int | None = o.DEMO_AGENTS, no_feedback: bool = o.NO_FEEDBACK, memory: int = o.MEMORY,
    as_json: bool = typer.Option(False, "--json", help="print the messages as JSON"),
) -> None:
    """Print the prompt the dispatcher would send at step 0."""
    from mindagent.memory import Memory

    level_or_exit(level, rules, recipes)
    config = o.prompt_config(no_knowledge, no_recipes, no_instructions, demo, demo_agents, no_feedback, memory)
    session = make_session(GameSpec(level, agents, tau, seed, rules, None, str(recipes) if recipes else None))
    dispatcher = Dispatcher(None, config, pick_demo(session, config))
    messages, _ = dispatcher.messages(session, Memory(memory), [])
    if as_json:
        typer.echo(json.dumps([{"role": m.role, "content": m.content, "cache_prefix": m.cache_prefix} for m in messages], indent=1))
        return
    for m in messages:
        typer.echo(f"=== {m.role}{' (end of cached prefix)' if m.cache_prefix else ''} ===\n{m.content}\n")


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("replay")(replay)
    app.command("prompt")(prompt)
