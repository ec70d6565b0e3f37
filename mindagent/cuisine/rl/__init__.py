"""Reinforcement-learning adapters over the CuisineWorld engine (PettingZoo and Gymnasium).

The rules stay in `cuisineworld`; this package only maps fixed action indices to commands and
the kitchen to a vector, so any PettingZoo or Gymnasium algorithm can train against it.
"""

from mindagent.cuisine.rl.actions import ActionTable
from mindagent.cuisine.rl.gym_env import CuisineJointEnv
from mindagent.cuisine.rl.observe import Observer
from mindagent.cuisine.rl.pettingzoo_env import CuisineParallelEnv, parallel_env

__all__ = ["ActionTable", "CuisineJointEnv", "CuisineParallelEnv", "Observer", "parallel_env"]
