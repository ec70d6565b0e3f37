"""`mindagent metrics`: process metrics of recorded episodes (efficiency, collaboration, balance, cost)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from mindagent.cli.common import fail
from mindagent.recordings.recording import RecordingError

out = Console(highlight=False, soft_wrap=True)


def metrics(
    recordings: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="JSONL recordings"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object per recording"),
) -> None:
    """Process metrics of each recorded episode (docs/guide/metrics.md defines every figure)."""
    from mindagent.evaluation.metrics import episode_metrics

    rows = []
    for path in recordings:
        try:
            rows.append((path, episode_metrics(path)))
        except (RecordingError, ValueError, KeyError, OSError) as exc:
            fail(f"{path}: {exc}")
        except (TypeError, AttributeError, IndexError, RecursionError) as exc:  # a field a game reads, crafted
            fail(f"{path}: not a recording metrics can read ({type(exc).__name__}: {str(exc)[:160]})")
    if as_json:
        for path, m in rows:
            typer.echo(json.dumps({"recording": str(path), **m.to_dict()}))
        return
    for path, m in rows:
        table = Table(title=f"{path.name}: {m.domain} {m.level}, {m.model}, {m.steps} steps, "
                            f"{m.completed} served / {m.failed} failed / {m.active} open")
        for col in ("agent", "commands", "ok", "refused", "idle", "share of ok"):
            table.add_column(col)
        for a in m.agents:
            table.add_row(a.name, str(a.commands), str(a.ok), str(a.refused), str(a.idle), f"{a.share:.2f}")
        out.print(table)
        extra = {"balance (Gini)": m.balance_gini, "idle agents per step": m.idle_per_step,
                 "tokens per dish": m.tokens_per_dish, **m.process}
        out.print("  " + "; ".join(f"{k}: {v}" for k, v in extra.items()))


def register(app: typer.Typer) -> None:
    app.command("metrics")(metrics)
