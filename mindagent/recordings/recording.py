"""Episode recordings: one JSON object per line, appended and flushed as each step happens.

A crash loses at most the step in flight. The header holds everything needed to rebuild the
episode (level, rule set, team, tau, seed and the order generator's exact state), so
`mindagent replay` can re-execute it and the `replay:` backend can answer from it.

A file killed mid-write ends in a torn line; reading keeps every full line before it and says so.
A file reaching its size cap (`recording_cap`) ends with a ``cut`` line instead of filling the disk.
An episode ended by an exception (a live world lost for good, a model that refuses the key, a
bug) ends with an ``error`` line naming the exception's kind and its redacted message, so the
file says how it ended instead of merely stopping.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mindagent.llm.redact import mask_known, redact_text
from mindagent.recordings.limits import (
    MAX_AGENTS,
    MAX_HEADER_TEXT,
    MAX_RECORDING_BYTES,
    MAX_STEPS,
    MAX_TAU,
    read_regular_file,
)

if TYPE_CHECKING:
    from mindagent.core.domain import DomainStep
    from mindagent.core.episode import EpisodeResult
    from mindagent.core.spec import GameSpec
    from mindagent.dispatch.dispatcher import Decision

FORMAT = "mindagent/recording@1"
#: Environment variable: megabytes one recording may grow to (default MAX_RECORDING_BYTES).
CAP_ENV = "MINDAGENT_MAX_RECORDING_MB"
#: Bytes kept free under the cap for the ``cut`` line itself.
_CUT_RESERVE = 1024
#: Characters of an exception's message kept in an ``error`` line.
MAX_ERROR_TEXT = 2000

log = logging.getLogger(__name__)


def recording_cap() -> int:
    """Bytes a recording may take: ``MINDAGENT_MAX_RECORDING_MB`` when set to a number of
    megabytes (at least 1), else `MAX_RECORDING_BYTES`."""
    raw = os.environ.get(CAP_ENV)
    if not raw:
        return MAX_RECORDING_BYTES
    try:
        megabytes = float(raw)
    except ValueError:
        megabytes = math.nan
    if not math.isfinite(megabytes) or megabytes < 1:
        log.warning("%s=%r is not a number of megabytes (1 or more); using %d bytes", CAP_ENV, raw, MAX_RECORDING_BYTES)
        return MAX_RECORDING_BYTES
    return int(megabytes * 1024 * 1024)


def recording_path(folder: Path, spec: GameSpec, model: str, episode: int = 1) -> Path:
    """``level_3_2a_tau1.0_s0_e1_planner.jsonl``: the spec and model, safe for any file system."""
    safe = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in model)
    name = Path(spec.level or spec.domain).stem
    return folder / f"{name}_{spec.agents}a_tau{spec.tau}_s{spec.seed}_e{episode}_{safe}.jsonl"


class Recorder:
    """Writes one episode to a JSONL file; each line is flushed before the next step starts.

    With `keep`, every line is also kept in `records` (as it would read back from the file);
    without a path it is kept only (`eval` measures every episode, recorded to a file or not).
    `max_bytes` (default `recording_cap()`) bounds the file: the line that would cross it is
    replaced by a ``cut`` line, and later lines are dropped from the file (the episode itself goes
    on, and the in-memory `records` keep every line)."""

    def __init__(self, path: str | Path | None, keep: bool = False, max_bytes: int | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] | None = [] if keep or path is None else None
        self._open = True
        self._file: IO[str] | None = None
        self.max_bytes = recording_cap() if max_bytes is None else max_bytes
        self._size = 0
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
            self._size = self.path.stat().st_size  # appending (a questionnaire after the end line)
        #: The cap was reached: the file ends with a ``cut`` line and keeps nothing after it.
        self.cut = self._file is not None and self._size >= self.max_bytes - _CUT_RESERVE
        self.dropped = 0

    @property
    def closed(self) -> bool:
        return not self._open

    def _write(self, record: dict[str, Any]) -> None:
        if not self._open:
            raise ValueError(f"recording {self.path or '(in memory)'} is closed")
        # a known secret (an API key, a URL password, the admin token) never reaches the file
        text = mask_known(json.dumps(record, ensure_ascii=False, sort_keys=True))
        if self.records is not None:
            self.records.append(json.loads(text))  # exactly what reading the file gives back
        if self._file is None:
            return
        if self.cut:
            self.dropped += 1
            return
        line = text + "\n"
        size = len(line.encode("utf-8"))
        if self._size + size > self.max_bytes - _CUT_RESERVE:
            self.cut, self.dropped = True, 1
            line = json.dumps({"type": "cut", "reason": f"the recording reached its size cap of {self.max_bytes} bytes",
                               "max_bytes": self.max_bytes, "at": record.get("type"),
                               **({"step": record["step"]} if isinstance(record.get("step"), int) else {})},
                              sort_keys=True) + "\n"
            size = len(line.encode("utf-8"))
            log.warning("recording %s reached its size cap of %d bytes (%s); the rest of the episode is not "
                        "recorded", self.path, self.max_bytes, CAP_ENV)
        self._file.write(line)
        self._file.flush()
        self._size += size

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

    def error(self, exc: BaseException, step: int | None = None) -> None:
        """The episode ended by `exc` instead of reaching its ``end``: the last line says so
        (kind and redacted message) and the file is closed. Written even past the size cap."""
        message = redact_text(str(exc))[:MAX_ERROR_TEXT]
        record: dict[str, Any] = {"type": "error", "kind": type(exc).__name__, "message": message,
                                  **({"step": step} if step is not None else {})}
        if self.cut and self._file is not None:  # past the cap only this one line is still written
            self._file.write(mask_known(json.dumps(record, ensure_ascii=False, sort_keys=True)) + "\n")
            if self.records is not None:
                self.records.append(record)
        else:
            self._write(record)
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


class RecordingHeader(BaseModel):
    """The header fields every reader relies on, each bounded (mindagent/recordings/limits.py), checked
    before a game is built from them; other fields pass through to the domain's `restore`."""

    model_config = ConfigDict(extra="allow")

    type: Literal["header"]
    format: Literal["mindagent/recording@1"]
    domain: str | None = Field(default=None, max_length=64)
    level: str | None = Field(default=None, max_length=MAX_HEADER_TEXT)
    # optional here (a partial header still reads for metrics); `replay` needs them (GameSpec.from_header)
    agents: int | None = Field(default=None, ge=1, le=MAX_AGENTS)
    tau: float | None = Field(default=None, gt=0, le=MAX_TAU, allow_inf_nan=False)
    seed: int | None = Field(default=None, ge=-(2**63), le=2**63)
    rules: str | None = Field(default=None, max_length=64)
    max_steps: int | None = Field(default=None, ge=1, le=MAX_STEPS)
    run_steps: int | None = Field(default=None, ge=1, le=MAX_STEPS)
    recipes: str | None = Field(default=None, max_length=MAX_HEADER_TEXT)
    episode: int | None = Field(default=None, ge=0, le=2**31)
    options: dict[str, Any] | None = None


@dataclass(frozen=True)
class Recording:
    """A recording's lines. `torn` is the text of a last line left half-written (its writer was
    killed mid-line): it is not among `records`."""

    records: list[dict[str, Any]]
    torn: str | None = None

    @property
    def ended(self) -> bool:
        return any(r["type"] == "end" for r in self.records)

    @property
    def error(self) -> dict[str, Any] | None:
        """The ``error`` line of an episode ended by an exception (its ``kind`` and ``message``)."""
        return next((r for r in self.records if r["type"] == "error"), None)

    @property
    def cut(self) -> dict[str, Any] | None:
        """The ``cut`` line when the file reached its size cap."""
        return next((r for r in self.records if r["type"] == "cut"), None)

    @property
    def last_step(self) -> int | None:
        steps = [r.get("step") for r in self.records if r["type"] == "step"]
        return steps[-1] if steps and isinstance(steps[-1], int) else None


def load_recording(path: str | Path) -> Recording:
    """Every full line of a recording, its header checked against the limits first.

    A last line without its newline that is not JSON is a write cut short by a kill: it is left
    out and reported in `Recording.torn`; any other bad line is a `RecordingError`."""
    path = Path(path)
    data = read_regular_file(path, max(recording_cap(), MAX_RECORDING_BYTES), RecordingError, f" ({CAP_ENV})")
    lines = data.decode("utf-8", errors="replace").split("\n")
    records: list[dict[str, Any]] = []
    torn = None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if n == len(lines):  # no newline after it: the writer died mid-line
                torn = line
                break
            raise RecordingError(f"{path}:{n}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise RecordingError(f"{path}:{n}: nested too deeply") from None
        if not isinstance(record, dict) or "type" not in record:
            raise RecordingError(f"{path}:{n}: not a recording line")
        if not records:
            _check_header(record, path)
        records.append(record)
    if not records:
        raise RecordingError(f"{path}: no {FORMAT} header on the first line")
    return Recording(records, torn)


def _check_header(record: dict[str, Any], path: Path) -> None:
    if record.get("type") != "header" or record.get("format") != FORMAT:
        raise RecordingError(f"{path}: no {FORMAT} header on the first line")
    try:
        RecordingHeader.model_validate(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(header)"
        raise RecordingError(f"{path}:1: header field {field}: {first['msg']}") from None


def read_recording(path: str | Path) -> list[dict[str, Any]]:
    """The full lines of a recording (see `load_recording`, which also tells of a torn end)."""
    return load_recording(path).records
