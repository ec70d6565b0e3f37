"""Reinforcement-learning adapters over the CuisineWorld engine (PettingZoo and Gymnasium).

The rules stay in `cuisineworld`; this package only maps fixed action indices to commands and
the kitchen to a vector, so any PettingZoo or Gymnasium algorithm can train against it. Importing
it registers ``CuisineWorld-v0`` with Gymnasium (the joint env; its keyword arguments go through
`gymnasium.make`). Many kitchens at once, in NumPy: `BatchedKitchens` and its Gymnasium vector
env `CuisineVectorEnv` (`cuisineworld.adapter.rl.batched`). Training (`cuisineworld.adapter.rl.train`)
needs the ``rl`` extra and is imported only when used, so this package stays free of torch.
"""

import gymnasium

from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.batched import BatchedKitchens, CuisineVectorEnv
from cuisineworld.adapter.rl.gym_env import CuisineJointEnv
from cuisineworld.adapter.rl.observe import Observer
from cuisineworld.adapter.rl.pettingzoo_env import CuisineParallelEnv, parallel_env
from cuisineworld.adapter.rl.rewards import REWARDS, make_reward

ENV_ID = "CuisineWorld-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="cuisineworld.adapter.rl.gym_env:CuisineJointEnv")

__all__ = ["ENV_ID", "REWARDS", "ActionTable", "BatchedKitchens", "CuisineJointEnv", "CuisineParallelEnv",
           "CuisineVectorEnv", "Observer", "make_reward", "parallel_env"]
