"""The network and the two files a trained proxy is kept in.

A policy folder holds ``policy.pt`` (the MLP's state dict: a few tens of kB, loaded with
``weights_only=True`` so it cannot run code) and ``meta.json`` (`BCMeta`: what it was trained on, how
well it predicts people, how to make it again). The loader refuses a folder whose features or layout
do not match what it is asked to play, rather than playing nonsense.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from overcooked_game.bc.errors import MissingDependency, PolicyLoadError
from overcooked_game.bc.recipe import Activation, Keep, Split

WEIGHTS_FILE = "policy.pt"
META_FILE = "meta.json"
ACTION_NAMES = ("up", "down", "right", "left", "stay", "interact")  # the package's Action.INDEX_TO_ACTION order
_META_LIMIT = 1 << 20


class BCMeta(BaseModel):
    """What ``meta.json`` records about one trained proxy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    layout: str
    package_layout: str
    terrain: tuple[str, ...]
    seed: int
    epochs: int = Field(ge=1)
    limit: int | None
    feature_version: int
    feature_size: int = Field(ge=1)
    history: int = Field(ge=0)
    # the design choices below default to our first proxy's, so folders trained before they were recorded still load
    trials: Split = "train"
    activation: Activation = "relu"
    keep: Keep = "best"
    hidden: tuple[int, ...]
    batch_size: int
    learning_rate: float
    best_epoch: int
    train_examples: int
    validation_examples: int
    heldout_examples: int
    train_accuracy: float
    validation_accuracy: float
    heldout_accuracy: float
    heldout_majority_rate: float
    # mean cross-entropy (nats) on the held-out people: the network's, and the keys' frequencies alone
    # (a sampling proxy is as good as its probabilities, which accuracy does not see); None before recorded
    heldout_loss: float | None = None
    heldout_prior_loss: float | None = None
    seconds: float
    versions: dict[str, str]
    command: str


def require_torch() -> Any:
    """torch, or one line saying how to get it."""
    try:
        import torch
    except ImportError as exc:
        raise MissingDependency("torch is needed for the behaviour-cloning proxy: pip install torch "
                                "(the rl extra; bash scripts/setup.sh --dev installs it)") from exc
    return torch


def build_network(inputs: int, hidden: tuple[int, ...], outputs: int = len(ACTION_NAMES),
                  activation: Activation = "relu") -> Any:
    """An MLP from features to action logits (Carroll et al.'s: two tanh layers of 64)."""
    nn = require_torch().nn
    layers: list[Any] = []
    width = inputs
    for size in hidden:
        layers += [nn.Linear(width, size), nn.Tanh() if activation == "tanh" else nn.ReLU()]
        width = size
    layers.append(nn.Linear(width, outputs))
    return nn.Sequential(*layers)


def save(directory: Path, network: Any, meta: BCMeta) -> None:
    torch = require_torch()
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(network.state_dict(), directory / WEIGHTS_FILE)
    (directory / META_FILE).write_text(json.dumps(meta.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")


def load(directory: Path) -> tuple[Any, BCMeta]:
    """The network (in eval mode) and its meta, or one `PolicyLoadError` line."""
    torch = require_torch()
    meta_path, weights_path = directory / META_FILE, directory / WEIGHTS_FILE
    if not meta_path.is_file() or not weights_path.is_file():
        raise PolicyLoadError(f"{directory} is not a behaviour-cloning policy folder (needs {META_FILE} and {WEIGHTS_FILE})")
    if meta_path.stat().st_size > _META_LIMIT:
        raise PolicyLoadError(f"{meta_path} is larger than {_META_LIMIT} bytes")
    try:
        meta = BCMeta.model_validate(json.loads(meta_path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise PolicyLoadError(f"{meta_path} is not a valid policy description: {first}") from exc
    network = build_network(meta.feature_size, meta.hidden, activation=meta.activation)
    try:
        network.load_state_dict(torch.load(weights_path, map_location="cpu", weights_only=True))
    except (RuntimeError, OSError, EOFError, ValueError, KeyError, pickle.UnpicklingError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PolicyLoadError(f"{weights_path} does not hold this policy's weights: {first}") from exc
    network.train(False)  # inference mode (no dropout or batch-norm updates)
    return network, meta
