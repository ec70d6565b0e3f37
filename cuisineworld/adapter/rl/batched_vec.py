"""`mindagent train --vec batched`: the training run's envs as one `BatchedKitchens`.

The default path (``--vec single``) gives SB3 one `CuisineJointEnv` per env and pays a Python
round trip per env per step; with ``--vec batched`` every env of the run is a kitchen of one
`BatchedKitchens` (kitchen i seeded ``seed + i``, as `make_vec_env` seeds env i), so thousands
of envs cost little more than one. What the run writes is the same (model.zip, policy.json,
progress.csv with ``rollout/completion``, checkpoints): only the vector env differs.

What it cannot serve is refused before any training, in one line naming the missing feature:
the ``dense-v1`` reward, the RLlib backend, levels with more than 62 items, and levels with
counters or per-agent reach (the forced-collaboration kitchens). Imported without torch, so the
refusal is quick; `make_training_venv` imports stable-baselines3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cuisineworld.adapter.rl.batched import BATCHED_ORDERS, BATCHED_REWARDS, BatchedKitchens

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecMonitor

    from cuisineworld.adapter.rl.train import TrainConfig


def check_batched(config: TrainConfig) -> None:
    """Raise ValueError (one line) when the batched kitchens cannot train `config`."""
    if config.backend != "sb3":
        raise ValueError(f"--vec batched trains with the sb3 backend, not {config.backend!r}")
    if config.reward not in BATCHED_REWARDS:
        raise ValueError(f"--vec batched computes the rewards {', '.join(BATCHED_REWARDS)}, not {config.reward!r}; "
                         "use --vec single")
    if config.order not in BATCHED_ORDERS:
        raise ValueError(f"--vec batched runs the orders {', '.join(BATCHED_ORDERS)}, not {config.order!r}")
    try:  # the level's own limits (items, counters, reach): one kitchen is enough to find out
        BatchedKitchens(config.level, config.agents, 1, tau=config.taus, rules=config.rules,
                        max_steps=config.episode_steps, reward=config.reward, order=config.order, gamma=config.gamma)
    except ValueError as exc:
        raise ValueError(f"--vec batched: {exc}") from None


def make_training_venv(config: TrainConfig) -> VecMonitor:
    """The run's `n_envs` envs as batched kitchens in SB3's `VecMonitor`, seeded from the run's seed."""
    from cuisineworld.adapter.rl.batched_sb3 import make_batched_vec_env

    return make_batched_vec_env(config.level, config.agents, config.n_envs, tau=config.taus, rules=config.rules,
                                max_steps=config.episode_steps, reward=config.reward, gamma=config.gamma,
                                seed=config.seed, order=config.order)
