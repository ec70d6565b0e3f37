"""`mindagent demo make`: regenerate the one-shot demo files from our own engine."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from cuisineworld.demos import demo_file_name

app = typer.Typer(help="One-shot demonstrations for the prompt.")
out = Console(highlight=False)
_SHIPPED = Path(__file__).resolve().parents[1] / "demos" / "data"


@app.command("make")
def make(
    agents: str = typer.Option("2,3,4", help="comma-separated team sizes"),
    policy: str = typer.Option("planner", help="planner or random"),
    steps: int = typer.Option(12, min=2, max=60, help="at most this many steps (stops at the first served dish)"),
    from_recording: Path | None = typer.Option(None, "--from-recording", exists=True, help="cut a demo from a recording instead"),
    out_dir: Path = typer.Option(_SHIPPED, "--out-dir", help="where the demo files go (default: the shipped demos)"),
) -> None:
    """Play the demo kitchen (or cut a recording) and write demo JSON files."""
    from cuisineworld.adapter.demo_maker import demo_from_recording, make_demo, write_demo

    if from_recording is not None:
        demo = demo_from_recording(from_recording, steps)
        path = out_dir / demo_file_name(str(demo["dish"]), int(demo["agents"]))
        write_demo(demo, path)
        out.print(f"wrote {path} ({len(demo['steps'])} steps)")
        return
    for n in (int(x) for x in agents.split(",") if x.strip()):
        demo = make_demo(n, policy, steps)
        path = out_dir / demo_file_name(str(demo["dish"]), n)
        write_demo(demo, path)
        out.print(f"wrote {path} ({len(demo['steps'])} steps)")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="demo")
