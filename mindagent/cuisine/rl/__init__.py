"""Reinforcement-learning adapters over the CuisineWorld engine (PettingZoo and Gymnasium).

The rules stay in `cuisineworld`; this package only maps fixed action indices to commands and
the kitchen to a vector, so any PettingZoo or Gymnasium algorithm can train against it. Importing
it registers ``CuisineWorld-v0`` with Gymnasium (the joint env; its keyword arguments go through
`gymnasium.make`). Many kitchens at once, in NumPy: `BatchedKitchens` and its Gymnasium vector
env `CuisineVectorEnv` (`mindagent.cuisine.rl.batched`). Training (`mindagent.cuisine.rl.train`)
needs the ``rl`` extra and is imported only when used, so this package stays free of torch.
"""

import gymnasium

from mindagent.cuisine.rl.actions import ActionTable
from mindagent.cuisine.rl.batched import BatchedKitchens, CuisineVectorEnv
from mindagent.cuisine.rl.gym_env import CuisineJointEnv
from mindagent.cuisine.rl.observe import Observer
from mindagent.cuisine.rl.pettingzoo_env import CuisineParallelEnv, parallel_env
from mindagent.cuisine.rl.rewards import REWARDS, make_reward

ENV_ID = "CuisineWorld-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="mindagent.cuisine.rl.gym_env:CuisineJointEnv")

__all__ = ["ENV_ID", "REWARDS", "ActionTable", "BatchedKitchens", "CuisineJointEnv", "CuisineParallelEnv",
           "CuisineVectorEnv", "Observer", "make_reward", "parallel_env"]
