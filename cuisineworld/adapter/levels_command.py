"""`mindagent levels`: what levels exist, and their task intervals, lifetimes and order streams."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from cuisineworld import PAPER_TAUS, Level, LevelFileError, World, load_level
from cuisineworld.levels import level_names
from mindagent.cli.common import fail

app = typer.Typer(help="List levels, or show one level's timings and order streams.", invoke_without_command=True)
out = Console()


def level_or_exit(name: str, rules: str = "reference", recipes: Path | None = None) -> Level:
    """A CuisineWorld level, or one error line naming the file and field, and exit 2."""
    try:
        return load_level(name, rules=rules, recipes=recipes)
    except (LevelFileError, ValueError, OSError) as exc:
        fail(str(exc))


@app.callback()
def levels_table(ctx: typer.Context, rules: str = typer.Option("reference", help="reference or fixed")) -> None:
    """A table of the shipped levels."""
    if ctx.invoked_subcommand is not None:
        return
    table = Table(title="CuisineWorld levels")
    for col in ("level", "difficulty", "dishes", "kitchen", "interval @ tau 1.0..3.0"):
        table.add_column(col)
    for name in level_names():
        level = level_or_exit(name, rules)
        table.add_row(
            name + ("" if level.in_paper else " *"),
            level.difficulty or "",
            ", ".join(level.dishes),
            ", ".join(level.location_names),
            " / ".join(str(level.interval(t)) for t in PAPER_TAUS),
        )
    out.print(table)
    out.print("* not reported in the paper")


def order_streams(level: Level, tau: float, seed: int = 0, episodes: int = 3, n_agents: int = 2) -> list[list[list[object]]]:
    """[arrival step, dish] of every order of consecutive idle episodes (one shared generator)."""
    world = World(level, n_agents=n_agents, tau=tau, seed=seed)
    idle = [f"noop_agent{a}" for a in range(n_agents)]
    streams = []
    for _ in range(episodes):
        world.reset()
        arrivals: list[list[object]] = [[0, world.orders[0].dish]]
        while not world.done:
            result = world.step(idle)
            arrivals.extend([world.time, dish] for dish in result.arrived)
        streams.append(arrivals)
    return streams


def level_summary(level: Level, seed: int = 0) -> dict[str, Any]:
    taus: dict[str, object] = {}
    for tau in PAPER_TAUS:
        taus[f"{tau:.1f}"] = {
            "interval": level.interval(tau),
            "lifetimes": level.lifetimes(tau),
            "orders": order_streams(level, tau, seed=seed),
        }
    return {"name": level.name, "dishes": list(level.dishes), "kitchen": list(level.kitchen), "taus": taus}


@app.command("show")
def show(
    level: str = typer.Argument(..., help="level name (level_3) or path to a level file"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    rules: str = typer.Option("reference", help="reference or fixed"),
    recipes: Path | None = typer.Option(None, help="extra recipe file merged over the shipped recipes"),
    seed: int = typer.Option(0, help="order generator seed"),
) -> None:
    """Timings and the first three episodes' order streams of one level."""
    compiled = level_or_exit(level, rules, recipes)
    summary = level_summary(compiled, seed)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    out.print(f"[bold]{compiled.name}[/bold] ({compiled.difficulty or 'custom'}): {', '.join(compiled.dishes)}")
    out.print(f"kitchen: {', '.join(compiled.location_names)}")
    table = Table()
    for col in ("tau", "interval", "lifetimes", "orders per episode"):
        table.add_column(col)
    for tau, info in summary["taus"].items():
        table.add_row(
            tau,
            str(info["interval"]),
            ", ".join(f"{d} {n}" for d, n in info["lifetimes"].items()),
            " / ".join(str(len(e)) for e in info["orders"]),
        )
    out.print(table)


@app.command("generate")
def generate(
    seed: int = typer.Option(0, help="the generator's seed: the same seed writes the same level"),
    dishes: int = typer.Option(2, min=1, max=8, help="how many dishes the level orders"),
    tools: str | None = typer.Option(None, help="comma-separated tool types the dishes may use (default: any)"),
    difficulty: str = typer.Option("medium", help="easy | medium | hard: the band the planner's measured CoS "
                                                  "must fall in (easy >= 0.78, medium 0.68-0.78, hard 0.40-0.68)"),
    name: str | None = typer.Option(None, help="the level's name (default: gen_s<seed>_d<dishes>_<difficulty>)"),
    out_file: Path | None = typer.Option(None, "--out", help="where to write it (default: ./<name>.json)"),
    agents: int = typer.Option(2, min=1, max=8, help="team size the difficulty is measured with"),
    handoffs: bool = typer.Option(False, "--handoffs",
                                  help="forced hand-offs: split the kitchen between two agent profiles joined by counters"),
) -> None:
    """Write a procedural level from the recipe graph whose difficulty was measured with the planner."""
    from cuisineworld.adapter.levelgen import GenerationError, generate_level, level_json

    allowed = [t.strip() for t in tools.split(",") if t.strip()] if tools else None
    try:
        data = generate_level(seed, dishes, allowed, difficulty, name, agents=agents, handoffs=handoffs)
    except GenerationError as exc:
        fail(str(exc))
    target = out_file or Path(f"{data.level.name}.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    note = (f"mindagent levels generate --seed {seed} --dishes {dishes}{f' --tools {tools}' if tools else ''}"
            f" --difficulty {difficulty}{f' --agents {agents}' if agents != 2 else ''}{' --handoffs' if handoffs else ''}")
    target.write_text(level_json(data, note=note), encoding="utf-8")
    compiled = level_or_exit(str(target))
    calibration = data.level.calibration
    assert calibration is not None  # generate_level always measures what it returns
    out.print(f"wrote {target}: {', '.join(compiled.dishes)} in {', '.join(compiled.location_names)}")
    out.print(f"{agents} agents, paper protocol, seed {calibration.seed}: planner CoS "
              f"{calibration.planner_cos:.3f} (band {calibration.band[0]:.2f}-{calibration.band[1]:.2f}), "
              f"upper bound {calibration.bound_cos:.3f}; {calibration.candidates} candidate(s) measured")


def register(cli: typer.Typer) -> None:
    cli.add_typer(app, name="levels")
