"""The behaviour-cloning proxy as a built-in policy of the domain: ``bc:DIR``.

Usable wherever a policy name is: ``--model bc:DIR`` (both chefs), ``--control 1 --partners
bc:DIR`` (the partner chef beside a dispatcher), in rooms. Each chef it plays presses the key a
person would have pressed (a primitive command, one timestep); its draws come from one generator
seeded once, so the same seed plays the same game.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from overcooked_game.bc.errors import BCError
from overcooked_game.bc.model import ACTION_NAMES

if TYPE_CHECKING:
    from overcooked_game.bc.policy import BCPolicy
    from overcooked_game.session import OvercookedSession

PREFIX = "bc:"


class BCProxy:
    """Example: ``BCProxy(Path("runs/bc/cramped_room"), seed=0)``; `BCError` (one line) for a bad folder."""

    def __init__(self, directory: Path, seed: int) -> None:
        from overcooked_game.bc.policy import BCPolicy

        self.directory = directory
        self.name = f"{PREFIX}{directory}"
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._load = BCPolicy.load
        self.policy: BCPolicy | None = None
        self._grid: object = None
        BCPolicy.load(directory)  # refuse a bad folder now, not at the first step

    def reset(self, session: OvercookedSession) -> None:
        """Check the proxy against the session's layout (a proxy plays only the grid its people played)."""
        mdp = session.kitchen.mdp
        if self.policy is None or self._grid is not mdp:
            self.policy = self._load(self.directory, mdp=mdp)
            self._grid = mdp

    def act(self, session: OvercookedSession) -> list[str]:
        return self.act_for(session, list(range(session.n_agents)))

    def act_for(self, session: OvercookedSession, controlled: list[int]) -> list[str]:
        """One primitive command for each chef in `controlled`, drawn as the people in the trials did."""
        if self.policy is None:
            self.reset(session)
        assert self.policy is not None
        state = session.engine.state
        return [f"{ACTION_NAMES[self.policy.act_index(state, chef, self.rng)]}(chef{chef})" for chef in controlled]


def load_proxy(name: str, seed: int) -> BCProxy:
    """``bc:DIR`` → the proxy trained into DIR (`BCError` with one line when it cannot be used)."""
    directory = Path(name.removeprefix(PREFIX))
    if not directory.is_dir():
        raise BCError(f"{name}: no such folder (train one: mindagent train --domain overcooked --algo bc --layout L "
                      f"--out {directory})")
    return BCProxy(directory, seed)
