"""`mindagent study export`: the table of a human study run with `mindagent serve --study FILE`."""

from __future__ import annotations

from pathlib import Path

import typer

from mindagent.cli.common import err, fail

study_app = typer.Typer(help="Human studies: export what `serve --study` recorded.", no_args_is_help=True)


@study_app.command("export")
def export(
    recordings: Path = typer.Option(Path("recordings/rooms"), "--recordings",
                                    help="folder of the study's room recordings"),
    out: Path = typer.Option(..., "--out", help="the table to write: FILE.csv or FILE.json"),
) -> None:
    """One row per participant and episode: answers, score, the person's share and refusals, and
    process metrics. Files that are not study recordings are skipped and counted."""
    from mindagent.evaluation.study_table import render, study_rows

    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "json"):
        fail(f"--out {out}: name a .csv or a .json file")
    if not recordings.is_dir():
        fail(f"--recordings {recordings}: not a folder")
    rows, skipped = study_rows(recordings)
    if skipped:
        err.print(f"skipped {len(skipped)} file(s) that are not study recordings (first: {skipped[0]})")
    if not rows:
        fail(f"{recordings}: no study recordings (rooms opened by `mindagent serve --study`)", code=1)
    try:
        out.write_text(render(rows, fmt), encoding="utf-8")
    except OSError as exc:
        fail(f"--out {out}: cannot write ({exc.strerror or exc})")
    people = len({r["participant"] for r in rows})
    typer.echo(f"wrote {len(rows)} row(s) for {people} participant(s) to {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(study_app, name="study")
