"""One table of a human study (`mindagent study export`): a row per participant and episode with
their questionnaire answers, the team's score, the person's share and refusals, and the episode's
process metrics (metrics.py).

Rows come only from recordings whose header carries ``study`` (rooms opened by `serve --study`);
any other file in the folder is skipped and counted, never a crash. Answer columns are the
questionnaire items found, in the order first seen, so the table follows the questionnaire.

Example::

    rows, skipped = study_rows(Path("recordings/rooms"))
    write_table(rows, Path("study.csv"))
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from mindagent.evaluation.metrics import records_metrics
from mindagent.recordings.recording import RecordingError, read_recording

#: The columns every row has, before the answer columns.
BASE_COLUMNS = ("participant", "study", "index", "level", "agents", "partner", "seat", "ended", "steps", "completed",
                "failed", "score", "share", "served", "commands", "refused", "idle", "balance_gini", "idle_per_step",
                "recording")
#: Recordings a folder may hold for one export (each read with the recordings' size limit).
MAX_FILES = 100_000


def _questionnaire(records: list[dict[str, Any]], seat: int) -> tuple[dict[str, Any], str]:
    """The participant's answers (the player's line for their seat) and their comment."""
    for r in records:
        if r.get("type") == "questionnaire" and r.get("role") == "player" and r.get("agent") == seat:
            answers = r.get("answers")
            return (dict(answers) if isinstance(answers, dict) else {}), str(r.get("comment") or "")
    return {}, ""


def study_row(path: Path) -> dict[str, Any] | None:
    """The row of one recording; None when it is not a study recording. `RecordingError` (or
    ValueError) for a file that is not a recording at all."""
    records = read_recording(path)
    header = records[0]
    study = header.get("study")
    if not isinstance(study, dict) or not isinstance(study.get("seat"), int):
        return None
    seat: int = study["seat"]
    chosen = header.get("chosen") if isinstance(header.get("chosen"), dict) else {}
    end = next((r for r in records if r.get("type") == "end"), None)
    results = next((r for r in records if r.get("type") == "results"), None)
    person = {}
    if results is not None and isinstance(results.get("team"), list):
        person = next((a for a in results["team"] if isinstance(a, dict) and a.get("agent") == seat), {})
    metrics = records_metrics(records)
    mine = next((a for a in metrics.agents if a.agent == seat), None)
    answers, comment = _questionnaire(records, seat)
    return {
        "participant": study.get("participant"), "study": study.get("name"), "index": study.get("index"),
        "level": header.get("level"), "agents": header.get("agents"), "partner": (chosen or {}).get("partner"),
        "seat": seat, "ended": end is not None, "steps": metrics.steps,
        "completed": metrics.completed, "failed": metrics.failed,
        "score": results.get("score") if results is not None else None,
        "share": person.get("share"), "served": person.get("served"),
        "commands": mine.commands if mine else None, "refused": mine.refused if mine else None,
        "idle": mine.idle if mine else None, "balance_gini": round(metrics.balance_gini, 4),
        "idle_per_step": round(metrics.idle_per_step, 4), "recording": path.name,
        "answers": answers, "comment": comment,
    }


def study_rows(folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every study row under `folder` (sorted by study, participant, episode) and one short line
    per file skipped (not a recording, or not a study's)."""
    paths = sorted(p for p in folder.glob("*.jsonl"))[:MAX_FILES]
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in paths:
        try:
            row = study_row(path)
        except (RecordingError, ValueError, KeyError, TypeError, AttributeError) as exc:
            skipped.append(f"{path.name}: {str(exc)[:160]}")
            continue
        if row is None:
            skipped.append(f"{path.name}: not a study recording")
        else:
            rows.append(row)
    rows.sort(key=lambda r: (str(r["study"]), str(r["participant"]), r["index"] if isinstance(r["index"], int) else -1))
    return rows, skipped


def flatten(rows: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns (base, then each answer in first-seen order, then the comment) and flat rows."""
    items: list[str] = []
    for row in rows:
        items.extend(k for k in row["answers"] if k not in items)
    columns = [*BASE_COLUMNS, *items, "comment"]
    flat = [{**{c: row[c] for c in BASE_COLUMNS}, **{k: row["answers"].get(k) for k in items},
             "comment": row["comment"]} for row in rows]
    return columns, flat


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    """The table as CSV (one header line, a line per row) or JSON (a list of flat objects)."""
    columns, flat = flatten(rows)
    if fmt == "json":
        return json.dumps(flat, indent=1, ensure_ascii=False) + "\n"
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in flat:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


__all__ = ["BASE_COLUMNS", "flatten", "render", "study_row", "study_rows"]
