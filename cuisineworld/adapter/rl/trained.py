"""A trained RL policy as one more CuisineWorld dispatcher: ``--model policy:DIR/model.zip`` or ``policy:DIR``.

``policy:DIR`` takes a run folder of either backend (its ``model.zip`` from SB3, its
``checkpoint/`` from RLlib) or an RLlib checkpoint folder (``DIR/checkpoints/rllib_N_steps``);
``policy:FILE.zip`` an SB3 model or checkpoint, and ``policy:NAME`` a policy released with the
package (`cuisineworld.adapter.rl.released`: ``policy:level_1``, ``policy:level_4``). It plugs
into `run`, `eval` and `serve` like the planner: each step it encodes the session's world with
the same `Observer` and masks as training, asks the network for one command per
agent (greedy; ``policy:DIR/model.zip?sample`` samples instead, seeded), and turns a command the
joint check refuses (two agents after one item) into that agent's idle command, as the random
policy does. ``policy.json`` beside the model says which level and team it was trained for; a
session of another kitchen is refused, since the action table and the vector would mean other
things there.

torch and sb3-contrib (or ray[rllib]) are imported when a policy is loaded, never by ``import
mindagent``. An RLlib policy plays with its networks alone: no Ray is started.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from cuisineworld import load_level
from cuisineworld.adapter.rl.actions import ActionTable
from cuisineworld.adapter.rl.observe import Observer
from cuisineworld.adapter.rl.released import is_released, resolve_released
from cuisineworld.adapter.rl.train import POLICY_FILE
from mindagent.core.domain import SpecError

PREFIX = "policy:"
SAMPLE_SUFFIX = "?sample"


class PolicyLoadError(SpecError):
    """The spec names no loadable trained policy (missing file, no policy.json, rl extra missing)."""


def parse_spec(spec: str) -> tuple[Path, bool]:
    """``policy:DIR/model.zip[?sample]`` -> (model path, sample?)."""
    body = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    sample = body.endswith(SAMPLE_SUFFIX)
    return Path(body.removesuffix(SAMPLE_SUFFIX)), sample


@lru_cache(maxsize=8)
def _load_model(path: str, mtime: float) -> Any:
    """One loaded network per file version per process (eval builds one dispatcher per unit)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    return MaskablePPO.load(path, device="cpu")


class TrainedPolicy:
    """Example: ``policy = TrainedPolicy(Path("runs/l1/model.zip")); policy.reset(session); policy.act(session)``."""

    def __init__(self, path: Path, seed: int = 0, sample: bool = False, released: bool = False) -> None:
        # released: `path` is a released name, whose zip is hashed before it is unpickled
        path, meta_path = resolve_released(str(path)) if released else resolve(path)
        spec_path = path.stem if released else path
        self.meta: dict[str, Any] = json.loads(meta_path.read_text())
        self.backend = str(self.meta.get("backend", "sb3"))
        self.path = path
        self.sample = sample
        self.seed = seed
        self.name = f"{PREFIX}{spec_path}{SAMPLE_SUFFIX if sample else ''}"
        try:
            if self.backend == "rllib":
                self.modules = _load_rllib(str(path.resolve()), _mtime(path))
            else:
                self.model = _load_model(str(path.resolve()), path.stat().st_mtime)
        except ImportError as exc:
            extra = "rl,rllib" if self.backend == "rllib" else "rl"
            raise PolicyLoadError(f"policy: needs the {extra} extra (pip install -e '.[{extra}]'); "
                                  f"{exc.name} is missing") from None
        self._lock = threading.Lock()
        self._generator: Any = None
        self.table: ActionTable | None = None
        self.observer: Observer | None = None

    def reset(self, session: Any) -> None:
        """Check the kitchen matches the training one and build its table and encoder."""
        world = session.world
        level_name = Path(str(self.meta["level"])).stem
        if world.level.name != level_name or world.n_agents != int(self.meta["agents"]):
            raise SpecError(f"{self.name} was trained on {level_name} with {self.meta['agents']} agents, "
                             f"not {world.level.name} with {world.n_agents}")
        level = load_level(str(self.meta["level"]), str(self.meta.get("rules", "reference")))
        self.table = ActionTable(level, world.n_agents)
        self.observer = Observer(level, world.n_agents)
        if self.observer.size != int(self.meta["obs_size"]) or self.table.size != int(self.meta["actions"]):
            raise SpecError(f"{self.name}: the level's encoding changed since training; train again")
        if self.sample:
            import torch

            torch.manual_seed(self.seed)
            self._generator = torch.Generator().manual_seed(self.seed)

    def act(self, session: Any) -> list[str]:
        if self.table is None or self.observer is None:
            self.reset(session)
        assert self.table is not None and self.observer is not None
        world = session.world
        obs = self.observer.encode(world)
        with self._lock:
            if self.backend == "rllib":
                action = self._act_rllib(obs, self.table.masks(world))
            else:
                action, _ = self.model.predict(obs, action_masks=self.table.masks(world).reshape(-1),
                                               deterministic=not self.sample)
        picks = [self.table.command(i, int(a)) for i, a in enumerate(action)]
        verdicts = session.check(picks)
        return [p if v.ok else session.idle_command(i) for i, (p, v) in enumerate(zip(picks, verdicts, strict=True))]


    def _act_rllib(self, shared: Any, masks: Any) -> list[int]:
        """Each agent's pick from its module (one batch per module), greedy or sampled with the seeded generator."""
        import numpy as np
        import torch

        assert self.observer is not None
        owners: dict[str, list[int]] = {}
        for i in range(masks.shape[0]):
            owners.setdefault(str(self.meta["modules"][f"agent{i}"]), []).append(i)
        action = [0] * masks.shape[0]
        with torch.no_grad():
            for module_id, agents in owners.items():
                module = self.modules[module_id]
                vectors = torch.from_numpy(np.stack([self.observer.for_agent(shared, i) for i in agents]))
                legal = torch.from_numpy(masks[agents].astype(np.float32))
                picked = module.sample(vectors, legal, self._generator) if self.sample else module.greedy(vectors, legal)
                for i, a in zip(agents, picked.tolist(), strict=True):
                    action[i] = int(a)
        return action


def resolve(path: Path) -> tuple[Path, Path]:
    """(what to load, its policy.json) for a spec's path; `PolicyLoadError` when either is missing."""
    from cuisineworld.adapter.rl.rllib_train import FINAL_CHECKPOINT, is_checkpoint

    if path.is_dir() and not is_checkpoint(path):
        if (path / "model.zip").is_file():
            path = path / "model.zip"
        elif is_checkpoint(path / FINAL_CHECKPOINT):
            path = path / FINAL_CHECKPOINT
        else:
            raise PolicyLoadError(f"policy: {path} holds no model.zip and no RLlib checkpoint/ (still training?)")
    elif not path.exists():
        from cuisineworld.adapter.rl.released import released_names

        hint = f" (released policies: {', '.join(released_names())})" if str(path) == path.name and released_names() else ""
        raise PolicyLoadError(f"policy: no model file {path}{hint}")
    elif not path.is_dir() and not path.is_file():
        raise PolicyLoadError(f"policy: no model file {path}")
    for folder in (path.parent, path.parent.parent):
        if (folder / POLICY_FILE).is_file():
            return path, folder / POLICY_FILE
    raise PolicyLoadError(f"policy: {path.parent / POLICY_FILE} is missing (train with `mindagent train`)")


def _mtime(folder: Path) -> float:
    return max((p.stat().st_mtime for p in folder.rglob("*") if p.is_file()), default=0.0)


@lru_cache(maxsize=8)
def _load_rllib(path: str, mtime: float) -> dict[str, Any]:
    from cuisineworld.adapter.rl.rllib_train import load_modules

    return load_modules(Path(path))


def load_policy(spec: str, seed: int = 0) -> TrainedPolicy:
    """``policy:NAME`` (a released name, written with no folder) or ``policy:PATH``, either with ``?sample``."""
    path, sample = parse_spec(spec)
    body = spec.removeprefix(PREFIX).removesuffix(SAMPLE_SUFFIX)
    return TrainedPolicy(path, seed=seed, sample=sample, released=is_released(body))
