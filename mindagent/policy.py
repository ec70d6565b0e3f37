"""Dispatchers that read the world directly instead of asking a model (planners, random).

They plug into the same episode loop as the LFM backends (`--model planner`, `--model random`):
the loop asks `act` for one command per agent instead of calling a model.
"""

from __future__ import annotations

from typing import Protocol

from mindagent.domain import DomainSession


class Policy(Protocol):
    """A built-in dispatcher.

    Example::

        policy = make_policy("random", seed=0)
        policy.reset(session)
        commands = policy.act(session)   # e.g. ["goto_agent0_storage0", "noop_agent1"]
    """

    name: str

    def reset(self, session: DomainSession) -> None:
        """Forget everything about the previous episode."""

    def act(self, session: DomainSession) -> list[str]:
        """One command string per agent for the current step."""
