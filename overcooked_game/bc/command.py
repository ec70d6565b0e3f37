"""`mindagent train-bc`: train the behaviour-cloning human proxy for one Overcooked layout.

Registered by the Overcooked game's command hook (the lead exposes it as ``mindagent train --domain
overcooked --algo bc``). Heavy imports (torch, pandas, the `overcooked` package) happen only when the
command runs, so the CLI starts fast.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from overcooked_game.bc.errors import BCError
from overcooked_game.bc.layouts import CLASSIC_NAMES
from overcooked_game.bc.recipe import DEFAULT_DESIGN, DESIGNS, Activation, Keep, Split

_D = DESIGNS[DEFAULT_DESIGN]
_EPOCHS_HELP = ("default: " + (str(_D.epochs) if _D.epochs is not None else "Carroll et al.'s count for the layout, 90 to 120"))

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


# The options both commands take (`train-bc` and `train --algo bc`), declared once.
LayoutOption = Annotated[str, typer.Option("--layout", help="one of " + ", ".join(CLASSIC_NAMES))]
OutOption = Annotated[Path, typer.Option("--out", help="folder for policy.pt and meta.json")]
EpochsOption = Annotated[int | None, typer.Option("--epochs", min=1, max=10_000, help=_EPOCHS_HELP)]
SeedOption = Annotated[int, typer.Option("--seed")]
LimitOption = Annotated[int | None, typer.Option(
    "--limit", min=10, help="keep only the first N timesteps of the layout's training and test trials")]
HistoryOption = Annotated[int, typer.Option(
    "--history", min=0, max=16, help="how many of the chef's own last keys the network sees (0: Carroll et al.'s state only)")]
TrialsOption = Annotated[str, typer.Option("--trials", help="the split it learns from: train (Carroll et al.'s BC agent) "
                                           "or test (their human proxy); the other is the held-out set")]
ActivationOption = Annotated[str, typer.Option("--activation", help="relu or tanh (Carroll et al.'s)")]
KeepOption = Annotated[str, typer.Option("--keep", help="best: the epoch of lowest validation loss; last (Carroll et al.'s)")]


def train_bc(
    ctx: typer.Context,
    layout: LayoutOption,
    out_dir: OutOption = Path("runs/bc"),
    epochs: EpochsOption = None,
    seed: SeedOption = 0,
    limit: LimitOption = None,
    history: HistoryOption = _D.history,
    trials: TrialsOption = _D.trials,
    activation: ActivationOption = _D.activation,
    keep: KeepOption = _D.keep,
) -> None:
    """Train a behaviour-cloning proxy on the human-human trials; prints its held-out accuracy."""
    from overcooked_game.bc.layouts import resolve
    from overcooked_game.bc.model import ACTION_NAMES
    from overcooked_game.bc.train import train

    if trials not in ("train", "test") or activation not in ("relu", "tanh") or keep not in ("best", "last"):
        err.print(f"[red]error:[/red] --trials is train or test, --activation relu or tanh, --keep best or last; not "
                  f"{trials!r}, {activation!r}, {keep!r}", highlight=False)
        raise typer.Exit(2)
    try:
        chosen = epochs if epochs is not None else _D.epochs_for(resolve(layout).name)
    except BCError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    arguments = ["--layout", layout, "--out", str(out_dir), "--epochs", str(chosen), "--seed", str(seed),
                 "--history", str(history), "--trials", trials, "--activation", activation, "--keep", keep]
    # meta.json records the command as it was typed (its entry point, e.g. `mindagent train-bc` or
    # `python -m overcooked_game.bc train-bc`), with every option spelled out, defaults included
    command = " ".join([ctx.command_path, shlex.join([*arguments, *(["--limit", str(limit)] if limit is not None else [])])])
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(f"{stage} ({layout})", total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            result = train(layout, out_dir, epochs=chosen, seed=seed, limit=limit, history=history,
                           trials=cast(Split, trials), activation=cast(Activation, activation), keep=cast(Keep, keep),
                           command=command, on_progress=on_progress)
        except (BCError, ValueError) as exc:
            err.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(2) from None
    meta = result.meta
    out.print(f"{meta.layout}: held-out action accuracy {meta.heldout_accuracy:.3f} on {meta.heldout_examples} human "
              f"actions (always the commonest key: {meta.heldout_majority_rate:.3f}); train {meta.train_accuracy:.3f}, "
              f"validation {meta.validation_accuracy:.3f}, best epoch {meta.best_epoch}/{meta.epochs}, {meta.seconds:.0f} s")
    if meta.heldout_loss is not None:
        out.print(f"held-out cross-entropy {meta.heldout_loss:.3f} nats (the keys' frequencies alone: "
                  f"{meta.heldout_prior_loss:.3f})")
    out.print(f"policy: {result.out} ({', '.join(ACTION_NAMES)})")


def register(app: typer.Typer) -> None:
    """Add ``train-bc`` to a Typer app."""
    app.command("train-bc")(train_bc)


def train(
    ctx: typer.Context,
    layout: LayoutOption,
    algo: Annotated[str, typer.Option("--algo", help="bc: behaviour cloning from the human-human trials of Carroll et al.")] = "bc",
    out_dir: OutOption = Path("runs/bc"),
    epochs: EpochsOption = None,
    seed: SeedOption = 0,
    limit: LimitOption = None,
    history: HistoryOption = _D.history,
    trials: TrialsOption = _D.trials,
    activation: ActivationOption = _D.activation,
    keep: KeepOption = _D.keep,
) -> None:
    """Train a human proxy for one layout (`mindagent train --domain overcooked --algo bc`); use it as
    ``--partners bc:DIR`` or ``--model bc:DIR``."""
    if algo != "bc":
        err.print(f"[red]error:[/red] --algo must be bc (behaviour cloning), not {algo!r}", highlight=False)
        raise typer.Exit(2)
    train_bc(ctx, layout, out_dir, epochs, seed, limit, history, trials, activation, keep)
