"""The RLlib backend of `mindagent train` (``--backend rllib``): masked PPO on the PettingZoo env.

For a user who outgrows one machine: the same kitchen, reward and PPO knobs as the SB3 path, but
each agent is a separate RLlib agent of the `CuisineParallelEnv` (``obs_type="dict"``, so the mask
travels in the observation) and `MaskedActorCritic` gives illegal commands no probability.
``policies="shared"`` (the default) trains one network that every agent uses (the agent id is in
its vector); ``"per-agent"`` trains one network per agent. Ray runs locally unless an address is
given (``ray://host:10001`` or ``auto``); ``env_runners=0`` samples in this process, more spread
sampling over Ray workers.

A run folder, like the SB3 one:

- ``checkpoint/``: the final RLlib checkpoint (play it with ``--model policy:DIR``);
- ``checkpoints/rllib_<steps>_steps/``: one every ``checkpoint_every`` steps (each playable too);
- ``policy.json`` (with ``backend: rllib`` and the module of each agent), ``progress.csv`` and
  TensorBoard event files in the run folder (one row per PPO iteration, under SB3's column names
  and signs so the two backends' curves compare: ``time/total_timesteps``, ``rollout/ep_rew_mean``,
  ``rollout/completion``, ``train/policy_gradient_loss`` (RLlib's ``policy_loss``),
  ``train/value_loss`` (its ``vf_loss``) and ``train/entropy_loss`` (minus its ``entropy``, as
  SB3 logs it)).

``--envs`` (``n_envs``) does not step several envs here: each env runner samples one env, and
``n_envs * n_steps`` only sets the joint steps per iteration (the train batch); sampling spreads
over ``env_runners`` Ray workers instead.

Ray, its worker logs and its dashboard stay quiet: no dashboard, workers' output not forwarded,
RLlib's loggers at warning. RLlib runs are seeded but not bit-identical between runs (RLlib's
sampling order depends on timing once workers are remote).
"""

from __future__ import annotations

import csv
import functools
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cuisineworld.adapter.rl.pettingzoo_env import CuisineParallelEnv

if TYPE_CHECKING:
    from cuisineworld.adapter.rl.train import TrainConfig, TrainResult

log = logging.getLogger(__name__)

ENV_NAME = "mindagent-cuisineworld"
POLICY_MODES = ("shared", "per-agent")
SHARED_MODULE = "shared"
FINAL_CHECKPOINT = "checkpoint"
CHECKPOINT_PREFIX = "rllib_"
MODULES_DIR = ("learner_group", "learner", "rl_module")  # where a checkpoint keeps the networks
COLUMNS = ("time/iterations", "time/total_timesteps", "time/seconds", "rollout/ep_rew_mean", "rollout/ep_len_mean",
           "rollout/completion", "rollout/completed", "train/policy_gradient_loss", "train/value_loss", "train/entropy_loss",
           "train/learning_rate")


def module_ids(agents: int, policies: str) -> list[str]:
    return [SHARED_MODULE] if policies == "shared" else [f"agent{i}" for i in range(agents)]


def module_of(agent_id: str, policies: str) -> str:
    return SHARED_MODULE if policies == "shared" else agent_id


def _map_agent(agent_id: str, episode: Any = None, *, policies: str, **kwargs: Any) -> str:
    return module_of(agent_id, policies)


def make_env(env_config: dict[str, Any]) -> Any:
    """RLlib's env creator: the PettingZoo env with the mask in the observation, as an RLlib MultiAgentEnv."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    env = CuisineParallelEnv(env_config["level"], n_agents=int(env_config["agents"]), tau=tuple(env_config["taus"]),
                             rules=env_config["rules"], max_steps=env_config.get("episode_steps"), obs_type="dict",
                             reward=env_config["reward"], order=env_config["order"], gamma=float(env_config["gamma"]))
    return ParallelPettingZooEnv(env)


def _log_completion(*, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
    """The paper's measure per finished episode (the shaped return says little about dishes)."""
    if metrics_logger is None:
        return
    for info in episode.get_infos(-1).values():
        counts = info.get("episode_counts") if isinstance(info, dict) else None
        if counts:
            total = counts["completed"] + counts["failed"] + counts["active"]
            metrics_logger.log_value("completion", counts["completed"] / total if total else 0.0, reduce="mean", window=100)
            metrics_logger.log_value("completed", float(counts["completed"]), reduce="mean", window=100)
            return


def require_rllib() -> None:
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"--backend rllib needs the rllib extra: pip install -e '.[rl,rllib]' ({exc.name} is missing)") from None


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Connect to `address` or start a quiet local Ray; True when this call started it (so stop it after)."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    if address:
        _check_reachable(address)
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
            raise RuntimeError(f"--address {address}: no Ray cluster reached ({str(exc).splitlines()[0]})") from None
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, **kwargs)
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail in seconds on a host:port nobody listens at (Ray itself retries for minutes)."""
    import socket
    from urllib.parse import urlsplit

    if address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise RuntimeError(f"--address {address}: give host:port, ray://host:port or auto")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise RuntimeError(f"--address {address}: no Ray cluster reached ({exc})") from None


def build_algo(config: TrainConfig) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cuisineworld.adapter.rl.rllib_module import MaskedActorCritic

    register_env(ENV_NAME, make_env)
    ids = module_ids(config.agents, config.policies)
    env_config = {"level": config.level, "agents": config.agents, "taus": list(config.taus), "rules": config.rules,
                  "episode_steps": config.episode_steps, "reward": config.reward, "order": config.order,
                  "gamma": config.gamma}
    spec = MultiRLModuleSpec(rl_module_specs={
        mid: RLModuleSpec(module_class=MaskedActorCritic, model_config={"hidden": list(config.net_arch)}) for mid in ids})
    ppo = (PPOConfig()
           .environment(ENV_NAME, env_config=env_config)
           .framework("torch")
           .env_runners(num_env_runners=config.env_runners, num_envs_per_env_runner=1, rollout_fragment_length="auto",
                        num_cpus_per_env_runner=1)
           .learners(num_learners=0)
           .multi_agent(policies=set(ids), policy_mapping_fn=functools.partial(_map_agent, policies=config.policies),
                        policies_to_train=ids)
           .rl_module(rl_module_spec=spec)
           .training(lr=config.learning_rate, gamma=config.gamma, train_batch_size_per_learner=config.n_envs * config.n_steps,
                     minibatch_size=config.batch_size, num_epochs=config.n_epochs, entropy_coeff=config.ent_coef)
           .callbacks(on_episode_end=_log_completion)
           .debugging(seed=config.seed, log_level="ERROR"))
    return ppo.build_algo()


def _row(result: dict[str, Any], ids: list[str], seconds: float, config: TrainConfig) -> dict[str, float]:
    runners = result.get("env_runners", {})
    learners = result.get("learners", {})

    def mean(key: str) -> float | None:
        values = [float(learners[m][key]) for m in ids if key in learners.get(m, {})]
        return sum(values) / len(values) if values else None

    row: dict[str, float | None] = {
        "time/iterations": float(result.get("training_iteration", 0)),
        "time/total_timesteps": float(runners.get("num_env_steps_sampled_lifetime", 0)),
        "time/seconds": round(seconds, 1),
        # RLlib sums the agents' returns; every agent gets the team reward, so one share is the team's return
        "rollout/ep_rew_mean": _per(runners.get("episode_return_mean"), config.agents),
        "rollout/ep_len_mean": runners.get("episode_len_mean"),
        "rollout/completion": runners.get("completion"),
        "rollout/completed": runners.get("completed"),
        "train/policy_gradient_loss": mean("policy_loss"),
        "train/value_loss": mean("vf_loss"),
        "train/entropy_loss": _negated(mean("entropy")),  # SB3 logs minus the entropy
        "train/learning_rate": config.learning_rate,
    }
    return {k: float(v) for k, v in row.items() if v is not None and v == v}


def _negated(value: float | None) -> float | None:
    return None if value is None else -value


def _per(value: Any, agents: int) -> float | None:
    return None if value is None else float(value) / agents


def train_rllib(config: TrainConfig, on_progress: Callable[[int], None] | None = None) -> TrainResult:
    """Train with RLlib and write the run folder (see the module doc)."""
    import ray
    import torch

    from cuisineworld.adapter.rl.train import TrainResult, read_curve, write_meta

    require_rllib()
    torch.set_num_threads(1)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    started_ray = start_ray(config.ray_address, config.ray_cpus or 1 + config.env_runners)
    ids = module_ids(config.agents, config.policies)
    writer = _tensorboard(out)
    write_meta(config, out, 0, 0.0)
    algo = None
    try:
        algo = build_algo(config)
        started = time.perf_counter()
        steps, next_checkpoint = 0, config.checkpoint_every
        with (out / "progress.csv").open("w", newline="") as fh:
            table = csv.DictWriter(fh, fieldnames=list(COLUMNS))
            table.writeheader()
            while steps < config.steps:
                result = algo.train()
                row = _row(result, ids, time.perf_counter() - started, config)
                steps = int(row["time/total_timesteps"])
                table.writerow(row)
                fh.flush()
                if writer is not None:
                    for key, value in row.items():
                        writer.add_scalar(key, value, steps)
                if steps >= next_checkpoint and steps < config.steps:
                    algo.save_to_path(str((out / "checkpoints" / f"{CHECKPOINT_PREFIX}{steps}_steps").resolve()))
                    next_checkpoint = (steps // config.checkpoint_every + 1) * config.checkpoint_every
                if on_progress is not None:
                    on_progress(steps)
        seconds = time.perf_counter() - started
        final = out / FINAL_CHECKPOINT
        algo.save_to_path(str(final.resolve()))
        write_meta(config, out, steps, seconds)
    finally:
        if writer is not None:
            writer.close()
        if algo is not None:
            algo.stop()
        if started_ray:
            ray.shutdown()
    return TrainResult(final, seconds, steps, read_curve(out / "progress.csv"))


def _tensorboard(out: Path) -> Any:
    import importlib.util

    if importlib.util.find_spec("tensorboard") is None:
        return None
    from torch.utils.tensorboard import SummaryWriter

    log.info("TensorBoard logs in %s (tensorboard --logdir %s)", out, out)
    return SummaryWriter(str(out))


def is_checkpoint(path: Path) -> bool:
    return path.is_dir() and path.joinpath(*MODULES_DIR).is_dir()


def load_modules(checkpoint: Path) -> dict[str, Any]:
    """The trained networks of an RLlib checkpoint by module id, on CPU, with no Ray running."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    torch.set_num_threads(1)
    folder = checkpoint.joinpath(*MODULES_DIR)
    modules = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        module: Any = RLModule.from_checkpoint(str(sub.resolve()))
        module.train(False)  # torch inference mode for playing (no dropout or batch-norm updates)
        modules[sub.name] = module
    return modules
