"""Several training seeds of one configuration, each scored by the paper's protocol, summed up as a mean and a t interval.

One PPO run is one draw: on level_4 the greedy CoS of seed 0 went 0.613 -> 0.422 between two
updates. A figure worth printing is the mean over seeds with its spread, so `train_seeds` trains
one run per seed (``OUT/seed_N``, each an ordinary run folder that ``--model policy:OUT/seed_N``
plays), evaluates each with `mindagent eval`'s sweep (reference rules, evaluation seed 0, three
60-step episodes per tau, greedy: a deterministic figure) and returns the per-seed CoS, which
`summary` turns into the t interval of `mindagent.evaluation.inference`.

Checkpoint selection: with ``select_seed`` each run's checkpoints (and its final model) are
scored on a held-out order stream (evaluation seed ``select_seed``, never the reporting seed), and
the best one is reported on the reporting stream, so the choice of checkpoint does not peek at
the figure it produces.

A seed whose folder already holds a finished run of the same configuration is not trained
again (an interrupted `--seeds 0-4` resumes at the first unfinished seed). Training is
deterministic per seed, so sequential runs and ``workers`` > 1 (one process per run) give the
same policies.

Example::

    runs = train_seeds(TrainConfig(level="level_1", steps=300_000, out=Path("runs/l1")), [0, 1, 2, 3, 4])
    summary(runs)            # Interval(lo=..., hi=..., n=5, ...)
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from cuisineworld.adapter.rl.train import POLICY_FILE, TrainConfig, train
from mindagent.evaluation.inference import Interval, t_interval

log = logging.getLogger(__name__)

#: The evaluation every figure of a run is taken with (`mindagent eval`'s defaults).
EVAL_SEED = 0
EVAL_EPISODES = 3
SUMMARY_FILE = "seeds.json"
#: Per run folder: every evaluation already made, keyed by the model file's sha256 and the protocol.
SCORES_FILE = "scores.json"
#: Settings that may differ between a finished run and a new request for it without changing the policy.
_IRRELEVANT = ("out", "checkpoint_every", "ray_address", "ray_cpus")


@dataclass(frozen=True)
class SeedRun:
    """One seed's run: where it is, the model that was scored, and its CoS on the reporting stream."""

    seed: int
    folder: str
    model: str
    steps: int
    seconds: float
    cos: float
    rates: tuple[float, ...]
    reused: bool = False
    selected_by: float | None = None  # the held-out CoS that chose `model`, when selecting


def seed_folder(out: Path, seed: int) -> Path:
    return Path(out) / f"seed_{seed}"


def evaluate_cos(model: str, level: str, agents: int, seed: int = EVAL_SEED, episodes: int = EVAL_EPISODES,
                 rules: str = "reference") -> tuple[float, tuple[float, ...]]:
    """A dispatcher's CoS and per-tau rates under `mindagent eval`'s sweep (greedy policies: deterministic)."""
    from mindagent.core import registry
    from mindagent.dispatch.brains import make_brain
    from mindagent.evaluation.scoring import cos
    from mindagent.evaluation.sweep import EvalConfig, Results, run_eval

    config = EvalConfig(levels=[level], agents=[agents], model=model, episodes=episodes, seed=seed, rules=rules,
                        domain="cuisineworld")
    results = Results(None, config)
    domain = registry.get("cuisineworld")
    asyncio.run(run_eval(config, results, lambda: make_brain(model, domain, seed=seed)))
    if results.failures:
        raise RuntimeError("; ".join(results.failures))
    taus = [results.done[(level, agents)][t] for t in config.taus]
    return cos(taus), tuple(t.rate for t in taus)


def scored(model: Path, level: str, agents: int, seed: int = EVAL_SEED, episodes: int = EVAL_EPISODES,
           rules: str = "reference") -> tuple[float, tuple[float, ...]]:
    """`evaluate_cos` of a model file, remembered in its run folder's scores.json.

    Greedy play on seeded orders is deterministic, so a figure keyed by the file's sha256 and the
    protocol stands for good: re-running ``--select-seed`` on a finished set (or a watcher scoring
    checkpoints while the run trains) does not play the same checkpoint twice. The run folder is the
    one holding ``checkpoints/`` (or the model itself).
    """
    from cuisineworld.adapter.rl.released import sha256_of

    folder = model.parent.parent if model.parent.name == "checkpoints" else model.parent
    cache_path = folder / SCORES_FILE
    key = f"{sha256_of(model)}|{level}|{agents}|{rules}|seed {seed}|{episodes} episodes"
    cache: dict[str, Any] = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    if key in cache:
        hit = cache[key]
        return float(hit["cos"]), tuple(float(r) for r in hit["rates"])
    score, rates = evaluate_cos(f"policy:{model}", level, agents, seed=seed, episodes=episodes, rules=rules)
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}  # another process may have added some
    cache[key] = {"model": str(model), "cos": score, "rates": list(rates)}
    tmp = cache_path.with_name(f".{SCORES_FILE}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    tmp.replace(cache_path)
    return score, rates


def _finished(config: TrainConfig) -> dict[str, Any] | None:
    """The folder's policy.json when it holds a finished run of this very configuration."""
    folder = Path(config.out)
    meta_path = folder / POLICY_FILE
    if not (folder / "model.zip").is_file() or not meta_path.is_file():
        return None
    meta: dict[str, Any] = json.loads(meta_path.read_text())
    wanted = json.loads(json.dumps(asdict(config), default=str))
    # a folder written before a setting existed ran at that setting's default
    defaults = json.loads(json.dumps({f.name: f.default for f in fields(TrainConfig)}, default=str))
    same = all(meta.get(k, defaults.get(k)) == v for k, v in wanted.items() if k not in _IRRELEVANT)
    return meta if same and int(meta.get("trained_steps", 0)) >= config.steps else None


def checkpoint_models(folder: Path) -> list[tuple[int, Path]]:
    """(steps, path) of every checkpoint and the final model, by steps."""
    found = []
    for path in (folder / "checkpoints").glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((int(match.group(1)), path))
    meta = json.loads((folder / POLICY_FILE).read_text())
    if (folder / "model.zip").is_file():
        found.append((int(meta.get("trained_steps", 0)), folder / "model.zip"))
    return sorted(found, key=lambda c: (c[0], c[1].name != "model.zip"))


def select_checkpoint(folder: Path, level: str, agents: int, held_out_seed: int,
                      rules: str = "reference") -> tuple[Path, float]:
    """The model of `folder` with the best CoS on the held-out stream (the earliest on a tie)."""
    best: tuple[Path, float] | None = None
    for _steps, path in checkpoint_models(folder):
        score, _ = scored(path, level, agents, seed=held_out_seed, rules=rules)
        if best is None or score > best[1]:
            best = (path, score)
    if best is None:
        raise RuntimeError(f"{folder} holds no model to select from")
    return best


def run_seed(config: TrainConfig, select_seed: int | None = None) -> SeedRun:
    """Train (or reuse) one seed's run and score it; the unit a worker process runs."""
    meta = _finished(config)
    reused = meta is not None
    if meta is None:
        result = train(config)
        steps, seconds = result.steps, result.seconds
    else:
        log.info("seed %d: %s already holds this run; not training again", config.seed, config.out)
        steps, seconds = int(meta["trained_steps"]), float(meta.get("seconds", 0.0))
    folder = Path(config.out)
    model, chosen_by = folder / "model.zip", None
    if select_seed is not None:
        model, chosen_by = select_checkpoint(folder, config.level, config.agents, select_seed, config.rules)
        match = re.fullmatch(r"model_(\d+)_steps\.zip", model.name)
        steps = int(match.group(1)) if match else steps
    score, rates = scored(model, config.level, config.agents, rules=config.rules)
    return SeedRun(config.seed, str(folder), str(model), steps, round(seconds, 1), score, rates, reused, chosen_by)


def train_seeds(base: TrainConfig, seeds: Sequence[int], workers: int = 1, select_seed: int | None = None,
                on_done: Callable[[SeedRun], None] | None = None) -> list[SeedRun]:
    """One run per seed in ``base.out/seed_N``, scored; `workers` > 1 trains that many at once."""
    if not seeds:
        raise ValueError("no seeds given")
    if select_seed is not None and select_seed == EVAL_SEED:
        raise ValueError(f"the selection stream must differ from the reporting one (evaluation seed {EVAL_SEED})")
    configs = [replace(base, seed=s, out=seed_folder(base.out, s)) for s in seeds]
    for config in configs:
        config.check()
    runs: list[SeedRun] = []
    if workers <= 1:
        for config in configs:
            runs.append(run_seed(config, select_seed))
            if on_done is not None:
                on_done(runs[-1])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(run_seed, config, select_seed) for config in configs]
            for future in futures:  # in seed order, whichever finishes first
                runs.append(future.result())
                if on_done is not None:
                    on_done(runs[-1])
    write_summary(base, runs)
    return runs


def summary(runs: Sequence[SeedRun]) -> Interval:
    """The t interval (95 %) of the mean CoS over the seeds."""
    return t_interval([r.cos for r in runs])


def write_summary(base: TrainConfig, runs: Sequence[SeedRun]) -> Path:
    """``OUT/seeds.json``: the configuration, each seed's figure and the interval."""
    interval = summary(runs)
    body = {
        "config": json.loads(json.dumps({k: v for k, v in asdict(base).items() if k not in ("seed", "out")}, default=str)),
        "protocol": {"rules": base.rules, "eval_seed": EVAL_SEED, "episodes_per_tau": EVAL_EPISODES, "greedy": True},
        "runs": [asdict(r) for r in runs],
        "mean": interval_mean(runs), "interval": [interval.lo, interval.hi], "n": interval.n, "sd": interval.sd,
    }
    target = Path(base.out) / SUMMARY_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(body, indent=1) + "\n")
    return target


def interval_mean(runs: Sequence[SeedRun]) -> float:
    return sum(r.cos for r in runs) / len(runs)
