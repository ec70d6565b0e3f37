"""A room's recordings: one JSONL file per episode under the room folder, plus the questionnaires.

The file is the same `mindagent/recording@1` format `mindagent run` writes (so `mindagent replay`
re-executes it); the server adds ``actors`` lines (who gave each command: a person, the dispatcher,
or nobody in time), ``seat`` lines (joins and leaves) and, after the ``end`` line, one
``questionnaire`` line per answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindagent.dispatcher import Decision, EpisodeResult
from mindagent.domain import DomainStep
from mindagent.recording import Recorder


class EpisodeLog:
    """Opens lazily (a room nobody plays writes nothing) and sums token use for the end line."""

    def __init__(self, folder: Path, room_id: str) -> None:
        self.folder = folder
        self.room_id = room_id
        self.path: Path | None = None
        self._recorder: Recorder | None = None
        self._totals = [0, 0, 0, 0.0]  # prompt, cached, output tokens, latency

    @property
    def open(self) -> bool:
        return self._recorder is not None

    def start(self, episode: int, header: dict[str, Any]) -> Path:
        """A new file for `episode`; never appends to an older one."""
        self.close()
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.room_id}_e{episode}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = self.folder / f"{self.room_id}_e{episode}_{n}.jsonl"
        self.path = path
        self._recorder = Recorder(path)
        self._recorder.header(**header)
        self._totals = [0, 0, 0, 0.0]
        return path

    def step(self, t: int, state: str, head_chef: Sequence[str], decision: Decision, result: DomainStep,
             session: Any, actors: list[str]) -> None:
        if self._recorder is None:
            return
        usage = decision.usage
        self._totals[0] += usage.prompt_tokens
        self._totals[1] += usage.cached_tokens
        self._totals[2] += usage.output_tokens
        self._totals[3] += usage.latency_s
        self._recorder.step(t, state, head_chef, decision, result, session)
        self._recorder.extra("actors", step=t, actors=actors)

    def note(self, kind: str, **fields: Any) -> None:
        if self._recorder is not None:
            self._recorder.extra(kind, **fields)

    def end(self, completed: int, failed: int, active: int, steps: int) -> None:
        if self._recorder is None:
            return
        prompt, cached, output, latency = self._totals
        result = EpisodeResult(completed, failed, active, steps, int(prompt), int(cached), int(output), latency)
        self._recorder.end(result)
        self._recorder = None

    def questionnaire(self, **fields: Any) -> None:
        """Appended after the episode's end line (the file is reopened for that one line)."""
        if self.path is None:
            return
        recorder = Recorder(self.path)
        try:
            recorder.extra("questionnaire", **fields)
        finally:
            recorder.close()

    def close(self) -> None:
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None
