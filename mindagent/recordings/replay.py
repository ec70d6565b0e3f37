"""Re-executing a recording through its domain and failing loudly at the first divergence.

A recording whose writer was killed replays up to its last full line; the report says the end
line is missing (or that the file was cut at its size cap, or that the episode ended by an error,
naming it) rather than calling it a divergence.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from mindagent.core import registry as domains
from mindagent.core.capabilities import Replayable
from mindagent.core.domain import DomainSession, ReplayUnsupported, SpecError
from mindagent.core.spec import GameSpec
from mindagent.recordings.recording import RecordingError, load_recording


@dataclass(frozen=True)
class ReplayReport:
    steps: int
    completed: int
    failed: int
    active: int
    #: The file has its ``end`` line (an episode played to its end, or stopped by --steps).
    ended: bool = True
    #: The file ends in a half-written line (left out of the replay).
    torn: bool = False
    #: The file reached its size cap: the ``cut`` line's reason.
    cut: str | None = None
    #: The episode ended by an exception: ``Kind: message`` from its ``error`` line.
    error: str | None = None
    #: The step the ``error`` line names (None when it names none).
    error_step: int | None = None

    def incomplete(self) -> str | None:
        """One line on why the file ends early, or None for a whole recording."""
        if self.error is not None:
            at = f" at step {self.error_step}" if self.error_step is not None else ""
            return f"the episode ended by an error{at} ({self.error}); replayed the {self.steps} steps before it"
        if self.cut is not None:
            return f"{self.cut}; replayed the {self.steps} steps before it"
        if self.ended:
            return None
        torn = ", and a half-written last line was left out" if self.torn else ""
        return (f"the end line is missing (its writer stopped after {self.steps} steps{torn}); "
                f"replayed every full line")


class Divergence(RecordingError):
    """The game did something other than what the recording says."""


async def session_for(header: dict[str, object]) -> DomainSession:
    """A fresh session of the recorded game, restored to the header's start (level, seed, the
    order generator's exact state): what replay and distillation step the recorded commands
    through. Every reason it cannot be built is one `RecordingError`."""
    try:
        spec = domains.validate(GameSpec.from_header(header, domains.default_domain()))
        domain = domains.get(spec.domain)
        if domain.live_world:
            raise ReplayUnsupported(f"{domain.name} recordings cannot be re-executed offline (it needs a live world)")
        session = domain.make_session(spec)
        if not isinstance(session, Replayable):
            raise ReplayUnsupported(f"{domain.name} recordings cannot be re-executed offline")
        await session.restore(header)
    except (SpecError, ReplayUnsupported, ValueError) as exc:
        raise RecordingError(str(exc)) from None
    return session


def replay_recording(path: str | Path) -> ReplayReport:
    """Step a fresh session with the recorded commands; `Divergence` at the first difference.

    Synchronous, for the CLI and scripts; inside an event loop use `replay_recording_async`."""
    return asyncio.run(replay_recording_async(path))


async def replay_recording_async(path: str | Path) -> ReplayReport:
    """`replay_recording` for callers already inside an event loop."""
    recording = load_recording(path)
    records = recording.records
    session = await session_for(records[0])
    steps = 0
    try:
        for record in records[1:]:
            if record["type"] == "step":
                await _replay_step(session, record)
                steps += 1
            elif record["type"] == "end":
                c = session.counts
                got = (c.completed, c.failed, c.active)
                want = (record.get("completed"), record.get("failed"), record.get("active"))
                if got != want:
                    raise Divergence(f"end: counts differ: recorded {want}, replayed {got}")
        c = session.counts
        cut, error = recording.cut, recording.error
        return ReplayReport(steps, c.completed, c.failed, c.active, ended=recording.ended,
                            torn=recording.torn is not None, cut=None if cut is None else str(cut.get("reason")),
                            error=None if error is None else f"{error.get('kind')}: {error.get('message')}"[:500],
                            error_step=error.get("step") if error is not None and isinstance(error.get("step"), int)
                            else None)
    finally:
        await session.aclose()


async def _replay_step(session: DomainSession, record: dict[str, object]) -> None:
    t = record.get("step")
    if session.step_index != t:
        raise Divergence(f"step {t}: the game is at step {session.step_index}")
    if session.state_text() != record.get("state"):
        raise Divergence(f"step {t}: state differs before the step\nrecorded:\n{record.get('state')}\n"
                         f"replayed:\n{session.state_text()}")
    commands = record.get("commands")
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise RecordingError(f"step {t}: the recorded commands are not a list of strings")
    result = await session.step(commands)
    got = [v.to_dict() for v in result.verdicts]
    if got != record.get("verdicts"):
        raise Divergence(f"step {t}: verdicts differ\nrecorded: {record.get('verdicts')}\nreplayed: {got}")
    for key, value in (("feedback", result.notes), ("completed", result.completed), ("failed", result.failed)):
        if list(value) != record.get(key):
            raise Divergence(f"step {t}: {key} differs: recorded {record.get(key)}, replayed {list(value)}")
