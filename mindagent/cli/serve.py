"""`mindagent serve`: the browser game where people play with a dispatcher-run team, in real time."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path

import typer
from rich.console import Console

from mindagent.cli import options as o
from mindagent.cli.common import err, level_or_exit
from mindagent.setup_run import GameSpec, default_model

out = Console(highlight=False, soft_wrap=True)


def serve(
    domain: str = typer.Option("cuisineworld", help="cuisineworld (browser rooms) or minecraft (bots in a world people join)"),
    level: str = typer.Option("level_3", help="level of the room opened at start-up"),
    agents: int | None = typer.Option(None, min=1, max=8, help="agents (default: 4 in a cuisineworld room, 2 bots in minecraft); "
                                      "people take some, the dispatcher the rest"),
    tau: float = typer.Option(1.0, min=0.1, max=10.0, help="task-interval factor (1.0 is the most intense)"),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, "--steps", min=1, max=10_000, help="episode length (default: the level's)"),
    model: str | None = typer.Option(None, "--model", "-m", help="dispatcher: planner | random | local[:name] | "
                                     "openai:<model> | anthropic:<model> (default: the best one installed)"),
    mode: str = typer.Option("realtime", help="realtime (a step every --tick seconds) or turns"),
    tick: float = typer.Option(1.0, min=0.05, max=60.0, help="seconds per step in real time (the clock of turn mode)"),
    turn_timeout: float = typer.Option(30.0, "--turn-timeout", min=1.0,
                                       help="turn mode: seconds before a step happens anyway"),
    host: str = typer.Option("127.0.0.1", help="address to bind (0.0.0.0 opens it to the network)"),
    port: int = typer.Option(8765, min=0, max=65535),
    private: bool = typer.Option(False, "--private", help="the start-up room needs its secret to join"),
    recordings: Path = typer.Option(Path("recordings/rooms"), "--recordings",  # noqa: B008 - typer's idiom
                                    help="folder for the rooms' JSONL recordings"),
    base_url: str | None = o.BASE_URL, model_path: str | None = o.MODEL_PATH, temperature: float = o.TEMPERATURE,
    max_tokens: int = o.MAX_TOKENS, timeout: float = o.TIMEOUT, repair: int = o.REPAIR, memory: int = o.MEMORY,
    demo: str = o.DEMO,
    mc_host: str | None = typer.Option(None, "--mc-host", help="Minecraft: use this offline-mode server instead of the embedded one"),
    mc_port: int | None = typer.Option(None, "--mc-port", help="Minecraft: port (embedded server: where people join; default 25565)"),
    mc_version: str | None = typer.Option(None, "--mc-version", help="Minecraft: protocol version (default 1.19.2)"),
    cook_ticks: int | None = typer.Option(None, "--cook-ticks", min=1, help="Minecraft embedded server: furnace cook ticks"),
    episodes: int | None = typer.Option(None, "--episodes", min=1, help="Minecraft: stop after this many episodes"),
) -> None:
    """Serve the game page and its websocket on one port; open one room to play at once.

    With --domain minecraft: run dispatcher episodes back to back in a Minecraft world that
    people can join with a normal client."""
    from mindagent.server import GameServer, ServerConfig
    from mindagent.server.protocol import ProtocolError

    if domain == "minecraft":
        from mindagent.cli.minecraft_cmds import serve_minecraft

        model_spec, why = (model, "given with --model") if model else default_model()
        serve_minecraft(agents=agents or 2, tau=tau, seed=seed, steps=steps, model=model_spec, why=why,
                        mc_host=mc_host, mc_port=mc_port, mc_version=mc_version, cook_ticks=cook_ticks, episodes=episodes,
                        out_dir=recordings.parent, base_url=base_url, model_path=model_path, temperature=temperature,
                        max_tokens=max_tokens, timeout_s=timeout)
        return
    if domain != "cuisineworld":
        err.print("[red]error:[/red] --domain must be cuisineworld or minecraft")
        raise typer.Exit(2)
    agents = agents or 4
    if mode not in ("realtime", "turns"):
        raise typer.BadParameter("--mode must be realtime or turns")
    level_or_exit(level)
    model_spec, why = (model, "given with --model") if model else default_model()
    config = ServerConfig(
        host=host, port=port, model=model_spec, model_why=why, mode=mode, tick=tick,  # type: ignore[arg-type]
        turn_timeout=turn_timeout, recordings=recordings, admin_token=os.environ.get("MINDAGENT_ADMIN_TOKEN") or None,
        startup=GameSpec(level, agents, tau, seed, "reference", steps), startup_public=not private,
        prompt=o.prompt_config(False, False, False, demo, None, False, memory), repair=repair,
        brain_options={"base_url": base_url, "model_path": model_path, "temperature": temperature,
                       "max_tokens": max_tokens, "timeout_s": timeout, "seed": seed})
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    server = GameServer(config)

    async def run() -> None:
        try:
            await server.start()
        except ProtocolError as exc:
            await server.stop()
            err.print(f"[red]error:[/red] {exc.message}")
            raise typer.Exit(2) from None
        except OSError as exc:
            await server.stop()
            err.print(f"[red]error:[/red] cannot listen on {host}:{port}: {exc.strerror or exc}")
            raise typer.Exit(2) from None
        _banner(server)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            out.print("stopping...")
            await server.stop()

    asyncio.run(run())


def _banner(server: object) -> None:
    from mindagent.server import GameServer

    assert isinstance(server, GameServer)
    cfg = server.config
    room = server.startup_room
    out.print(f"[bold]MindAgent game server[/bold] on [link={server.url}]{server.url}[/link]")
    if room is not None:
        spec = room.settings.spec
        clock = f"a step every {cfg.tick:g}s" if cfg.mode == "realtime" else f"turns (timer {cfg.turn_timeout:g}s)"
        access = "public" if room.secret is None else f"secret {room.secret}"
        out.print(f"  room {room.id}: {spec.level}, {spec.agents} agents, tau {spec.tau:g}, {clock}, {access}")
        if room.secret is not None:
            out.print(f"  invite:     {server.url}#room={room.id}&secret={room.secret}")
    out.print(f"  dispatcher: [bold]{cfg.model}[/bold] ({cfg.model_why})")
    out.print(f"  admin:      {server.url}#admin={server.admin_token}  (create rooms, change models; keep it private)")
    out.print(f"  recordings: {cfg.recordings}/")
    if cfg.host not in ("127.0.0.1", "localhost", "::1"):
        out.print(f"[yellow]  listening on {cfg.host}: anyone who can reach this port can open the page[/yellow]")
    out.print("Ctrl-C stops the server.")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
