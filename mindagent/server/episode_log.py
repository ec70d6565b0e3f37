"""A room's recordings: one JSONL file per episode under the room folder, plus the questionnaires.

The file is the same `mindagent/recording@1` format `mindagent run` writes (so `mindagent replay`
re-executes it): the room's `Episode` writes the steps and the end line through the `Recorder`
this opens; the room adds ``actors`` lines (who gave each command: a person, the dispatcher, or
nobody in time), ``seat`` lines (joins and leaves) and, after the ``end`` line, one
``questionnaire`` line per answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mindagent.recordings.recording import Recorder

#: Lines kept for a file not yet open (the rest of a waiting room's churn is not recorded).
MAX_PENDING = 64


class EpisodeLog:
    """Opens lazily (a room nobody plays writes nothing)."""

    def __init__(self, folder: Path, room_id: str) -> None:
        self.folder = folder
        self.room_id = room_id
        self.path: Path | None = None
        self._recorder: Recorder | None = None
        # lines noted before the episode's file opens (the first person's seat line): written
        # right after its header; bounded, since waiting rooms see any amount of churn
        self._pending: list[tuple[str, dict[str, Any]]] = []

    @property
    def open(self) -> bool:
        return self._recorder is not None and not self._recorder.closed

    def start(self, episode: int, header: dict[str, Any]) -> Recorder:
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
        for kind, fields in self._pending:
            self._recorder.extra(kind, **fields)
        self._pending.clear()
        return self._recorder

    def note(self, kind: str, **fields: Any) -> None:
        if self.open and self._recorder is not None:
            self._recorder.extra(kind, **fields)
        elif len(self._pending) < MAX_PENDING:
            self._pending.append((kind, fields))

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
