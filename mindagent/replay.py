"""Re-executing a recording through the engine and failing loudly at the first divergence."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mindagent.recording import RecordingError, read_recording
from mindagent.setup_run import GameSpec, make_session


@dataclass(frozen=True)
class ReplayReport:
    steps: int
    completed: int
    failed: int
    active: int


class Divergence(RecordingError):
    """The engine did something other than what the recording says."""


def _spec(header: dict[str, object]) -> GameSpec:
    if header.get("domain", "cuisineworld") != "cuisineworld":
        raise RecordingError(f"replay of {header.get('domain')} recordings is not supported (it needs a live server)")
    return GameSpec(level=str(header["level"]), agents=int(header["agents"]), tau=float(header["tau"]),  # type: ignore[arg-type]
                    seed=int(header["seed"]), rules=str(header["rules"]),  # type: ignore[arg-type]
                    steps=header.get("max_steps"), recipes=header.get("recipes"))  # type: ignore[arg-type]


def replay_recording(path: str | Path) -> ReplayReport:
    records = read_recording(path)
    header = records[0]
    session = make_session(_spec(header))
    session.world.reset(generator_state=header.get("generator_state"))  # type: ignore[arg-type]
    steps = 0
    for record in records[1:]:
        if record["type"] == "step":
            t = record["step"]
            if session.world.time != t:
                raise Divergence(f"step {t}: the engine is at step {session.world.time}")
            if session.state_text() != record["state"]:
                raise Divergence(f"step {t}: state differs before the step\nrecorded:\n{record['state']}\nreplayed:\n{session.state_text()}")
            result = session.step_now(record["commands"])
            got = [{"command": v.command, "ok": v.ok, "reason": v.reason.to_dict() if v.reason else None, "text": v.text}  # type: ignore[attr-defined]
                   for v in result.verdicts]
            if got != record["verdicts"]:
                raise Divergence(f"step {t}: verdicts differ\nrecorded: {record['verdicts']}\nreplayed: {got}")
            for key, value in (("feedback", result.notes), ("completed", result.completed), ("failed", result.failed)):
                if list(value) != record[key]:
                    raise Divergence(f"step {t}: {key} differs: recorded {record[key]}, replayed {list(value)}")
            steps += 1
        elif record["type"] == "end":
            c = session.counts
            got_counts = (c.completed, c.failed, c.active)
            want = (record["completed"], record["failed"], record["active"])
            if got_counts != want:
                raise Divergence(f"end: counts differ: recorded {want}, replayed {got_counts}")
    c = session.counts
    return ReplayReport(steps, c.completed, c.failed, c.active)
