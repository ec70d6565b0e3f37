"""`mindagent serve`: the browser game where people play with a dispatcher-run team, in real time."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from mindagent.cli import options as o
from mindagent.cli.common import err, fail
from mindagent.cli.domain_options import with_domain_options
from mindagent.core import registry as domains
from mindagent.dispatch.brains import default_model

if TYPE_CHECKING:
    from mindagent.server import GameServer

out = Console(highlight=False, soft_wrap=True)


def _pace(domain: object, tick: float | None, human_tick: float | None) -> tuple[float, float]:
    """The clock the host gave, else the game's own pace (`RealTimePace`), else the server's."""
    from mindagent.core.capabilities import RealTimePace
    from mindagent.server.pacing import HUMAN_TICK_S

    own = domain.real_time_pace() if isinstance(domain, RealTimePace) else (1.0, HUMAN_TICK_S)
    return (own[0] if tick is None else tick), (own[1] if human_tick is None else human_tick)


def serve(
    domain: str | None = o.DOMAIN,
    level: str | None = typer.Option(None, help="level of the room opened at start-up (default: the domain's)"),
    agents: int | None = typer.Option(None, min=1, max=8, help="agents (default: the game's room size); "
                                      "people take some, the dispatcher the rest"),
    tau: float = typer.Option(1.0, min=0.1, max=10.0, help="task-interval factor (1.0 is the most intense)"),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, "--steps", min=1, max=10_000,
                                     help="episode length (default: the level's; a kitchen level's is the most)"),
    model: str | None = typer.Option(None, "--model", "-m", help="dispatcher: planner | random | local[:name] | "
                                     "openai:<model> | anthropic:<model> (default: the best one installed)"),
    mode: list[str] = typer.Option(["realtime"], "--mode",
                                   help="the clock: realtime (a step every --tick seconds) or turns; and/or the team: "
                                        "central | decentral | taskgraph (as on run and eval); repeatable"),
    tick: float | None = typer.Option(None, min=0.05, max=60.0, help="seconds per step in real time (the clock of "
                                      "turn mode); default: the game's own pace, else 1"),
    turn_timeout: float = typer.Option(30.0, "--turn-timeout", min=1.0,
                                       help="turn mode: seconds before a step happens anyway"),
    human_tick: float | None = typer.Option(None, "--human-tick", min=0.0, max=60.0,
                                            help="real time: seconds per step while a person plays an agent (0: --tick); "
                                                 "default: the game's own pace, else 3"),
    countdown: float = typer.Option(5.0, "--countdown", min=0.0, max=120.0,
                                    help="seconds from the first person sitting down to step 0 (0: at once)"),
    host: str = typer.Option("127.0.0.1", help="address to bind (0.0.0.0 opens it to the network)"),
    hostname: list[str] = typer.Option([], "--hostname", help="a name people reach this server by (repeatable); a "
                                       "request whose Host header names anything else is refused (421). Bound to "
                                       "0.0.0.0 or ::, only these names are served"),
    port: int = typer.Option(8765, min=0, max=65535),
    private: bool = typer.Option(False, "--private", help="the start-up room needs its secret to join"),
    recordings: Path = typer.Option(Path("recordings/rooms"), "--recordings", help="folder for the rooms' JSONL recordings"),
    recordings_budget: int = typer.Option(2048, "--recordings-budget", min=0, max=1_000_000,
                                          help="megabytes every recording under --recordings may take; past it the oldest "
                                               "practice recordings are deleted (the admin's rooms' never); 0: no budget"),
    base_url: str | None = o.BASE_URL, grammar_field: str = o.GRAMMAR_FIELD, model_path: str | None = o.MODEL_PATH,
    temperature: float = o.TEMPERATURE, max_tokens: int | None = o.MAX_TOKENS, timeout: float = o.TIMEOUT,
    repair: int = o.REPAIR, memory: int = o.MEMORY,
    demo: str | None = o.DEMO, rules: str = o.RULES,
    dispatch: str = typer.Option("auto", "--dispatch", help="auto (goals for an in-process model where the domain "
                                 "has goal mode, else step) | step | plan | goals"),
    plan_steps: int = o.PLAN_STEPS, goal_every: int = o.GOAL_EVERY, threads: int | None = o.THREADS,
    control: str | None = o.CONTROL, partners: str = o.PARTNERS, subtask_executor: str = o.SUBTASK_EXECUTOR,
    domain_options: dict[str, object] | None = None,
    autoplay: bool | None = typer.Option(None, "--autoplay/--no-autoplay",
                                         help="the start-up room plays without waiting for a person, episode after "
                                              "episode (default: on for a live world people join from a game client)"),
    episodes: int | None = typer.Option(None, "--episodes", min=1, help="with autoplay: stop after this many episodes"),
    compression: str = typer.Option("shared", "--compression",
                                    help="websocket compression: shared (a broadcast deflated once for all members) | "
                                         "member (per connection, with context: ~9x smaller states, more CPU) | off"),
    workers: int = typer.Option(1, "--workers", min=1, max=64,
                                help="processes hosting rooms behind the one port (1: this process; N: N room workers, "
                                     "each room in one, for more rooms than one core can tick)"),
    study: Path | None = typer.Option(None, "--study", help="a study file (JSON): each participant who opens the page "
                                      "sees its consent text, then plays its episodes, each followed by the questionnaire"),
) -> None:
    """Serve the game page and its websocket on one port; open one room to play at once.

    A live-world game (one people can also join with its own client) keeps playing without a page."""
    from mindagent.server import GameServer, ServerConfig
    from mindagent.server.protocol import ProtocolError

    clocks = [m for m in mode if m in ("realtime", "turns")]
    teams = [m for m in mode if m not in ("realtime", "turns")]
    if len(clocks) > 1 or len(teams) > 1:
        fail("--mode takes at most one clock (realtime, turns) and one team mode (central, decentral, taskgraph)")
    clock = clocks[0] if clocks else "realtime"
    team = teams[0] if teams else "central"
    explicit = dispatch != "auto" or team != "central" or control is not None or subtask_executor != "rule"
    chosen = o.domain_or_exit(domain)
    live_world = chosen.live_world  # a world with its own clients: bots play on without a page
    spec = o.game_spec(chosen.name, level, agents or chosen.serve_agents, tau, seed, rules, steps, None, domain_options)
    spec = chosen.serving_spec(spec)
    longest = asyncio.run(domains.level_steps(spec)) if steps is not None else None
    if longest is not None and steps is not None and steps > longest:
        fail(f"--steps {steps} is longer than {spec.level}'s {longest} steps; --steps only shortens an episode")
    o.print_world_notes(spec)
    autoplay = live_world if autoplay is None else autoplay
    if episodes is not None and not autoplay:
        fail("--episodes counts autoplay episodes; add --autoplay")
    names = [_hostname_or_exit(name) for name in hostname]
    if compression not in ("shared", "member", "off"):
        fail("--compression is shared, member or off")
    tick, human_tick = _pace(chosen, tick, human_tick)
    model_spec, why = (model, "chosen by the server's host") if model else default_model()
    config = ServerConfig(
        host=host, port=port, model=model_spec, model_why=why, mode="turns" if clock == "turns" else "realtime", tick=tick,
        turn_timeout=turn_timeout, recordings=recordings, admin_token=os.environ.get("MINDAGENT_ADMIN_TOKEN") or None,
        startup=spec, startup_public=not private,
        prompt=o.prompt_config(chosen.name, False, False, False, demo, None, False, memory), repair=repair,
        brain_options={"base_url": base_url, "grammar_field": grammar_field, "model_path": model_path,
                       "temperature": temperature,
                       "max_tokens": max_tokens, "timeout_s": timeout, "seed": seed, "threads": threads},
        autoplay=autoplay, episodes=episodes, decision_timeout=timeout,
        dispatch=o.dispatch_settings("step" if dispatch == "auto" else dispatch, plan_steps, goal_every, team, control,
                                     partners, subtask_executor) if explicit else None,
        human_tick=human_tick or None, countdown=countdown, hostnames=names, workers=workers,
        recordings_budget=recordings_budget * 1024 * 1024 if recordings_budget else None)
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # "skipped: a step still running" is expected
    if study is not None:
        from mindagent.server.study import StudyError, check_study, load_study

        try:
            config.study = load_study(study)
            check_study(config.study, chosen, config)
        except StudyError as exc:
            fail(str(exc))
    config.compression = "off" if compression == "off" else "member" if compression == "member" else "shared"
    server = GameServer(config)

    async def run() -> int:
        try:
            await server.start()
        except ProtocolError as exc:
            await server.stop()
            fail(exc.message)
        except OSError as exc:
            await server.stop()
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        _banner(server)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        stopped = asyncio.ensure_future(stop.wait())
        # the start-up room's N episodes played: stop as if Ctrl-C
        played = asyncio.ensure_future(server.startup_played()) if episodes is not None else None
        waits: list[asyncio.Future[Any]] = [stopped] if played is None else [stopped, played]
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
            out.print("stopping...")
            await server.stop()
        if played is not None and played in done:
            error = played.result()
            if error is not None:
                err.print(f"[red]the start-up room stopped by an error[/red]: {escape(error)}", markup=True,
                          highlight=False)
                return 1
            out.print(f"played {episodes} episode(s); recordings in {config.recordings}/")
        return 0

    if code := asyncio.run(run()):
        raise typer.Exit(code)


def _hostname_or_exit(name: str) -> str:
    """A DNS name or an address as it appears in a Host header, without a port."""
    text = name.strip().lower()
    if re.fullmatch(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?", text) or re.fullmatch(r"\[[0-9a-f:.]+\]", text):
        return text
    fail(f"--hostname {name!r} is not a host name (letters, digits, dots and hyphens, or [an IPv6 address]; no port)")


def _banner(server: GameServer) -> None:
    cfg = server.config
    room = server.startup
    out.print(f"[bold]MindAgent game server[/bold] on [link={server.url}]{server.url}[/link]")
    if cfg.workers > 1:
        out.print(f"  rooms in {cfg.workers} worker processes behind this port")
    if room is not None:
        spec = room.spec
        clock = f"a step every {cfg.tick:g}s" if cfg.mode == "realtime" else f"turns (timer {cfg.turn_timeout:g}s)"
        access = "public" if room.secret is None else f"secret {room.secret}"
        out.print(f"  room {room.id}: {spec.domain} {spec.level}, {spec.agents} agents, tau {spec.tau:g}, {clock}, {access}")
        join = room.join
        if join is not None:
            label = join.get("label") or domains.get(spec.domain).title
            out.print(f"  game world: {label} on {join.get('host')}:{join.get('port')}; "
                      "join with a game client; your chat reaches the dispatcher as a director's words")
        if room.secret is not None:
            out.print(f"  invite:     {server.url}#room={room.id}&secret={room.secret}")
    out.print(f"  dispatcher: [bold]{cfg.model}[/bold] ({cfg.model_why})")
    out.print(f"  admin:      {server.url}#admin={server.admin_token}  (create rooms, change models; keep it private)")
    out.print(f"  recordings: {cfg.recordings}/")
    if cfg.study is not None:
        out.print(f"  study:      {cfg.study.name}, {cfg.study.total} episode(s) per participant, {cfg.study.order} order; "
                  "every visitor sees its consent text first; `mindagent study export` makes its table")
    allowed = server.site.allowed_hosts
    if cfg.hostnames or cfg.host not in ("127.0.0.1", "localhost", "::1"):
        out.print("  host names: " + (", ".join(sorted(allowed)) if allowed is not None else
                                      "any (add --hostname NAME to refuse requests naming another host)"))
    if cfg.host not in ("127.0.0.1", "localhost", "::1"):
        out.print(f"[yellow]  listening on {cfg.host}: anyone who can reach this port can open the page[/yellow]")
    out.print("Ctrl-C stops the server.")


def register(app: typer.Typer) -> None:
    app.command("serve")(with_domain_options("serve")(serve))
