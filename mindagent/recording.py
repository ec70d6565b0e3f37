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
    from mindagent.dispatcher import Decision
    from mindagent.domain import DomainStep
    from mindagent.episode import EpisodeResult
    from mindagent.spec import GameSpec

FORMAT = "mindagent/recording@1"


def recording_path(folder: Path, spec: GameSpec, model: str, episode: int = 1) -> Path:
    """``level_3_2a_tau1.0_s0_e1_planner.jsonl``: the spec and model, safe for any file system."""
    safe = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in model)
    name = Path(spec.level or spec.domain).stem
    return folder / f"{name}_{spec.agents}a_tau{spec.tau}_s{spec.seed}_e{episode}_{safe}.jsonl"


class Recorder:
    """Writes one episode to a JSONL file; each line is flushed before the next step starts.

    With `keep`, every line is also kept in `records` (as it would read back from the file);
    without a path it is kept only (`eval` measures every episode, recorded to a file or not)."""

    def __init__(self, path: str | Path | None, keep: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] | None = [] if keep or path is None else None
        self._open = True
        self._file: IO[str] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")

    @property
    def closed(self) -> bool:
        return not self._open

    def _write(self, record: dict[str, Any]) -> None:
        if not self._open:
            raise ValueError(f"recording {self.path or '(in memory)'} is closed")
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        if self.records is not None:
            self.records.append(json.loads(line))  # exactly what reading the file gives back
        if self._file is not None:
            self._file.write(line + "\n")
            self._file.flush()

    def header(self, **fields: Any) -> None:
        self._write({"type": "header", "format": FORMAT, **fields})

    def step(self, t: int, state: str, orders: Sequence[dict[str, Any]], decision: Decision,
             result: DomainStep) -> None:
        usage = decision.usage
        self._write({
            "type": "step",
            "step": t,
            "state": state,
            "orders": list(orders),
            "head_chef": list(decision.head_chef),
            "calls": [c.to_dict() for c in decision.calls],
            "commands": list(decision.commands),
            "check": [{"command": v.command, "ok": v.ok} for v in decision.verdicts],
            "verdicts": [v.to_dict() for v in result.verdicts],
            "feedback": list(result.notes),
            "completed": list(result.completed),
            "failed": list(result.failed),
            "usage": {"prompt_tokens": usage.prompt_tokens, "cached_tokens": usage.cached_tokens,
                      "output_tokens": usage.output_tokens},
            "latency_s": round(usage.latency_s, 6),
            **({"plan": decision.plan} if decision.plan is not None else {}),
            **({"said": dict(decision.said)} if decision.said else {}),
            **({"partners": list(decision.partners)} if decision.partners else {}),
        })

    def extra(self, kind: str, **fields: Any) -> None:
        """Anything else worth keeping with the episode (a questionnaire, a chat line)."""
        self._write({"type": kind, **fields})

    def end(self, result: EpisodeResult) -> None:
        self._write({"type": "end", "completed": result.completed, "failed": result.failed, "active": result.active,
                     "steps": result.steps, "prompt_tokens": result.prompt_tokens,
                     "cached_tokens": result.cached_tokens, "output_tokens": result.output_tokens,
                     "model_errors": result.model_errors})
        self.close()

    def close(self) -> None:
        self._open = False
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
