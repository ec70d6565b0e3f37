"""Dispatchers that read the game directly instead of asking a model (planners, random).

They plug into the same episode loop as the model backends (`--model planner`, `--model random`):
the loop asks `act` for one command per agent instead of calling a model. Each domain offers its
own (`Domain.make_policy`); `RandomLegalPolicy` works on any domain through the protocol alone.
"""

from __future__ import annotations

import random
from typing import Generic, Protocol, TypeVar

from mindagent.core.domain import DomainSession

S_contra = TypeVar("S_contra", bound=DomainSession, contravariant=True)
S = TypeVar("S", bound=DomainSession)


class Policy(Protocol[S_contra]):
    """A built-in dispatcher for sessions of type `S_contra`.

    Example::

        policy = domains.get(domains.default_domain()).make_policy("random", seed=0)
        policy.reset(session)
        commands = policy.act(session)   # e.g. ["goto_agent0_storage0", "noop_agent1"]
    """

    name: str

    def reset(self, session: S_contra) -> None:
        """Forget everything about the previous episode."""

    def act(self, session: S_contra) -> list[str]:
        """One command string per agent for the current step."""


class RandomLegalPolicy(Generic[S]):
    """Each agent draws uniformly among its legal commands; picks are checked together, in agent
    order, and a pick the joint check refuses (two agents after one item) becomes the idle command."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, session: S) -> None:
        """Keep the generator running across episodes (seeded once, like the order stream)."""

    def act(self, session: S) -> list[str]:
        picks = []
        for agent in range(session.n_agents):
            legal = session.legal_commands(agent)
            picks.append(self.rng.choice(legal) if legal else session.idle_command(agent))
        verdicts = session.check(picks)
        return [p if v.ok else session.idle_command(a) for a, (p, v) in enumerate(zip(picks, verdicts, strict=True))]
