"""A study file: the episodes each participant of a human study plays, in which order, after
which consent text (`mindagent serve --study FILE`).

The server keeps no per-participant state: a participant's id carries their number
(``0007-<random hex>``), and the order of their episodes is recomputed from it, so any worker
of a sharded server can open their next room. The id is random apart from the number: no
personal data. Every recording of theirs carries ``study: {name, participant, index, of, seat}``
and a ``results`` line (the score and each agent's share, as the page showed them).

Example study file (JSON)::

    {"name": "pilot", "consent": "You will play two short games...", "order": "counterbalanced",
     "entries": [{"level": "level_1", "agents": 2, "partner": "planner", "pace": 2, "steps": 20},
                 {"level": "level_2", "agents": 2, "partner": "random", "pace": 2, "steps": 20}]}
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from mindagent.recordings.limits import MAX_EPISODE_STEPS, read_regular_file
from mindagent.server.choices import room_settings
from mindagent.server.protocol import Play, ProtocolError
from mindagent.server.settings import RoomSettings

if TYPE_CHECKING:
    from mindagent.core.domain import Domain
    from mindagent.server.app import ServerConfig

#: Bytes a study file may have.
MAX_STUDY_BYTES = 256 * 1024
#: Episodes a study may list.
MAX_ENTRIES = 50
PARTICIPANT_RE = re.compile(r"^(\d{4,9})-[0-9a-f]{16}$")


class StudyError(ValueError):
    """A study file that cannot be used: one line naming the file and the first problem."""


class StudyEntry(BaseModel):
    """One episode: what the lobby's play form would choose, plus the person's seat and a length."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    level: Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$")]
    agents: Annotated[int, Field(ge=1, le=8)] = 2
    partner: Literal["planner", "model", "random"] = "planner"
    pace: Annotated[float, Field(ge=0.1, le=60.0, allow_inf_nan=False)] = 3.0
    seat: Annotated[int, Field(ge=0, le=7)] = 0
    steps: Annotated[int, Field(ge=1, le=MAX_EPISODE_STEPS)] | None = None
    seed: Annotated[int, Field(ge=0, le=2**31)] = 0


class StudyFile(BaseModel):
    """The whole study. `order`: "fixed" plays the entries as listed; "counterbalanced" rotates
    them by the participant's number (participant 1 starts at entry 2, and so on: a Latin square
    over the participants). `episodes`: how many of the (ordered) entries each participant plays."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")]
    consent: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
    order: Literal["fixed", "counterbalanced"] = "fixed"
    entries: Annotated[list[StudyEntry], Field(min_length=1, max_length=MAX_ENTRIES)]
    episodes: Annotated[int, Field(ge=1, le=MAX_ENTRIES)] | None = None

    @property
    def total(self) -> int:
        return min(self.episodes or len(self.entries), len(self.entries))

    def order_for(self, number: int) -> list[int]:
        """The entry indices participant `number` plays, in order (same number, same order)."""
        n = len(self.entries)
        shift = number % n if self.order == "counterbalanced" else 0
        return [(shift + i) % n for i in range(self.total)]

    def entry_for(self, participant: str, index: int) -> StudyEntry:
        """The participant's `index`-th episode; `ProtocolError` for an id or index out of the study."""
        match = PARTICIPANT_RE.match(participant)
        if match is None:
            raise ProtocolError("invalid", "not a participant id of this study")
        if not 0 <= index < self.total:
            raise ProtocolError("invalid", f"this study has {self.total} episodes")
        return self.entries[self.order_for(int(match.group(1)))[index]]

    def welcome(self) -> dict[str, Any]:
        """What the page needs before the first episode."""
        return {"name": self.name, "consent": self.consent, "episodes": self.total}


def load_study(path: str | Path) -> StudyFile:
    """The study in `path` (JSON); `StudyError` with one line for anything wrong."""
    path = Path(path)
    data = read_regular_file(path, MAX_STUDY_BYTES, StudyError)
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StudyError(f"{path}: not a JSON study file ({exc})") from None
    except RecursionError:
        raise StudyError(f"{path}: nested too deeply") from None
    try:
        return StudyFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise StudyError(f"{path}: {where}: {first['msg']}") from None


def check_study(study: StudyFile, domain: Domain, config: ServerConfig) -> None:
    """Refuse at start-up (not in front of a participant) an entry this server could not open."""
    for n, entry in enumerate(study.entries):
        try:
            entry_settings(study, entry, domain, config, "0000-" + "0" * 16, n)
        except ProtocolError as exc:
            raise StudyError(f"study {study.name}: entry {n + 1}: {exc.message}") from None
        if entry.seat >= entry.agents:
            raise StudyError(f"study {study.name}: entry {n + 1}: seat {entry.seat} but {entry.agents} agents")


def new_participant(number: int) -> str:
    """A participant id: their number (for the order) and 64 random bits (nothing personal)."""
    return f"{number:04d}-{secrets.token_hex(8)}"


def entry_settings(study: StudyFile, entry: StudyEntry, domain: Domain, config: ServerConfig,
                   participant: str, index: int) -> RoomSettings:
    """The private room for one episode: the play path's checks and settings, with the entry's
    length and seed, and the study's mark for the recording."""
    play = Play(v=1, type="play", level=entry.level, agents=entry.agents, partner=entry.partner, pace=entry.pace)
    settings = room_settings(play, domain, config)
    spec = settings.spec.with_(seed=entry.seed, steps=entry.steps)
    return replace(settings, spec=spec, model_why=f"{settings.model_why.split(',')[0]}, set by the study",
                   study={"name": study.name, "participant": participant, "index": index, "of": study.total,
                          "seat": entry.seat})


__all__ = ["MAX_STUDY_BYTES", "StudyEntry", "StudyError", "StudyFile", "check_study", "entry_settings", "load_study",
           "new_participant"]
