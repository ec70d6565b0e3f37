"""`mindagent train`: the paper's masked-PPO baseline on a CuisineWorld kitchen (needs the rl extra)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from mindagent.cli.common import err, fail
from mindagent.evaluation.stats import parse_seeds

if TYPE_CHECKING:
    from cuisineworld.adapter.rl.train import TrainConfig

out = Console(highlight=False, soft_wrap=True)


def train(
    level: str = typer.Option("level_1", "--level", help="level name or path to a level file"),
    agents: int = typer.Option(2, "--agents", min=1, max=8),
    algo: str = typer.Option("maskable-ppo", "--algo", help="maskable-ppo (sb3-contrib, or RLlib PPO with masking)"),
    backend: str = typer.Option("sb3", "--backend", help="sb3 (one joint policy, this machine) | rllib (the PettingZoo env on Ray)"),
    steps: int = typer.Option(100_000, "--steps", min=1, help="environment steps (joint actions) to train for"),
    out_dir: Path = typer.Option(Path("runs/rl"), "--out",
                                 help="run folder: model.zip, policy.json, progress.csv, TensorBoard events, checkpoints/"),
    seed: int = typer.Option(0, "--seed"),
    reward: str = typer.Option("dense", "--reward", help="sparse | potential | dense | dense-v1"),
    taus: str = typer.Option("1.0,1.5,2.0,2.5,3.0", "--taus", help="task intervals; one is drawn per episode"),
    order: str = typer.Option("agent", "--order", help="execution order within a step: agent | shuffle"),
    rules: str = typer.Option("reference", "--rules"),
    envs: int = typer.Option(8, "--envs", min=1, max=65_536,
                             help="sb3: environments stepped together; rllib: the batch only (envs x rollout steps per iteration)"),
    checkpoint_every: int = typer.Option(50_000, "--checkpoint-every", min=1, help="steps between checkpoints"),
    learning_rate: float = typer.Option(3e-4, "--learning-rate", min=1e-6, max=1.0),
    lr_schedule: str = typer.Option("constant", "--lr-schedule",
                                    help="sb3: constant | linear (down to zero at --steps)"),
    rollout: int = typer.Option(128, "--rollout", min=8, help="steps per env between PPO updates"),
    ent_coef: float = typer.Option(0.01, "--ent-coef", min=0.0, max=1.0, help="sb3: entropy bonus weight in PPO's loss"),
    epochs: int = typer.Option(4, "--epochs", min=1, max=100, help="sb3: passes over each rollout per PPO update"),
    batch_size: int | None = typer.Option(None, "--batch-size", min=2,
                                          help="sb3: PPO minibatch (default: half of envs x rollout, at most 256)"),
    net_arch: str = typer.Option("128,128", "--net-arch", help="sb3: hidden layer widths of the policy and value MLPs"),
    policies: str = typer.Option("shared", "--policies", help="rllib: shared (one network for all agents) | per-agent"),
    address: str | None = typer.Option(None, "--address", help="rllib: a Ray cluster (ray://host:10001 or auto); default a local Ray"),
    env_runners: int = typer.Option(0, "--env-runners", min=0, max=1024,
                                    help="rllib: Ray workers sampling the env (0: sample in this process)"),
    vec: str = typer.Option("single", "--vec",
                            help="sb3: single (an env object per env, up to 256) | batched (all envs as NumPy arrays)"),
    curriculum: str = typer.Option("none", "--curriculum",
                                   help="--vec batched: dishes:FRACTION or rare:FRACTION: for that share of --steps each "
                                        "kitchen's episode orders one dish, drawn toward the dishes served least (rare: "
                                        "and toward rare ingredients), then the level's own orders; none (default)"),
    seeds: str | None = typer.Option(None, "--seeds",
                                     help="one run per seed (0-4, 0,2,5) in OUT/seed_N, each scored; prints the mean and a 95% t interval"),
    workers: int = typer.Option(1, "--workers", min=1, max=64, help="--seeds: runs trained at once (one process each)"),
    select_seed: int | None = typer.Option(None, "--select-seed", min=1,
                                           help="--seeds: score every checkpoint on this held-out evaluation seed and report the best"),
) -> None:
    """Train a masked PPO policy; evaluate it with `mindagent eval --model policy:DIR`."""
    from cuisineworld.adapter.rl.rllib_train import require_rllib
    from cuisineworld.adapter.rl.train import TrainConfig, require_rl
    from cuisineworld.adapter.rl.train import train as run_training

    try:
        tau_list = tuple(float(t) for t in taus.split(",") if t.strip())
        widths = _widths(net_arch)
        config = TrainConfig(level=level, agents=agents, steps=steps, out=out_dir, algo=algo, seed=seed, reward=reward,
                             taus=tau_list, order=order, rules=rules, n_envs=envs, checkpoint_every=checkpoint_every,
                             learning_rate=learning_rate, lr_schedule=lr_schedule, ent_coef=ent_coef,
                             n_epochs=epochs, n_steps=rollout,
                             batch_size=batch_size or max(8, min(256, rollout * envs // 2)),
                             backend=backend, policies=policies, ray_address=address, env_runners=env_runners,
                             vec=vec, net_arch=widths, curriculum=curriculum)
        config.check()
        seed_list = _seed_list(seeds) if seeds is not None else None
        if seed_list is not None and backend != "sb3":
            raise ValueError("--seeds trains the sb3 backend only")
        require_rllib() if backend == "rllib" else require_rl()
    except (ValueError, OSError, RuntimeError) as exc:
        fail(str(exc))
    if seed_list is not None:
        train_many(config, seed_list, workers, select_seed)
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"train {algo} ({backend}) on {level}, {agents} agents", total=steps)
        try:
            result = run_training(config, on_progress=lambda done: bar.update(task, completed=min(done, steps)))
        except RuntimeError as exc:  # an unreachable Ray cluster, a missing extra: one line, not a traceback
            fail(str(exc))
    last = result.curve[-1] if result.curve else {}
    out.print(f"trained {result.steps} steps in {result.seconds:.0f} s; "
              f"last completion {last.get('rollout/completion', float('nan')):.3f}, "
              f"mean episode reward {last.get('rollout/ep_rew_mean', float('nan')):.2f}")
    out.print(f"model: {result.model_path}  (mindagent eval --levels {level} --agents {agents} "
              f"--model policy:{out_dir})")


def _widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if not widths or min(widths) < 1:
        raise ValueError(f"--net-arch takes positive layer widths like 128,128, not {text!r}")
    return widths


def _seed_list(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        raise ValueError(f"--seeds takes a list like 0-4 or 0,2,5, not {text!r} ({exc})") from None


def train_many(config: TrainConfig, seeds: list[int], workers: int, select_seed: int | None) -> None:
    """`--seeds`: one run per seed, each scored, then the mean and its interval."""
    from cuisineworld.adapter.rl.seeds import EVAL_EPISODES, EVAL_SEED, SUMMARY_FILE, SeedRun, summary, train_seeds

    def one(run: SeedRun) -> None:
        chosen = f", chosen at {run.steps:,} steps by held-out CoS {run.selected_by:.3f}" if run.selected_by is not None else ""
        out.print(f"seed {run.seed}: CoS {run.cos:.3f} ({'reused' if run.reused else f'{run.seconds:.0f} s'}{chosen}) "
                  f"rates {' '.join(f'{r:.3f}' for r in run.rates)}  policy:{run.model}")

    err.print(f"training {len(seeds)} seeds of {config.level} ({config.steps:,} steps each, {workers} at once)")
    try:
        runs = train_seeds(config, seeds, workers=workers, select_seed=select_seed, on_done=one)
    except (ValueError, RuntimeError) as exc:
        fail(str(exc))
    interval = summary(runs)
    mean = sum(r.cos for r in runs) / len(runs)
    spread = f"95% t interval {interval.lo:.3f}-{interval.hi:.3f}, sd {interval.sd:.3f}" if interval.measured \
        else "no interval (one seed, or all equal)"
    out.print(f"{config.level}, {config.agents} agents, seeds {','.join(map(str, seeds))}: mean CoS {mean:.3f}, {spread}, "
              f"n {interval.n} (greedy; reference rules, evaluation seed {EVAL_SEED}, {EVAL_EPISODES} episodes per tau)")
    out.print(f"summary: {config.out / SUMMARY_FILE}")


def register(app: typer.Typer) -> None:
    app.command("train")(train)
