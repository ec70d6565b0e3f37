"""Partners the dispatcher did not choose: `--control` agents are the dispatcher's, the rest theirs.

LLM-Coordination tests an agent with scripted or unseen partners; here any dispatcher (central,
decentral, task graph; model or planner) can be paired with:

- ``planner``: the domain's planner, playing its agents around the dispatcher's (it never counts
  on what the dispatcher's agents will do);
- ``random``: the domain's random legal policy;
- ``noop``: partners that always idle (the dispatcher must do everything itself);
- ``replay:FILE``: the commands a recorded episode gave those agents, step by step (idle after
  the recording ends), e.g. a person's game or another model's;
- ``KIND:ARGUMENT``: any other policy the domain builds from a name with an argument (a trained
  policy ``policy:DIR``, a behaviour-cloning human proxy ``bc:DIR``, ...).

Partners' commands go first in the step (a planner partner plans to be accepted before the
others act) and are recorded apart (``"partners"`` in each step line).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from mindagent.core.capabilities import policy_commands
from mindagent.core.domain import Domain, DomainSession, SpecError
from mindagent.recordings.recording import RecordingError, read_recording

PARTNER_KINDS = ("planner", "random", "noop", "replay:FILE", "KIND:ARGUMENT (the domain's)")


class Partner(Protocol):
    """Plays `agents` for one step."""

    name: str

    def reset(self, session: DomainSession) -> None: ...

    def act(self, session: DomainSession, agents: Sequence[int]) -> list[str]: ...


class PolicyPartner:
    """A built-in policy of the domain, restricted to the partner agents."""

    def __init__(self, name: str, policy: Any) -> None:
        self.name = name
        self.policy = policy

    def reset(self, session: DomainSession) -> None:
        self.policy.reset(session)

    def act(self, session: DomainSession, agents: Sequence[int]) -> list[str]:
        commands = policy_commands(self.policy, session, agents)
        return [c for c in commands if session.agent_of(c) in agents]


class NoopPartner:
    name = "noop"

    def reset(self, session: DomainSession) -> None:
        return None

    def act(self, session: DomainSession, agents: Sequence[int]) -> list[str]:
        return [session.idle_command(a) for a in agents]


class ReplayPartner:
    """The recorded commands of the partner agents at the same step of a recorded episode."""

    def __init__(self, path: Path) -> None:
        self.name = f"replay:{path}"
        try:
            records = read_recording(path)
        except (OSError, RecordingError) as exc:
            raise SpecError(f"--partners replay: {exc}") from None
        self.steps: dict[int, list[str]] = {
            int(r["step"]): [str(c) for c in r.get("commands", [])] for r in records if r["type"] == "step"}

    def reset(self, session: DomainSession) -> None:
        return None

    def act(self, session: DomainSession, agents: Sequence[int]) -> list[str]:
        recorded = [c for c in self.steps.get(session.step_index, []) if session.agent_of(c) in agents]
        given = {session.agent_of(c) for c in recorded}
        return recorded + [session.idle_command(a) for a in agents if a not in given]


def make_partner(spec: str, domain: Domain, seed: int) -> Partner:
    """``planner``, ``random``, ``noop``, ``replay:FILE`` or a domain's ``KIND:ARGUMENT`` policy;
    `SpecError` for anything else (the domain's own words for a name it does not know)."""
    if spec == "noop":
        return NoopPartner()
    if spec.startswith("replay:"):
        return ReplayPartner(Path(spec.removeprefix("replay:")))
    if spec in domain.policies or ":" in spec:
        return PolicyPartner(spec, domain.make_policy(spec, seed))
    raise SpecError(f"--partners must be one of {', '.join(PARTNER_KINDS)} ({domain.name} has: "
                    f"{', '.join(domain.policies)}, noop, replay:FILE)")


def parse_control(text: str) -> tuple[int, ...]:
    """``--control``: a number k (the first k agents: ``2`` -> agents 0 and 1) or a list of agents
    (``0,2`` or ``agent0,agent2``). `SpecError` when it cannot be read."""
    text = text.strip()
    if text.isdigit():
        if int(text) < 1:
            raise SpecError("--control needs at least one agent")
        return tuple(range(int(text)))
    try:
        agents = [int(p.strip().removeprefix("agent")) for p in text.split(",") if p.strip()]
    except ValueError:
        raise SpecError(f"--control takes a number k or a list of agents like 0,2, not {text!r}") from None
    if not agents or any(a < 0 for a in agents) or len(set(agents)) != len(agents):
        raise SpecError(f"--control takes a number k or a list of distinct agents like 0,2, not {text!r}")
    return tuple(sorted(agents))
