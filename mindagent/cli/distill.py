"""`mindagent distill`: recordings -> a fine-tuning dataset; `mindagent distill train`: LoRA on it.

The dataset command needs nothing beyond the package; ``train`` needs the ``distill`` extra
(``pip install -e '.[distill]'``: transformers, peft, gguf). docs/howto/distill.md is the recipe.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mindagent.cli.common import err, fail
from mindagent.dispatch.prompt import DemoMode
from mindagent.distill.records import DATASET_FORMATS, DatasetFormat
from mindagent.llm.local_models import DEFAULT_LOCAL_MODEL

distill_app = typer.Typer(help="Turn recordings into a fine-tuning dataset, and fine-tune a small model on it.",
                          invoke_without_command=True)
_DEMOS: tuple[DemoMode, ...] = ("full", "few-step", "none")


@distill_app.callback()
def distill(
    ctx: typer.Context,
    recordings: Path | None = typer.Option(None, "--recordings", help="a folder of recordings (searched below it), "
                                           "or one recording"),
    out: Path | None = typer.Option(None, "--out", help="the training pairs (JSONL); validation pairs go beside "
                                    "it as NAME.val.jsonl, the report as NAME.report.json"),
    domain: str | None = typer.Option(None, "--domain", help="only recordings of this game"),
    dispatch: str | None = typer.Option(None, "--dispatch", help="only recordings made in this dispatch mode "
                                        "(step, plan, goals); default: any central one"),
    layout: str = typer.Option("chat", "--format", help="chat (messages) or prompt (prompt/completion)"),
    drop_idle: bool = typer.Option(True, "--drop-idle/--keep-idle", help="leave out steps where every agent idled"),
    dedup: bool = typer.Option(True, "--dedup/--no-dedup", help="leave out repeated (prompt, answer) pairs"),
    validation: float = typer.Option(0.1, "--validation", min=0.0, max=0.9,
                                     help="share of episodes (whole recordings) held out for validation"),
    seed: int = typer.Option(0, "--seed", help="seeds the episode split"),
    demo: str | None = typer.Option(None, "--demo", help="full | few-step | none: replaces the recorded demo "
                                    "setting (serve the model with the same)"),
    memory: int | None = typer.Option(None, "--memory", min=0, max=50, help="replaces the recorded memory window"),
    memory_budget: int | None = typer.Option(None, "--memory-budget", min=0, max=1_000_000,
                                             help="replaces the recorded memory budget (0: sliding window)"),
) -> None:
    """Write (prompt, answer) pairs from recordings: each step's prompt as the dispatcher builds it,
    and the recorded commands as the answer, one a line, as the game's parser reads them."""
    if ctx.invoked_subcommand is not None:
        return
    from mindagent.distill.dataset import DistillOptions, arrange, collect, find_recordings, validation_path, write_pairs

    if recordings is None or out is None:
        fail("mindagent distill needs --recordings DIR and --out FILE (or a sub-command: train)")
    if layout not in DATASET_FORMATS:
        fail(f"--format {layout!r}: choose chat or prompt")
    if demo is not None and demo not in _DEMOS:
        fail(f"--demo {demo!r}: choose full, few-step or none")
    chosen_format: DatasetFormat = "chat" if layout == "chat" else "prompt"
    chosen_demo: DemoMode | None = next((d for d in _DEMOS if d == demo), None)
    options = DistillOptions(domain=domain, dispatch=dispatch, drop_idle=drop_idle, dedup=dedup, validation=validation,
                             seed=seed, layout=chosen_format, demo=chosen_demo, memory=memory,
                             memory_budget=memory_budget)
    try:
        total = len(find_recordings(recordings))
    except (OSError, ValueError) as exc:
        fail(str(exc))
    with Progress(TextColumn("distilling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True) as progress:
        task = progress.add_task("recordings", total=total)
        by_source, report = asyncio.run(collect(recordings, options, lambda _path: progress.advance(task)))
    for refusal in report.refused:
        err.print(f"refused {refusal.source}: {refusal.reason}", markup=False, highlight=False)
    split = arrange(by_source, options, report)
    report.train_file = str(out)
    report.train_sha256 = write_pairs(out, split["train"], chosen_format, "train")
    if split["validation"]:
        report.validation_file = str(validation_path(out))
        write_pairs(validation_path(out), split["validation"], chosen_format, "validation")
    out.with_name(f"{out.stem}.report.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    Console(soft_wrap=True, highlight=False).print(
        f"{report.recordings} recordings: {report.used} used, {report.skipped} skipped by a filter, "
        f"{len(report.refused)} refused; {report.steps} steps, {report.idle_dropped} idle and "
        f"{report.duplicates_dropped} repeated left out\n"
        f"train: {report.train_pairs} pairs from {len(report.train_episodes)} episodes -> {out}\n"
        f"validation: {report.validation_pairs} pairs from {len(report.validation_episodes)} episodes"
        + (f" -> {report.validation_file}" if report.validation_file else ""), markup=False)
    if report.used == 0:
        fail("no recording gave any pair", code=1)


@distill_app.command("train")
def train_command(
    data: Path = typer.Option(..., "--data", exists=True, dir_okay=False, help="pairs written by mindagent distill"),
    out: Path = typer.Option(..., "--out", file_okay=False, help="folder for the adapter and manifest.json"),
    base: str = typer.Option(DEFAULT_LOCAL_MODEL, "--base", help="a named local model, a .gguf file or a "
                             "transformers model folder"),
    validation: Path | None = typer.Option(None, "--validation", exists=True, dir_okay=False,
                                           help="held-out pairs: their loss before and after goes in the manifest"),
    steps: int = typer.Option(50, "--steps", min=1, max=1_000_000),
    batch_size: int = typer.Option(1, "--batch-size", min=1, max=1024),
    learning_rate: float = typer.Option(2e-4, "--lr", min=1e-7, max=1.0),
    rank: int = typer.Option(8, "--rank", min=1, max=1024),
    alpha: int = typer.Option(16, "--alpha", min=1, max=4096),
    max_length: int = typer.Option(2048, "--max-length", min=16, max=131_072,
                                   help="pairs longer than this many tokens are left out (counted), never cut"),
    limit: int | None = typer.Option(None, "--limit", min=1, help="train on the first N pairs only"),
    seed: int = typer.Option(0, "--seed"),
    merge: bool = typer.Option(False, "--merge", help="also write the base with the adapter merged in (merged/)"),
    threads: int | None = typer.Option(None, "--threads", min=1, max=512, help="torch CPU threads"),
) -> None:
    """Fine-tune a small model with LoRA on distilled pairs (float32; on a GPU when torch sees one,
    else on the CPU) and write the adapter with a manifest of what it was trained on."""
    from mindagent.distill.lora import Recipe, RecipeError, train

    recipe = Recipe(data=data, out=out, base=base, validation=validation, steps=steps, batch_size=batch_size,
                    learning_rate=learning_rate, rank=rank, alpha=alpha, max_length=max_length, limit=limit,
                    seed=seed, merge=merge, threads=threads)
    with Progress(TextColumn("LoRA steps"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[loss]}"),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        task = progress.add_task("steps", total=steps, loss="")
        try:
            manifest = train(recipe, lambda _s, loss: progress.update(task, advance=1, loss=f"loss {loss:.3f}"))
        except RecipeError as exc:
            fail(str(exc))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    val = ("" if manifest.validation_loss_before is None else
           f"; validation loss {manifest.validation_loss_before:.3f} -> {manifest.validation_loss_after:.3f}")
    Console(soft_wrap=True, highlight=False).print(
        f"{manifest.examples} pairs ({manifest.too_long} too long), {manifest.steps} steps in {manifest.seconds} s "
        f"(load {load}); training-slice loss {manifest.slice_loss_before:.3f} -> {manifest.slice_loss_after:.3f}{val}\n"
        f"adapter: {manifest.adapter}" + (f"\nmerged: {manifest.merged}" if manifest.merged else ""), markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(distill_app, name="distill")
