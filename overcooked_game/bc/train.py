"""Train a behaviour-cloning human proxy for one layout from the human-human trials.

Supervised learning of the key each person pressed (6 classes) from the features of what they saw,
with cross-entropy, Adam and minibatches, as Carroll et al. (2019) did (their defaults: two hidden
layers of 64, batch 64, learning rate 1e-3). The design choices in which our first proxy departed
from theirs are arguments, recorded in ``meta.json`` (`overcooked_game.bc.recipe`): ``history`` (the
chef's own last keys fed back; 0 is their state-only model), ``trials`` (which split it learns from;
their human proxy learned from ``test``), ``activation`` and ``keep`` (the best validation epoch or
the last). Both people of every timestep are examples. 15% of the training rows (seeded) are set
aside as validation; the held-out accuracy is measured on the other split, which training never
sees, beside the rate of always guessing the training data's most common key.

Deterministic on CPU for a seed: the split and the minibatch order come from the seed, torch runs on
one thread with deterministic algorithms (both restored afterwards).

Example::

    result = train("cramped_room", Path("/tmp/bc/cramped_room"), epochs=100, seed=0)
    result.meta.heldout_accuracy
"""

from __future__ import annotations

import importlib.metadata
import logging
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from overcooked_game.bc.data import Transition, load_transitions
from overcooked_game.bc.features import ACTION_SLOTS, FEATURE_VERSION, Featurizer, history_features
from overcooked_game.bc.layouts import resolve
from overcooked_game.bc.model import ACTION_NAMES, BCMeta, build_network, require_torch, save
from overcooked_game.bc.parse import make_mdp
from overcooked_game.bc.recipe import DEFAULT_DESIGN, DESIGNS, Activation, Keep, Split, other_split

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]  # (stage, done, total)
VALIDATION_FRACTION = 0.15
MAX_EPOCHS = 10_000
MAX_HISTORY = 16


@dataclass(frozen=True)
class TrainResult:
    out: Path
    meta: BCMeta


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("mindagent", "overcooked", "torch", "numpy", "pandas"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def featurize(featurizer: Featurizer, transitions: Sequence[Transition], history: int, stage: str,
              on_progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Features and action labels of both players of every transition.

    A player's key history restarts wherever a trial does (another trial, or a gap in its timesteps).
    """
    size = featurizer.size + ACTION_SLOTS * history
    vectors = np.zeros((2 * len(transitions), size), dtype=np.float32)
    labels = np.zeros(2 * len(transitions), dtype=np.int64)
    pressed: tuple[list[int], list[int]] = ([], [])
    previous: Transition | None = None
    for number, transition in enumerate(transitions):
        if previous is None or (transition.trial, transition.timestep) != (previous.trial, previous.timestep + 1):
            pressed = ([], [])
        for player, state_vector in enumerate(featurizer.both(transition.state)):
            row = 2 * number + player
            vectors[row] = np.concatenate([state_vector, history_features(pressed[player][-history:], history)])
            labels[row] = transition.actions[player]
            pressed[player].append(transition.actions[player])
        previous = transition
        if on_progress is not None and (number % 500 == 0 or number == len(transitions) - 1):
            on_progress(stage, number + 1, len(transitions))
    return vectors, labels


@contextmanager
def _deterministic_torch(torch: Any) -> Iterator[None]:
    threads, strict = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(strict)
        torch.set_num_threads(threads)


def _accuracy(torch: Any, network: Any, vectors: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(accuracy, mean cross-entropy) of the network on some examples."""
    if len(labels) == 0:
        return float("nan"), float("nan")
    with torch.no_grad():
        logits = network(torch.from_numpy(vectors))
        target = torch.from_numpy(labels)
        loss = torch.nn.functional.cross_entropy(logits, target).item()
        right = (logits.argmax(dim=1) == target).double().mean().item()
    return float(right), float(loss)


_DEFAULT = DESIGNS[DEFAULT_DESIGN]


def train(layout: str, out_dir: Path, epochs: int | None = None, seed: int = 0, limit: int | None = None, *,
          history: int = _DEFAULT.history, trials: Split = _DEFAULT.trials, activation: Activation = _DEFAULT.activation,
          keep: Keep = _DEFAULT.keep, hidden: tuple[int, ...] = (64, 64), batch_size: int = 64,
          learning_rate: float = 1e-3, command: str | None = None, cache: Path | None = None,
          on_progress: Progress | None = None) -> TrainResult:
    """Train on the layout's `trials` split, write ``policy.pt`` and ``meta.json`` into `out_dir`.

    `epochs` None: the default design's count for the layout. `limit` keeps only the first rows of
    the layout's training and test trials (quick runs, tests).
    """
    classic = resolve(layout)
    epochs = _DEFAULT.epochs_for(classic.name) if epochs is None else epochs
    _check_arguments(epochs, limit, history, hidden, batch_size, learning_rate)
    if trials not in ("train", "test") or activation not in ("relu", "tanh") or keep not in ("best", "last"):
        raise ValueError(f"trials is train or test, activation relu or tanh, keep best or last; not "
                         f"{trials!r}, {activation!r}, {keep!r}")
    torch = require_torch()
    started = time.perf_counter()
    featurizer = Featurizer(make_mdp(classic).terrain_mtx)
    train_x, train_y = featurize(featurizer, load_transitions(classic.name, trials, limit, cache), history,
                                 f"featurize {trials}", on_progress)
    heldout = other_split(trials)
    test_x, test_y = featurize(featurizer, load_transitions(classic.name, heldout, limit, cache), history,
                               f"featurize {heldout}", on_progress)
    order = np.random.default_rng(seed).permutation(len(train_y))
    cut = int(round(len(order) * VALIDATION_FRACTION))
    valid, fit = np.sort(order[:cut]), np.sort(order[cut:])
    with _deterministic_torch(torch):
        torch.manual_seed(seed)
        network = build_network(train_x.shape[1], hidden, activation=activation)
        best_epoch = _fit(torch, network, (train_x[fit], train_y[fit]), (train_x[valid], train_y[valid]),
                          epochs, seed, batch_size, learning_rate, on_progress, keep)
        network.train(False)  # inference mode (no dropout or batch-norm updates)
        scores = {name: _accuracy(torch, network, x, y)
                  for name, x, y in (("train", train_x[fit], train_y[fit]), ("validation", train_x[valid], train_y[valid]),
                                     ("heldout", test_x, test_y))}
    accuracy = {name: right for name, (right, _) in scores.items()}
    counts = np.bincount(train_y, minlength=len(ACTION_NAMES))
    majority = int(counts.argmax())
    prior = (counts + 1) / float(counts.sum() + len(counts))  # the keys' frequencies alone (add-one smoothed)
    meta = BCMeta(layout=classic.name, package_layout=classic.package_layout, terrain=featurizer.terrain, seed=seed,
                  epochs=epochs, limit=limit, feature_version=FEATURE_VERSION, feature_size=int(train_x.shape[1]),
                  history=history, trials=trials, activation=activation, keep=keep, hidden=hidden, batch_size=batch_size,
                  learning_rate=learning_rate, best_epoch=best_epoch,
                  train_examples=len(fit), validation_examples=len(valid), heldout_examples=len(test_y),
                  train_accuracy=round(accuracy["train"], 4), validation_accuracy=round(accuracy["validation"], 4),
                  heldout_accuracy=round(accuracy["heldout"], 4),
                  heldout_majority_rate=round(float(np.mean(test_y == majority)), 4),
                  heldout_loss=round(scores["heldout"][1], 4),
                  heldout_prior_loss=round(float(-np.mean(np.log(prior[test_y]))) if len(test_y) else float("nan"), 4),
                  seconds=round(time.perf_counter() - started, 1), versions=_versions(),
                  command=command or (f"train({classic.name!r}, {str(out_dir)!r}, epochs={epochs}, seed={seed}, limit={limit}, "
                                      f"history={history}, trials={trials!r}, activation={activation!r}, keep={keep!r})"))
    save(out_dir, network, meta)
    log.info("%s: held-out action accuracy %.3f on %d human actions (always '%s': %.3f)", classic.name,
             meta.heldout_accuracy, meta.heldout_examples, ACTION_NAMES[majority], meta.heldout_majority_rate)
    return TrainResult(out=out_dir, meta=meta)


def _check_arguments(epochs: int, limit: int | None, history: int, hidden: tuple[int, ...], batch_size: int,
                     learning_rate: float) -> None:
    """Refuse what cannot train, with one line, before anything slow happens."""
    if not 1 <= epochs <= MAX_EPOCHS:
        raise ValueError(f"epochs must be between 1 and {MAX_EPOCHS}, not {epochs}")
    if limit is not None and limit < 10:
        raise ValueError(f"--limit keeps the first rows of the trials; give at least 10, not {limit}")
    if not 0 <= history <= MAX_HISTORY:
        raise ValueError(f"history is the number of the chef's own past keys fed back, 0 to {MAX_HISTORY}, not {history}")
    if batch_size < 1 or not hidden or min(hidden) < 1 or not 0 < learning_rate < 1:
        raise ValueError("batch size and layer sizes must be positive, the learning rate between 0 and 1")


def _fit(torch: Any, network: Any, fit: tuple[np.ndarray, np.ndarray], valid: tuple[np.ndarray, np.ndarray],
         epochs: int, seed: int, batch_size: int, learning_rate: float, on_progress: Progress | None,
         keep: Keep = "best") -> int:
    """Minibatch training; returns the epoch of lowest validation loss and leaves the network with its
    weights (`keep` "best") or with the last epoch's ("last", as Carroll et al. played)."""
    inputs, targets = torch.from_numpy(fit[0]), torch.from_numpy(fit[1])
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)
    shuffler = torch.Generator().manual_seed(seed)
    best_loss, best_epoch, best_state = float("inf"), 0, None
    for epoch in range(1, epochs + 1):
        network.train()
        for batch in torch.randperm(len(targets), generator=shuffler).split(batch_size):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(network(inputs[batch]), targets[batch])
            loss.backward()
            optimizer.step()
        network.train(False)  # inference mode (no dropout or batch-norm updates)
        _, valid_loss = _accuracy(torch, network, *valid)  # NaN without validation rows: the last epoch is kept
        if valid_loss < best_loss:
            best_loss, best_epoch = valid_loss, epoch
            best_state = {name: value.clone() for name, value in network.state_dict().items()}
        if on_progress is not None:
            on_progress("train", epoch, epochs)
    if best_state is None:
        return epochs
    if keep == "best":
        network.load_state_dict(best_state)
    return best_epoch
