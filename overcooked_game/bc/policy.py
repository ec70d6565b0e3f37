"""A trained behaviour-cloning proxy playing one chef, as a partner for the Overcooked domain.

`act` takes the package's `OvercookedState`, the chef's index and the episode's seeded numpy
Generator, and returns one of the package's primitive actions. By default it samples from the
network's softmax (people are not argmax players; Carroll et al. sampled too); ``sample=False``
takes the most likely action instead.

The network also sees the chef's own last few keys (see `overcooked_game.bc.features`), which this
object remembers from its own choices.

Unsticking (Carroll et al. 2019): a cloned person often freezes, or keeps walking into a wall or the
other chef. When the chef has stood at the same position facing the same way for the last
`stuck_time` timesteps, the actions it took in those timesteps get probability zero and the rest
are renormalised, so it tries something else. The history is per chef and restarts whenever the
state's timestep does not follow the previous call's (a new episode), so one policy object can play
both chefs and several episodes.

Example::

    bc = BCPolicy.load(Path("/tmp/bc/cramped_room"))
    rng = np.random.default_rng(seed)
    action = bc.act(state, player_index=1, rng=rng)   # e.g. (0, -1) (up) or "interact"
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from overcooked_game.bc.errors import PolicyLoadError
from overcooked_game.bc.features import ACTION_SLOTS, FEATURE_VERSION, Featurizer, history_features
from overcooked_game.bc.model import BCMeta, load, require_torch
from overcooked_game.bc.parse import overcooked_module

STUCK_TIME = 3


class BCPolicy:
    """One trained proxy; call `act` once per chef per timestep."""

    def __init__(self, network: Any, meta: BCMeta, featurizer: Featurizer, *, sample: bool = True,
                 stuck_time: int = STUCK_TIME) -> None:
        if stuck_time < 0:
            raise ValueError("stuck_time counts timesteps; 0 turns unsticking off")
        self.network, self.meta, self.featurizer = network, meta, featurizer
        self.sample, self.stuck_time = sample, stuck_time
        self._torch = require_torch()
        self._actions = overcooked_module().Action.INDEX_TO_ACTION
        # per chef: (timestep, position and orientation, action index) of its last calls
        self._history: dict[int, deque[tuple[int, Any, int]]] = {}

    @classmethod
    def load(cls, directory: Path | str, *, sample: bool = True, stuck_time: int = STUCK_TIME,
             mdp: Any = None) -> BCPolicy:
        """The proxy in `directory`. Pass the session's `mdp` to have its grid checked against the
        grid the proxy learned on (a proxy plays only the layout its people played).

        Loading reads no layout from the package (the grid is in ``meta.json``), so it never touches
        the package's global recipe settings in the middle of someone else's episode.
        """
        network, meta = load(Path(directory))
        if meta.feature_version != FEATURE_VERSION:
            raise PolicyLoadError(f"{directory} was trained on features v{meta.feature_version}; this code makes "
                                  f"v{FEATURE_VERSION}: train it again")
        featurizer = Featurizer(meta.terrain)
        if mdp is not None and tuple("".join(row) for row in mdp.terrain_mtx) != meta.terrain:
            raise PolicyLoadError(f"{directory} was trained on {meta.layout} ({'|'.join(meta.terrain)}), "
                                  f"not on this grid ({'|'.join(''.join(row) for row in mdp.terrain_mtx)})")
        made = featurizer.size + ACTION_SLOTS * meta.history
        if made != meta.feature_size:
            raise PolicyLoadError(f"{directory} expects {meta.feature_size} features, this code makes {made}")
        return cls(network, meta, featurizer, sample=sample, stuck_time=stuck_time)

    def reset(self) -> None:
        """Forget the chefs' recent moves (a new episode)."""
        self._history.clear()

    def probabilities(self, state: Any, player_index: int) -> np.ndarray:
        """The network's distribution over the six actions (`ACTION_NAMES` order), before unsticking.

        It depends on the keys this chef pressed in the previous timesteps of the episode, as training did.
        """
        pressed = [action for _, _, action in self._recent(state, player_index)]
        vector = np.concatenate([self.featurizer(state, player_index), history_features(pressed, self.meta.history)])
        with self._torch.no_grad():
            logits = self.network(self._torch.from_numpy(vector[None, :]))[0]
            probs = self._torch.softmax(logits.double(), dim=0).numpy()
        return np.asarray(probs, dtype=np.float64)

    def act_index(self, state: Any, player_index: int, rng: np.random.Generator) -> int:
        """The chosen action's index in `ACTION_NAMES` (and the package's ``Action.INDEX_TO_ACTION``)."""
        if player_index not in (0, 1):
            raise ValueError(f"player_index is 0 or 1, not {player_index}")
        probs = self._unstick(state, player_index, self.probabilities(state, player_index))
        index = int(rng.choice(len(probs), p=probs)) if self.sample else int(np.argmax(probs))
        self._remember(state, player_index, index)
        return index

    def act(self, state: Any, player_index: int, rng: np.random.Generator) -> Any:
        """The package's primitive action for chef `player_index`: a direction tuple, stay or interact."""
        return self._actions[self.act_index(state, player_index, rng)]

    def _recent(self, state: Any, player_index: int) -> deque[tuple[int, Any, int]]:
        history = self._history.setdefault(player_index, deque(maxlen=max(1, self.stuck_time, self.meta.history)))
        if history and history[-1][0] != int(state.timestep) - 1:
            history.clear()  # not the next timestep of the same episode
        return history

    def _unstick(self, state: Any, player_index: int, probs: np.ndarray) -> np.ndarray:
        history = self._recent(state, player_index)
        here = state.players[player_index].pos_and_or
        last = list(history)[len(history) - self.stuck_time:]
        if self.stuck_time == 0 or len(last) < self.stuck_time or any(seen != here for _, seen, _ in last):
            return probs
        tried = sorted({action for _, _, action in last})
        kept = probs.copy()
        kept[tried] = 0.0
        if float(kept.sum()) <= 0.0:  # the network put (numerically) all its mass on what failed: any other action
            kept = np.ones_like(probs)
            kept[tried] = 0.0
        return np.asarray(kept / float(kept.sum()), dtype=np.float64)

    def _remember(self, state: Any, player_index: int, action: int) -> None:
        self._recent(state, player_index).append((int(state.timestep), state.players[player_index].pos_and_or, action))
