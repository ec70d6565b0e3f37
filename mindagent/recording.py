"""Episode recordings: one JSON object per line, appended and flushed as each step happens.

A crash loses at most the step in flight. The header holds everything needed to rebuild the
episode (level, rule set, team, tau, seed and the order generator's exact state), so
`mindagent replay` can re-execute it and the `replay:` backend can answer from it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mindagent.dispatcher import Decision, EpisodeResult
    from mindagent.domain import DomainSession, DomainStep

FORMAT = "mindagent/recording@1"


def _reason(reason: object) -> object:
    to_dict = getattr(reason, "to_dict", None)
    return to_dict() if callable(to_dict) else (None if reason is None else str(reason))


class Recorder:
    """Writes one episode to a JSONL file; each line is flushed before the next step starts."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = self.path.open("a", encoding="utf-8")

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError(f"recording {self.path} is closed")
        self._file.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        self._file.flush()

    def header(self, **fields: Any) -> None:
        self._write({"type": "header", "format": FORMAT, **fields})

    def step(self, t: int, state: str, head_chef: Sequence[str], decision: "Decision", result: "DomainStep",
             session: "DomainSession") -> None:
        usage = decision.usage
        orders = getattr(session, "orders_snapshot", lambda: None)()
        self._write({
            "type": "step",
            "step": t,
            "state": state,
            "orders": orders,
            "head_chef": list(head_chef),
            "calls": [c.to_dict() for c in decision.calls],
            "commands": list(decision.commands),
            "check": [{"command": v.command, "ok": v.ok} for v in decision.verdicts],
            "verdicts": [{"command": v.command, "ok": v.ok, "reason": _reason(v.reason), "text": v.text}
                         for v in result.verdicts],
            "feedback": list(result.notes),
            "completed": list(result.completed),
            "failed": list(result.failed),
            "usage": {"prompt_tokens": usage.prompt_tokens, "cached_tokens": usage.cached_tokens,
                      "output_tokens": usage.output_tokens},
            "latency_s": round(usage.latency_s, 6),
        })

    def extra(self, kind: str, **fields: Any) -> None:
        """Anything else worth keeping with the episode (a questionnaire, a chat line)."""
        self._write({"type": kind, **fields})

    def end(self, result: "EpisodeResult") -> None:
        self._write({"type": "end", "completed": result.completed, "failed": result.failed, "active": result.active,
                     "steps": result.steps, "prompt_tokens": result.prompt_tokens,
                     "cached_tokens": result.cached_tokens, "output_tokens": result.output_tokens})
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None


class RecordingError(ValueError):
    """A recording cannot be read (not JSONL, no header) or diverged on replay."""


def read_recording(path: str | Path) -> list[dict[str, Any]]:
    records = []
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordingError(f"{path}:{n}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict) or "type" not in record:
                raise RecordingError(f"{path}:{n}: not a recording line")
            records.append(record)
    if not records or records[0]["type"] != "header" or records[0].get("format") != FORMAT:
        raise RecordingError(f"{path}: no {FORMAT} header on the first line")
    return records
