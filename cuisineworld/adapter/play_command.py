"""`mindagent play`: a person plays the text kitchen in the terminal, one command per agent."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from cuisineworld import World
from cuisineworld.adapter.levels_command import level_or_exit
from cuisineworld.feedback import step_lines

out = Console(highlight=False)


def _expand(text: str, agent: int) -> str:
    """Let people type `goto storage0` or `get tuna storage0` for the agent being asked."""
    words = text.replace(",", " ").split()
    if not words:
        return f"noop_agent{agent}"
    if len(words) == 1 and "_" in words[0]:
        return words[0]
    return "_".join([words[0], f"agent{agent}", *words[1:]])


def play(
    level: str = typer.Option("level_0", help="level name or path to a level file"),
    agents: int = typer.Option(2, min=1, max=8, help="number of agents"),
    tau: float = typer.Option(1.0, min=0.1, help="task-interval factor (1.0 is the most intense)"),
    rules: str = typer.Option("reference", help="reference or fixed"),
    seed: int = typer.Option(0),
    steps: int | None = typer.Option(None, help="episode length (default: the level's)"),
    recipes: Path | None = typer.Option(None, help="extra recipe file"),
) -> None:
    """Play CuisineWorld yourself: type a command for each agent every step (blank = noop, q = quit)."""
    world = World(level_or_exit(level, rules, recipes), n_agents=agents, tau=tau, seed=seed, max_steps=steps)
    world.reset()
    out.print(f"[bold]{world.level.name}[/bold]: dishes {', '.join(world.level.dishes)}; rules {world.rules.name}")
    out.print("Type e.g. 'goto storage0', 'get tuna storage0', 'put pot0', 'activate pot0', or a full command.")
    while not world.done:
        out.print(world.state_text())
        commands = []
        for agent in range(agents):
            try:
                text = input(f"agent{agent}> ").strip()
            except EOFError:
                text = "q"
            if text.lower() in {"q", "quit", "exit"}:
                out.print("bye")
                return
            commands.append(_expand(text, agent))
        result = world.step(commands)
        for outcome in result.outcomes:
            mark = "[green]ok[/green]" if outcome.ok else "[red]refused[/red]"
            out.print(f"  {outcome.command}: {mark}")
        for line in step_lines(result):
            out.print(f"  [yellow]{line}[/yellow]")
    c = world.counts
    out.print(f"[bold]Episode over[/bold]: {c.completed} completed, {c.failed} failed, {c.active} still open.")


def register(app: typer.Typer) -> None:
    app.command("play")(play)
