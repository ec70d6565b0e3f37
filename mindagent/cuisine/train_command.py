"""`mindagent train`: the paper's masked-PPO baseline on a CuisineWorld kitchen (needs the rl extra)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from mindagent.cli.common import err, fail

out = Console(highlight=False, soft_wrap=True)


def train(
    level: str = typer.Option("level_1", "--level", help="level name or path to a level file"),
    agents: int = typer.Option(2, "--agents", min=1, max=8),
    algo: str = typer.Option("maskable-ppo", "--algo", help="maskable-ppo (sb3-contrib)"),
    backend: str = typer.Option("sb3", "--backend", help="sb3 (this machine)"),
    steps: int = typer.Option(100_000, "--steps", min=1, help="environment steps (joint actions) to train for"),
    out_dir: Path = typer.Option(Path("runs/rl"), "--out", help="run folder: model.zip, policy.json, progress.csv, tb/, checkpoints/"),
    seed: int = typer.Option(0, "--seed"),
    reward: str = typer.Option("dense", "--reward", help="sparse | potential | dense | dense-v1"),
    taus: str = typer.Option("1.0,1.5,2.0,2.5,3.0", "--taus", help="task intervals; one is drawn per episode"),
    order: str = typer.Option("agent", "--order", help="execution order within a step: agent | shuffle"),
    rules: str = typer.Option("reference", "--rules"),
    envs: int = typer.Option(8, "--envs", min=1, max=256, help="environments stepped together"),
    checkpoint_every: int = typer.Option(50_000, "--checkpoint-every", min=1, help="steps between checkpoints"),
    learning_rate: float = typer.Option(3e-4, "--learning-rate", min=1e-6, max=1.0),
    rollout: int = typer.Option(128, "--rollout", min=8, help="steps per env between PPO updates"),
) -> None:
    """Train a centralized masked PPO policy; evaluate it with `mindagent eval --model policy:DIR/model.zip`."""
    from mindagent.cuisine.rl.train import BACKENDS, TrainConfig, require_rl
    from mindagent.cuisine.rl.train import train as run_training

    if backend == "rllib":
        fail("--backend rllib is not offered yet: ray[rllib] 2.60 (the release for Python 3.11) pins gymnasium==1.2.2, "
             "older than this project's, and adds a 79 MB wheel plus pandas and pyarrow; train with --backend sb3")
    if backend not in BACKENDS:
        fail(f"--backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    try:
        tau_list = tuple(float(t) for t in taus.split(",") if t.strip())
        config = TrainConfig(level=level, agents=agents, steps=steps, out=out_dir, algo=algo, seed=seed, reward=reward,
                             taus=tau_list, order=order, rules=rules, n_envs=envs, checkpoint_every=checkpoint_every,
                             learning_rate=learning_rate, n_steps=rollout, batch_size=max(8, min(256, rollout * envs // 2)))
        config.check()
        require_rl()
    except (ValueError, OSError, RuntimeError) as exc:
        fail(str(exc))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"train {algo} on {level}, {agents} agents", total=steps)
        result = run_training(config, on_progress=lambda done: bar.update(task, completed=min(done, steps)))
    last = result.curve[-1] if result.curve else {}
    out.print(f"trained {result.steps} steps in {result.seconds:.0f} s; "
              f"last completion {last.get('rollout/completion', float('nan')):.3f}, "
              f"mean episode reward {last.get('rollout/ep_rew_mean', float('nan')):.2f}")
    out.print(f"model: {result.model_path}  (mindagent eval --levels {level} --agents {agents} "
              f"--model policy:{result.model_path})")


def register(app: typer.Typer) -> None:
    app.command("train")(train)
