"""A behaviour-cloned stand-in for a person: a small network imitating the planner, seat by seat.

The human-AI coordination literature pairs trained agents with a behaviour-cloning (BC) proxy of
people rather than only with copies of themselves, since self-play partners learn conventions no
one else follows. Without enough recordings of people in the kitchens, the proxy here imitates
the planner (the scheduler of `planners`): it sees what the planner saw (`Observer.encode`, the
joint view) and predicts each agent's command (`ActionTable` indices), trained with cross-entropy
on planner play over the given taus. It is an imperfect copy on purpose: it makes the planner's
moves most of the time and its own mistakes otherwise, which is what a proxy partner is for.

A clone is a folder: ``clone.pt`` (the network's state dict) and ``clone.json`` (level, agents,
rules, sizes, the training command's arguments and the held-out accuracy). torch is imported only
here, when a clone is trained or loaded.

Example::

    fit_clone("level_1", 2, Path("/tmp/clone"), episodes=20, seed=0)
    clone = load_clone(Path("/tmp/clone"))
    clone.actions(world)        # one action index per agent, legal ones only
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cuisineworld import PAPER_TAUS, World, load_level
from cuisineworld.adapter.planners import make_policy
from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.observe import Observer

log = logging.getLogger(__name__)

WEIGHTS, META = "clone.pt", "clone.json"


@dataclass(frozen=True)
class CloneConfig:
    level: str
    agents: int
    rules: str = "reference"
    taus: tuple[float, ...] = tuple(PAPER_TAUS)
    episodes: int = 20  # planner episodes per tau to learn from (the last one per tau is held out)
    epochs: int = 30
    hidden: int = 128
    seed: int = 0


def planner_play(config: CloneConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, actions per agent, masks, held-out flags) of the planner's own play."""
    level = load_level(config.level, config.rules)
    table, observer = ActionTable(level, config.agents), Observer(level, config.agents)
    obs, actions, masks, held = [], [], [], []
    for t, tau in enumerate(config.taus):
        world = World(level, n_agents=config.agents, tau=tau, seed=config.seed + t)
        planner = make_policy("planner")
        for episode in range(config.episodes):
            world.reset()
            while not world.done:
                commands = planner.act_world(world)
                picks = [0] * config.agents
                for command in commands:
                    parsed = world.parse(command)
                    agent = getattr(parsed, "agent", None)
                    index = table.index_of(command)
                    if agent is not None and index is not None:
                        picks[agent] = index
                obs.append(observer.encode(world))
                masks.append(table.masks(world))
                actions.append(picks)
                held.append(episode == config.episodes - 1)
                world.step(commands)
    return np.stack(obs), np.array(actions, dtype=np.int64), np.stack(masks), np.array(held)


def _network(obs_size: int, agents: int, actions: int, hidden: int) -> Any:
    import torch

    return torch.nn.Sequential(torch.nn.Linear(obs_size, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, hidden),
                               torch.nn.Tanh(), torch.nn.Linear(hidden, agents * actions))


def fit_clone(config: CloneConfig, out: Path) -> dict[str, Any]:
    """Train a clone on planner play, write it to `out` and return its metadata."""
    import torch

    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    obs, actions, masks, held = planner_play(config)
    n_actions = masks.shape[2]
    net = _network(obs.shape[1], config.agents, n_actions, config.hidden)
    x = torch.from_numpy(obs)
    y = torch.from_numpy(actions)
    legal = torch.from_numpy(masks.astype(bool))
    train_rows = torch.from_numpy(np.flatnonzero(~held))
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(config.seed)

    def logits(rows: Any) -> Any:
        out = net(x[rows]).view(len(rows), config.agents, n_actions)
        return out.masked_fill(~legal[rows], -1e9)  # the clone only ever weighs legal commands

    for _ in range(config.epochs):
        order = train_rows[torch.randperm(len(train_rows), generator=generator)]
        for batch in order.split(256):
            loss = torch.nn.functional.cross_entropy(logits(batch).reshape(-1, n_actions), y[batch].reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        test = torch.from_numpy(np.flatnonzero(held))
        accuracy = float((logits(test).argmax(dim=2) == y[test]).float().mean())
    out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out / WEIGHTS)
    meta = {**asdict(config), "obs_size": int(obs.shape[1]), "actions": int(n_actions), "samples": int(len(obs)),
            "held_out_accuracy": round(accuracy, 4)}
    (out / META).write_text(json.dumps(meta, indent=2) + "\n")
    log.info("clone of the planner on %s: %d samples, held-out accuracy %.3f", config.level, len(obs), accuracy)
    return meta


class Clone:
    """A loaded clone: `actions(world)` gives its greedy legal pick for every agent."""

    def __init__(self, folder: Path) -> None:
        import torch

        self.meta: dict[str, Any] = json.loads((folder / META).read_text())
        level = load_level(str(self.meta["level"]), str(self.meta["rules"]))
        self.agents = int(self.meta["agents"])
        self.table, self.observer = ActionTable(level, self.agents), Observer(level, self.agents)
        if self.observer.size != self.meta["obs_size"] or self.table.size != self.meta["actions"]:
            raise ValueError(f"{folder}: the level's encoding changed since the clone was trained; train it again")
        self.net = _network(self.observer.size, self.agents, self.table.size, int(self.meta["hidden"]))
        self.net.load_state_dict(torch.load(folder / WEIGHTS, map_location="cpu", weights_only=True))
        self.net.eval()

    def actions(self, world: World) -> list[int]:
        import torch

        with torch.no_grad():
            out = self.net(torch.from_numpy(self.observer.encode(world))).view(self.agents, -1).numpy()
        out = np.where(self.table.masks(world).astype(bool), out, -np.inf)
        return [int(a) for a in out.argmax(axis=1)]


def load_clone(folder: Path) -> Clone:
    if not (folder / META).is_file():
        raise FileNotFoundError(f"{folder} holds no planner clone ({META}); make one with fit_clone")
    return Clone(folder)
