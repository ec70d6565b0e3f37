"""Where a sweep's units run: in this process, in a pool of processes, or as Ray tasks.

A unit is one (config, level, agents, tau): consecutive episodes on one session, independent of
every other unit and deterministic, so it can run anywhere. The built-in planner decides in
Python inside the event loop, so `--concurrency` (tasks on one loop) never uses a second core;
processes do. Each worker gets a picklable `BrainRecipe` instead of the CLI's closure and builds
its own brain; results come back to this process, which adds them to the results file. The file
lists cells and taus in configuration order whatever order units finish in, so any number of
workers writes the same bytes as one.

Ray (`executor="ray"`): the same unit function as a remote task, on a local Ray started here or
on a cluster (`address`). Ray is an optional dependency, imported only when asked for.

Example::

    run_units([(results, level, 2, 1.0)], BrainRecipe("planner", domain.name, seed=0), workers=2)
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from mindagent import domains, evaluation
from mindagent.brains import Brain, make_brain
from mindagent.evaluation import EvalConfig, Results
from mindagent.scoring import TauResult

log = logging.getLogger(__name__)

EXECUTORS = ("local", "ray")
Unit = tuple[Results, str, int, float]  # the results file it belongs to, level, agents, tau


class ExecutorError(RuntimeError):
    """The executor cannot run (Ray not installed, a cluster address that does not answer)."""


@dataclass(frozen=True, slots=True)
class BrainRecipe:
    """How to build a unit's brain in another process (the CLI's options, no closures)."""

    model: str
    domain: str
    seed: int
    base_url: str | None = None
    model_path: str | None = None
    temperature: float = 0.1
    max_tokens: int = 100
    timeout_s: float = 60.0
    threads: int | None = None

    def make(self) -> Brain:
        return make_brain(self.model, domains.get(self.domain), seed=self.seed, base_url=self.base_url,
                          model_path=self.model_path, temperature=self.temperature, max_tokens=self.max_tokens,
                          timeout_s=self.timeout_s, threads=self.threads)


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_unit(config: EvalConfig, level: str, agents: int, tau: float, recipe: BrainRecipe) -> TauResult:
    """One unit, start to finish, in whatever process runs it (`evaluation.run_tau` looked up at
    call time, so a test's stand-in reaches forked workers too)."""
    return asyncio.run(evaluation.run_tau(config, level, agents, tau, recipe.make))


def _failed(results: Results, level: str, agents: int, tau: float, exc: BaseException) -> None:
    """Not saved, so running the same command again retries the unit."""
    results.failures.append(f"{level}, {agents} agents, tau {tau}: {type(exc).__name__}: {exc}")


def run_units(units: Sequence[Unit], recipe_for: Callable[[EvalConfig], BrainRecipe], workers: int = 1,
              executor: str = "local", address: str | None = None,
              on_unit: Callable[[Unit], None] | None = None) -> None:
    """Run every unit and add each result to its results file (saved as it comes)."""
    if executor not in EXECUTORS:
        raise ExecutorError(f"unknown executor {executor!r}; choose one of: {', '.join(EXECUTORS)}")
    if executor == "ray":
        _run_ray(units, recipe_for, address, on_unit)
        return
    if workers <= 1:
        for unit in units:
            results, level, agents, tau = unit
            try:
                outcome = run_unit(results.config, level, agents, tau, recipe_for(results.config))
            except Exception as exc:  # one unit's failure must not lose the others' results
                log.exception("%s, %d agents, tau %s failed", level, agents, tau)
                _failed(results, level, agents, tau, exc)
            else:
                results.add(level, agents, outcome)
            if on_unit is not None:
                on_unit(unit)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: dict[Future[TauResult], int] = {
            pool.submit(run_unit, u[0].config, u[1], u[2], u[3], recipe_for(u[0].config)): i for i, u in enumerate(units)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=pending.__getitem__):  # several at once: in unit order
                unit = units[pending.pop(future)]
                results, level, agents, tau = unit
                error = future.exception()
                if error is not None:
                    log.error("%s, %d agents, tau %s failed in a worker: %r", level, agents, tau, error)
                    _failed(results, level, agents, tau, error)
                else:
                    results.add(level, agents, future.result())
                if on_unit is not None:
                    on_unit(unit)


def _run_ray(units: Sequence[Unit], recipe_for: Callable[[EvalConfig], BrainRecipe], address: str | None,
             on_unit: Callable[[Unit], None] | None) -> None:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install 'mindagent[ray]' (or pip install ray)") from None
    env: dict[str, Any] = {}
    if os.environ.get("PYTHONPATH"):
        env = {"env_vars": {"PYTHONPATH": os.environ["PYTHONPATH"]}}
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, runtime_env=env or None)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ExecutorError(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from None
    try:
        remote = ray.remote(run_unit)
        pending: dict[Any, Unit] = {
            remote.remote(u[0].config, u[1], u[2], u[3], recipe_for(u[0].config)): u for u in units}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                unit = pending.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as exc:  # a task's error comes back wrapped; keep the others going
                    log.exception("%s, %d agents, tau %s failed on Ray", unit[1], unit[2], unit[3])
                    _failed(unit[0], unit[1], unit[2], unit[3], exc)
                else:
                    unit[0].add(unit[1], unit[2], outcome)
                if on_unit is not None:
                    on_unit(unit)
    finally:
        if started_here:
            ray.shutdown()
