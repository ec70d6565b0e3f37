"""The one protocol a game fills so the dispatcher, evaluation and server work on it unchanged.

CuisineWorld (pure and synchronous) and Minecraft (bots behind a Node process) both implement
`DomainSession`. Stepping is async because one domain does real I/O; a pure domain simply
returns at once. Everything the dispatcher needs to build a prompt or score an episode goes
through here, so nothing above this module imports a concrete game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one command got (or would get): ok, or refused with a structured reason.

    `reason` is domain-typed (CuisineWorld's `Refusal`, Minecraft's `ActionError`); `text` is the
    English line the `feedback` layer made of it, ready for a prompt or a page.
    """

    command: str
    ok: bool
    reason: object | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Counts:
    completed: int
    failed: int
    active: int


@dataclass(frozen=True, slots=True)
class PromptParts:
    """The static text a domain contributes to the dispatcher prompt (byte-stable per episode).

    Example: ``PromptParts(recipes="...", instructions="...", knowledge="...")``.
    """

    recipes: str
    instructions: str
    knowledge: str


@dataclass(frozen=True, slots=True)
class DomainStep:
    """The result of one joint step: per-command verdicts in the order given, plus step notes."""

    verdicts: list[Verdict]
    notes: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@runtime_checkable
class DomainSession(Protocol):
    """One live episode of a game, driven by the dispatcher.

    Example::

        session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
        await session.reset()
        print(session.state_text())
        step = await session.step(["goto_agent0_storage0", "noop_agent1"])
    """

    name: str
    n_agents: int
    max_steps: int

    async def reset(self) -> None:
        """Start the next episode (the order generator carries over, as in the reference)."""

    async def step(self, commands: Sequence[str]) -> DomainStep:
        """Execute one joint command list, in order; never raises on bad commands."""

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        """Verdicts the commands would get now, without changing anything."""

    def legal_commands(self, agent: int) -> list[str]:
        """Every command that would succeed for `agent` now, e.g. ``["noop_agent0", ...]``."""

    def extract_commands(self, text: str) -> list[str]:
        """Commands of this domain found in free model text, at most one per agent."""

    def state_text(self) -> str:
        """The current state as the dispatcher reads it (deterministic ordering)."""

    def prompt_parts(self) -> PromptParts:
        """Static prompt text: recipes, instructions, inference knowledge."""

    @property
    def step_index(self) -> int:
        """Steps taken in the current episode."""

    @property
    def done(self) -> bool:
        """True once the episode has used all its steps."""

    @property
    def counts(self) -> Counts:
        """Completed, failed and still-active orders of the current episode."""
