"""`mindagent run/eval --domain minecraft`: the same dispatcher loop on Minecraft bots.

The embedded flying-squid server is started and stopped by us unless `--mc-host` names an
offline-mode server of your own. The CuisineWorld demo does not apply here (other actions), so
the Minecraft prompt carries its own action set, recipes and hints and no demo.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path

import typer
from rich.console import Console

from mindagent.brains import Brain, PolicyBrain
from mindagent.dispatcher import Dispatcher, EpisodeResult, run_episode
from mindagent.prompt.builder import PromptConfig
from mindagent.recording import Recorder

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, soft_wrap=True, highlight=False)
MINECRAFT_PROMPT = PromptConfig(demo="none")


def minecraft_brain(model: str, *, seed: int = 0, base_url: str | None = None, model_path: str | None = None,
                    temperature: float = 0.1, max_tokens: int = 100, timeout_s: float = 60.0) -> Brain:
    """`planner` is the Minecraft planner here; every model spec works as for CuisineWorld."""
    if model == "planner":
        from minecraft import MinecraftPlanner

        return PolicyBrain(MinecraftPlanner())
    if model == "random":
        raise typer.BadParameter("the random policy is CuisineWorld-only; use planner or a model")
    from mindagent.setup_run import make_brain

    return make_brain(model, seed=seed, base_url=base_url, model_path=model_path, temperature=temperature,
                      max_tokens=max_tokens, timeout_s=timeout_s)


def address_for(mc_host: str | None, mc_port: int | None, mc_version: str | None) -> object | None:
    from minecraft import MC_VERSION, ServerAddress

    if mc_host is None and mc_port is None:
        return None
    return ServerAddress(mc_host or "127.0.0.1", mc_port or 25565, version=mc_version or MC_VERSION)


async def play_minecraft(agents: int, tau: float, seed: int, steps: int, brain: Brain, model: str,
                         recording: Path | None, address: object | None = None, repair: int = 0,
                         cook_ticks: int | None = None) -> EpisodeResult:
    from minecraft import KitchenConfig, MinecraftSession

    kitchen = KitchenConfig(seed=seed) if cook_ticks is None else KitchenConfig(seed=seed, cook_ticks=cook_ticks)
    async with MinecraftSession(n_agents=agents, tau=tau, seed=seed, max_steps=steps, address=address,  # type: ignore[arg-type]
                                kitchen=kitchen) as session:
        await session.reset()
        policy = getattr(brain, "policy", None)
        if policy is not None:
            policy.reset(session)
        recorder = None
        if recording is not None:
            recording.unlink(missing_ok=True)
            recorder = Recorder(recording)
            recorder.header(domain="minecraft", level="minecraft", agents=agents, tau=tau, seed=seed, rules="minecraft",
                            max_steps=steps, model=model, prompt=MINECRAFT_PROMPT.to_dict(), repair=repair)
        try:
            return await run_episode(session, Dispatcher(brain, MINECRAFT_PROMPT, None, repair=repair), recorder)
        finally:
            await brain.aclose()


def run_minecraft(*, agents: int, tau: float, seed: int, steps: int | None, model: str, base_url: str | None,
                  model_path: str | None, as_json: bool, out_dir: Path, mc_host: str | None, mc_port: int | None,
                  mc_version: str | None, temperature: float, max_tokens: int, timeout: float, repair: int,
                  cook_ticks: int | None = None) -> None:
    length = steps or 60
    brain = minecraft_brain(model, seed=seed, base_url=base_url, model_path=model_path, temperature=temperature,
                            max_tokens=max_tokens, timeout_s=timeout)
    safe = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in model)
    path = out_dir / f"minecraft_{agents}a_tau{tau}_s{seed}_{safe}.jsonl"
    started = time.perf_counter()
    result = asyncio.run(play_minecraft(agents, tau, seed, length, brain, model, path,
                                        address_for(mc_host, mc_port, mc_version), repair, cook_ticks))
    summary = {"level": "minecraft", "agents": agents, "tau": tau, "seed": seed, "model": model,
               "completed": result.completed, "failed": result.failed, "active": result.active, "steps": result.steps,
               "prompt_tokens": result.prompt_tokens, "output_tokens": result.output_tokens, "recording": str(path)}
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        out.print(f"minecraft, {agents} agents, tau {tau}, {model}: {result.completed} completed, {result.failed} failed, "
                  f"{result.active} open after {result.steps} steps ({time.perf_counter() - started:.0f}s). Recording: {path}")


def eval_minecraft(*, agents: int, episodes: int, seed: int, steps: int, model: str, base_url: str | None,
                   model_path: str | None, out_file: Path | None) -> None:
    """CoS across the five taus, each tau `episodes` episodes on a freshly reset kitchen."""
    from minecraft.orders import TAUS

    rates, rows = [], []
    for tau in TAUS:
        done = failed = active = 0
        for episode in range(episodes):
            brain = minecraft_brain(model, seed=seed, base_url=base_url, model_path=model_path)
            r = asyncio.run(play_minecraft(agents, tau, seed + episode, steps, brain, model, None))
            done, failed, active = done + r.completed, failed + r.failed, active + r.active
        total = done + failed + active
        rate = done / total if total else 0.0
        rates.append(rate)
        rows.append({"tau": tau, "completed": done, "failed": failed, "active": active, "rate": round(rate, 6)})
        out.print(f"tau {tau}: {done}/{total} -> {rate:.3f}")
    cos = statistics.fmean(rates)
    out.print(f"minecraft CoS ({model}, {agents} agents): {cos:.3f}")
    if out_file is not None:
        payload = {"config": {"domain": "minecraft", "agents": agents, "episodes": episodes, "seed": seed, "steps": steps,
                              "model": model},
                   "cells": [{"level": "minecraft", "agents": agents, "cos": round(cos, 6), "taus": rows}]}
        out_file.write_text(json.dumps(payload, indent=1), encoding="utf-8")


def serve_minecraft(*, agents: int, tau: float, seed: int, steps: int | None, model: str, why: str,
                    mc_host: str | None, mc_port: int | None, mc_version: str | None, cook_ticks: int | None,
                    episodes: int | None, out_dir: Path, **brain_kw: object) -> None:
    """Run dispatcher episodes back to back in a Minecraft world people can join.

    The embedded server listens on `--mc-port` (25565 by default) so a normal Minecraft client
    (1.19.2, offline mode) can join; a joined player's chat lines reach the dispatcher as
    head-chef instructions and their inventory is part of the state.
    """
    import signal

    from minecraft import MC_VERSION, EmbeddedServer, KitchenConfig, MinecraftSession

    length = steps or 60

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        embedded = None
        address = address_for(mc_host, mc_port, mc_version) if mc_host else None
        if address is None:
            kitchen = KitchenConfig(seed=seed) if cook_ticks is None else KitchenConfig(seed=seed, cook_ticks=cook_ticks)
            embedded = EmbeddedServer(kitchen, mc_version or MC_VERSION)
            address = await embedded.start(port=25565 if mc_port is None else mc_port)
        out.print(f"Minecraft {address.version} (offline mode) on {address.host}:{address.port}: join with a "  # type: ignore[attr-defined]
                  "Minecraft client; your chat lines reach the dispatcher as head-chef instructions.")
        out.print(f"  dispatcher: {model} ({why}); {agents} bots, tau {tau}, {length} steps per episode. Ctrl-C stops.")
        episode = 0
        try:
            while not stop.is_set() and (episodes is None or episode < episodes):
                episode += 1
                session = MinecraftSession(n_agents=agents, tau=tau, seed=seed + episode - 1, max_steps=length,
                                           address=address)  # type: ignore[arg-type]
                brain = minecraft_brain(model, seed=seed, **brain_kw)  # type: ignore[arg-type]
                path = out_dir / f"minecraft_serve_e{episode}.jsonl"
                path.unlink(missing_ok=True)
                recorder = Recorder(path)
                recorder.header(domain="minecraft", level="minecraft", agents=agents, tau=tau, seed=seed + episode - 1,
                                rules="minecraft", max_steps=length, model=model, prompt=MINECRAFT_PROMPT.to_dict(), repair=0)
                try:
                    await session.start()
                    await session.reset()
                    if getattr(brain, "policy", None) is not None:
                        brain.policy.reset(session)  # type: ignore[union-attr]
                    task = asyncio.ensure_future(run_episode(
                        session, Dispatcher(brain, MINECRAFT_PROMPT), recorder,
                        on_step=lambda t, r: out.print(f"  step {t}: {'; '.join(r.notes) or 'ok'}")))
                    stopper = asyncio.ensure_future(stop.wait())
                    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
                    stopper.cancel()
                    if not task.done():
                        task.cancel()
                        recorder.close()
                        break
                    result = task.result()
                    out.print(f"episode {episode}: {result.completed} completed, {result.failed} failed, "
                              f"{result.active} open. Recording: {path}")
                finally:
                    await session.close()
                    await brain.aclose()
        finally:
            if embedded is not None:
                await embedded.stop()

    asyncio.run(main())
