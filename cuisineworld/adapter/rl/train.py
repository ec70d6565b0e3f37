"""Train the paper's RL baseline: a centralized masked PPO over the joint (MultiDiscrete) env.

``backend="rllib"`` trains on Ray RLlib over the PettingZoo env instead
(`cuisineworld.adapter.rl.rllib_train`, same folder conventions); the rest of this doc is the SB3 path.

sb3-contrib's `MaskablePPO` reads the legal actions from `CuisineJointEnv.action_masks()`, so no
wrapper sits between trainer and env. A run writes into one folder:

- ``model.zip``: the final policy (load it with ``--model policy:DIR/model.zip``);
- ``policy.json``: what the policy was trained on (level, agents, rules, taus, reward, sizes), which
  the loader checks a session against before playing;
- ``progress.csv`` and TensorBoard event files (``events.out.tfevents.*``, in the run folder
  itself, when tensorboard is installed: ``tensorboard --logdir DIR``): the learning curve,
  including ``rollout/completion`` (completed / all orders of each finished episode);
- ``checkpoints/``: the policy every `checkpoint_every` steps.

Needs the ``rl`` extra (torch CPU, stable-baselines3, sb3-contrib); imported only when training.
The run is deterministic for a seed on one machine: numpy, torch and the envs are seeded from it
(env i gets ``seed + i``) and torch runs on one thread.

Example::

    result = train(TrainConfig(level="level_1", agents=2, steps=20_000, out=Path("runs/l1")))
    result.model_path        # runs/l1/model.zip
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cuisineworld import PAPER_TAUS, load_level
from cuisineworld.adapter.rl.core import ORDERS
from cuisineworld.adapter.rl.curriculum import parse_curriculum
from cuisineworld.adapter.rl.gym_env import CuisineJointEnv
from cuisineworld.adapter.rl.rewards import REWARDS

log = logging.getLogger(__name__)

ALGOS = ("maskable-ppo",)
BACKENDS = ("sb3", "rllib")
POLICY_MODES = ("shared", "per-agent")  # rllib: one network for all agents, or one each
POLICY_FILE = "policy.json"
VECS = ("single", "batched")
#: How the learning rate moves over a run: held, or straight down to zero at ``steps`` (a longer
#: ``--steps`` then changes every update, so its checkpoints are not a shorter run's).
LR_SCHEDULES = ("constant", "linear")  # sb3: one CuisineJointEnv per env in SB3's vector env, or BatchedKitchens
MAX_SINGLE_ENVS = 256


@dataclass(frozen=True)
class TrainConfig:
    """One training run. PPO's knobs default to values that learn on a 2-agent kitchen on a laptop CPU."""

    level: str = "level_1"
    agents: int = 2
    steps: int = 100_000
    out: Path = Path("runs/rl")
    algo: str = "maskable-ppo"
    seed: int = 0
    reward: str = "dense"
    taus: tuple[float, ...] = tuple(PAPER_TAUS)
    order: str = "agent"
    rules: str = "reference"
    episode_steps: int | None = None  # None: the level's own budget
    n_envs: int = 8
    n_steps: int = 128  # per env per update
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"
    gamma: float = 0.99
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (128, 128)
    checkpoint_every: int = 50_000
    backend: str = "sb3"  # sb3 (the joint env on this machine) or rllib (the PettingZoo env on Ray)
    policies: str = "shared"  # rllib only
    ray_address: str | None = None  # rllib only: None starts a local Ray
    ray_cpus: int | None = None  # rllib only, local Ray: CPUs it may use (None: 1 + env_runners)
    env_runners: int = 0  # rllib only: 0 samples in this process
    vec: str = "single"  # sb3 only: "batched" steps all n_envs kitchens as NumPy arrays (`batched_vec`)
    curriculum: str = "none"  # training orders: none, dishes:FRACTION or rare:FRACTION (`curriculum`; --vec batched)

    def check(self) -> None:
        """Refuse what cannot run, with one readable line (before any heavy import)."""
        if self.algo not in ALGOS:
            raise ValueError(f"--algo must be one of {', '.join(ALGOS)}, not {self.algo!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.policies not in POLICY_MODES:
            raise ValueError(f"--policies must be one of {', '.join(POLICY_MODES)}, not {self.policies!r}")
        if self.env_runners < 0:
            raise ValueError("--env-runners must be 0 or more")
        if self.reward not in REWARDS:
            raise ValueError(f"--reward must be one of {', '.join(REWARDS)}, not {self.reward!r}")
        if self.order not in ORDERS:
            raise ValueError(f"--order must be one of {', '.join(ORDERS)}, not {self.order!r}")
        if not 1 <= self.agents <= 8:
            raise ValueError(f"1 to 8 agents, not {self.agents}")
        if self.steps < 1 or self.n_envs < 1 or not self.taus:
            raise ValueError("steps, envs and taus must be positive")
        load_level(self.level, self.rules)  # a bad level name or file fails here
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"--lr-schedule must be one of {', '.join(LR_SCHEDULES)}, not {self.lr_schedule!r}")
        if self.n_epochs < 1 or self.ent_coef < 0:
            raise ValueError("--epochs must be positive and --ent-coef not negative")
        if self.batch_size < 2:  # SB3's PPO asserts it; a minibatch above envs x rollout is the whole rollout
            raise ValueError(f"--batch-size must be at least 2, not {self.batch_size}")
        if self.lr_schedule != "constant" and self.backend != "sb3":
            raise ValueError("--lr-schedule other than constant trains the sb3 backend only")
        if self.vec not in VECS:
            raise ValueError(f"--vec must be one of {', '.join(VECS)}, not {self.vec!r}")
        if parse_curriculum(self.curriculum) is not None and self.vec != "batched":
            raise ValueError("--curriculum sets the orders of the batched kitchens: add --vec batched")
        if self.vec == "batched":
            from cuisineworld.adapter.rl.batched_vec import check_batched

            check_batched(self)
        elif self.n_envs > MAX_SINGLE_ENVS:
            raise ValueError(f"--envs above {MAX_SINGLE_ENVS} needs --vec batched (one process steps every env)")

    def make_env(self, index: int = 0) -> CuisineJointEnv:
        return CuisineJointEnv(self.level, n_agents=self.agents, tau=self.taus, rules=self.rules,
                               max_steps=self.episode_steps, reward=self.reward, order=self.order, gamma=self.gamma)


@dataclass
class TrainResult:
    model_path: Path
    seconds: float
    steps: int
    curve: list[dict[str, float]] = field(default_factory=list)  # one row per PPO update (progress.csv)


def require_rl() -> None:
    """One actionable line when the ``rl`` extra is missing."""
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"training needs the rl extra: pip install -e '.[rl]' ({exc.name} is missing)") from None


def train(config: TrainConfig, on_progress: Callable[[int], None] | None = None) -> TrainResult:
    """Train, write the run folder (see the module doc) and return where the model is."""
    config.check()
    if config.backend == "rllib":
        from cuisineworld.adapter.rl.rllib_train import train_rllib

        return train_rllib(config, on_progress)
    require_rl()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import VecEnv

    from cuisineworld.adapter.rl.callbacks import CompletionLogger, ProgressHook

    torch.set_num_threads(1)
    set_random_seed(config.seed)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    if config.vec == "batched":
        from cuisineworld.adapter.rl.batched_vec import make_training_venv

        venv: VecEnv = make_training_venv(config)
    else:
        venv = make_vec_env(config.make_env, n_envs=config.n_envs, seed=config.seed)
    formats = ["csv"] + (["tensorboard"] if _has_tensorboard() else [])
    model = MaskablePPO("MlpPolicy", venv, learning_rate=learning_rate(config), n_steps=config.n_steps,
                        batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma,
                        ent_coef=config.ent_coef, seed=config.seed, device="cpu", verbose=0,
                        policy_kwargs={"net_arch": list(config.net_arch)})
    model.set_logger(configure(str(out), formats))
    if "tensorboard" in formats:
        log.info("TensorBoard logs in %s (tensorboard --logdir %s)", out, out)
    callbacks = [CompletionLogger(), CheckpointCallback(max(1, config.checkpoint_every // config.n_envs),
                                                        str(out / "checkpoints"), name_prefix="model")]
    if on_progress is not None:
        callbacks.append(ProgressHook(on_progress))
    plan = parse_curriculum(config.curriculum)
    if plan is not None:
        from cuisineworld.adapter.rl.batched_sb3 import BatchedVecEnv
        from cuisineworld.adapter.rl.callbacks import CurriculumSwitch

        kitchens = venv.unwrapped
        assert isinstance(kitchens, BatchedVecEnv)  # check() refused --curriculum without --vec batched
        callbacks.append(CurriculumSwitch(plan.install(kitchens.kitchens, config.seed), plan.until(config.steps)))
    write_meta(config, out, 0, 0.0)  # first, so checkpoints can be evaluated while training runs
    started = time.perf_counter()
    model.learn(total_timesteps=config.steps, callback=CallbackList(callbacks), progress_bar=False)
    seconds = time.perf_counter() - started
    model_path = out / "model.zip"
    model.save(str(model_path))
    write_meta(config, out, int(model.num_timesteps), seconds)
    venv.close()
    return TrainResult(model_path, seconds, int(model.num_timesteps), read_curve(out / "progress.csv"))


def learning_rate(config: TrainConfig) -> float | Callable[[float], float]:
    """SB3's learning rate: the number, or a function of the progress left (1 at the start, 0 at the end)."""
    if config.lr_schedule == "linear":
        start = config.learning_rate
        return lambda remaining: start * remaining
    return config.learning_rate


def write_meta(config: TrainConfig, out: Path, steps: int, seconds: float) -> None:
    """policy.json: what the policies in `out` (and out/checkpoints) were trained on."""
    env = config.make_env()
    meta: dict[str, Any] = {
        **{k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()},
        "obs_size": env.observer.size, "actions": env.table.size,
        "trained_steps": steps, "seconds": round(seconds, 1),
    }
    if config.backend == "rllib":
        from cuisineworld.adapter.rl.rllib_train import module_ids

        meta["modules"] = {f"agent{i}": module_ids(config.agents, config.policies)[0 if config.policies == "shared" else i]
                           for i in range(config.agents)}
    (out / POLICY_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def read_curve(path: Path) -> list[dict[str, float]]:
    """progress.csv as rows of floats (empty cells dropped)."""
    import csv

    if not path.exists():
        return []
    with path.open() as fh:
        return [{k: float(v) for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(fh)]


def _has_tensorboard() -> bool:
    import importlib.util

    return importlib.util.find_spec("tensorboard") is not None
