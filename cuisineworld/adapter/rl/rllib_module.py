"""The RLlib policy network: an actor-critic MLP that never gives an illegal command any probability.

The PettingZoo env with ``obs_type="dict"`` hands each agent ``{"observation": vector,
"action_mask": 0/1 per action}``. The module reads the vector through two separate MLPs (policy
logits, value) and pushes the logits of masked actions to the float minimum before any
distribution is built, so sampling, the greedy pick and PPO's log-probabilities all see only the
legal actions. The value head ignores the mask: the vector already says what the kitchen holds.

Imported only by RLlib training and by a loaded RLlib policy (needs torch and ray[rllib]).
"""

from __future__ import annotations

from typing import Any, cast

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

OBS_KEY = "observation"
MASK_KEY = "action_mask"
DEFAULT_HIDDEN = (128, 128)
# the logit a masked action gets: exp() of it is 0 in float32, and it stays finite so no NaN
# appears in entropy or log-prob sums
MASKED_LOGIT = torch.finfo(torch.float32).min / 2


def mlp(inputs: int, hidden: tuple[int, ...], outputs: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = inputs
    for size in hidden:
        layers += [nn.Linear(width, size), nn.Tanh()]
        width = size
    layers.append(nn.Linear(width, outputs))
    return nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """``model_config={"hidden": [128, 128]}``: the width of both MLPs."""

    def setup(self) -> None:
        observation = cast(Any, self.observation_space)
        size = int(observation[OBS_KEY].shape[0])
        config = cast(dict[str, Any], self.model_config or {})
        hidden = tuple(int(h) for h in config.get("hidden", DEFAULT_HIDDEN))
        self.policy_net = mlp(size, hidden, int(cast(Any, self.action_space).n))
        self.value_net = mlp(size, hidden, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.policy_net(obs[OBS_KEY])
        legal = obs[MASK_KEY] > 0
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(~legal, MASKED_LOGIT)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.value_net(batch[Columns.OBS][OBS_KEY]).squeeze(-1)

    def greedy(self, vectors: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """The most likely legal action per row (how an evaluated policy plays by default)."""
        out = self._forward({Columns.OBS: {OBS_KEY: vectors, MASK_KEY: masks}})
        return torch.argmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)

    def sample(self, vectors: torch.Tensor, masks: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """One legal action per row drawn from the policy, with the caller's seeded generator."""
        out = self._forward({Columns.OBS: {OBS_KEY: vectors, MASK_KEY: masks}})
        probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)
        return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
