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

A model's request budget (`BrainRecipe.limits`: requests per minute, requests in flight) is a
provider's limit on the whole sweep, not on each worker. So run_units makes one `RateGate` per
backend and hands every unit a handle to it: the object itself in this process, a proxy to it in
a manager process for a pool, a Ray actor for Ray. N workers together stay within the budget.

Units are submitted largest first (`unit_cost`), so the last unit to finish is a small one and
the workers finish together; where each unit runs changes no result.

Example::

    run_units([(results, level, 2, 1.0)], BrainRecipe("planner", domain.name, seed=0), workers=2)
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing.managers import BaseManager
from typing import Any

from mindagent.core import registry as domains
from mindagent.dispatch.brains import Brain, make_brain
from mindagent.evaluation import sweep as evaluation
from mindagent.evaluation.checkpoint import Checkpoint, UnitFailed
from mindagent.evaluation.scoring import TauResult
from mindagent.evaluation.sweep import EvalConfig, Results
from mindagent.llm.ratelimit import Gate, RateGate, RateLimits

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
    max_tokens: int | None = None  # None: scaled per call (`brains.token_budget`)
    timeout_s: float = 60.0
    threads: int | None = None
    #: the backend's budget for the whole sweep (`--rpm`, `--tpm`, `--concurrency` across workers)
    limits: RateLimits | None = None
    #: a handle to the sweep's one gate for that budget; `run_units` (or `with_gate`) sets it
    gate: Gate | None = None
    #: retries after a transient failure (`--retries`) and the cap on a Retry-After wait
    retries: int = 4
    max_retry_after_s: float = 30.0
    #: where an OpenAI-compatible server reads the command grammar (`--grammar-field`)
    grammar_field: str = "auto"

    def make(self) -> Brain:
        return make_brain(self.model, domains.get(self.domain), seed=self.seed, base_url=self.base_url,
                          model_path=self.model_path, temperature=self.temperature, max_tokens=self.max_tokens,
                          timeout_s=self.timeout_s, threads=self.threads, gate=self.gate, retries=self.retries,
                          max_retry_after_s=self.max_retry_after_s, grammar_field=self.grammar_field)


def with_gate(recipe: BrainRecipe, gate: Gate | None) -> BrainRecipe:
    """The recipe whose brains ask `gate` before every request."""
    return dataclasses.replace(recipe, gate=gate)


class _GateManager(BaseManager):
    """A process that holds the sweep's gates; pool workers reach them through proxies."""


_GateManager.register("RateGate", RateGate, exposed=("try_enter", "leave", "stats"))


class _Gates:
    """One gate per backend (model, base URL) and budget, made on first need by `make`."""

    def __init__(self, make: Callable[[RateLimits], Gate]) -> None:
        self._make = make
        self._gates: dict[tuple[str, str | None, RateLimits], Gate] = {}

    def attach(self, recipe: BrainRecipe) -> BrainRecipe:
        if recipe.limits is None or not recipe.limits.limited or recipe.gate is not None:
            return recipe
        key = (recipe.model, recipe.base_url, recipe.limits)
        if key not in self._gates:
            self._gates[key] = self._make(recipe.limits)
        return with_gate(recipe, self._gates[key])


@contextmanager
def _manager_gates() -> Iterator[_Gates]:
    """Gates in a manager process, started only if some unit has a budget, stopped at the end."""
    with ExitStack() as stack:
        manager: list[_GateManager] = []

        def make(limits: RateLimits) -> Gate:
            if not manager:
                started = _GateManager()
                started.start(exit_with_parent, (os.getpid(),))
                stack.callback(started.shutdown)
                manager.append(started)
            gate: Gate = manager[0].RateGate(limits)  # type: ignore[attr-defined]
            return gate

        yield _Gates(make)


#: Seconds a sweep stopped by Ctrl-C waits for its workers to hand back the units they were playing.
INTERRUPT_GRACE_S = 30.0
#: Seconds between a pool worker's looks at whether its sweep process is still there.
PARENT_POLL_S = 0.5


def exit_with_parent(parent: int) -> None:
    """In a pool or manager process: exit as soon as `parent` (the sweep) is gone. A sweep killed
    with SIGKILL runs no clean-up, and its workers used to sleep on their task queue forever (two
    orphans per kill -9 of `eval`); the kernel re-parents them, which is what this watches for."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def unit_cost(unit: Unit) -> tuple[bool, float]:
    """Sort key, largest first. Measured with the planner on the paper sweep (CPU seconds per unit):
    two-agent units cost about ten times the others (the look-ahead runs for teams of two), and a
    lower tau (more orders) costs more. Ties keep configuration order (the sort is stable). Only
    the order of the work changes, never a result."""
    _, _, agents, tau = unit
    return (agents != 2, tau)


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_unit(config: EvalConfig, level: str, agents: int, tau: float, recipe: BrainRecipe,
             checkpoint: Checkpoint | None = None) -> TauResult:
    """One unit, start to finish (or from its checkpoint on), in whatever process runs it
    (`evaluation.run_tau` looked up at call time, so a test's stand-in reaches forked workers too)."""
    return asyncio.run(evaluation.run_tau(config, level, agents, tau, recipe.make, checkpoint=checkpoint))


def _failed(results: Results, level: str, agents: int, tau: float, exc: BaseException) -> None:
    """A unit that stopped (`UnitFailed`) is saved with what it played, to continue on resume;
    anything else (a worker that died) is not saved, so running the same command again retries it."""
    wrapped = getattr(exc, "cause", None)  # Ray hands a task's exception back inside a RayTaskError
    exc = wrapped if not isinstance(exc, UnitFailed) and isinstance(wrapped, UnitFailed) else exc
    if isinstance(exc, UnitFailed):
        results.fail(level, agents, tau, exc.error, exc.checkpoint)
        return
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
        gates = _Gates(RateGate)
        for unit in units:
            results, level, agents, tau = unit
            try:
                outcome = run_unit(results.config, level, agents, tau, gates.attach(recipe_for(results.config)),
                                   results.checkpoints.get((level, agents, tau)))
            except UnitFailed as exc:
                results.unit_failed(level, agents, tau, exc)
                if isinstance(exc.__cause__, asyncio.CancelledError):  # Ctrl-C: saved, and the sweep stops
                    raise KeyboardInterrupt from None
            except Exception as exc:  # one unit's failure must not lose the others' results
                log.exception("%s, %d agents, tau %s failed", level, agents, tau)
                _failed(results, level, agents, tau, exc)
            else:
                results.add(level, agents, outcome)
            if on_unit is not None:
                on_unit(unit)
        return
    order = sorted(range(len(units)), key=lambda i: unit_cost(units[i]))
    with _manager_gates() as gates, ProcessPoolExecutor(max_workers=workers, initializer=exit_with_parent,
                                                        initargs=(os.getpid(),)) as pool:
        pending: dict[Future[TauResult], int] = {}
        for i in order:
            results, level, agents, tau = units[i]
            pending[pool.submit(run_unit, results.config, level, agents, tau, gates.attach(recipe_for(results.config)),
                                results.checkpoints.get((level, agents, tau)))] = i

        def collect(done: set[Future[TauResult]]) -> None:
            for future in sorted(done, key=pending.__getitem__):  # several at once: in unit order
                unit = units[pending.pop(future)]
                results, level, agents, tau = unit
                if future.cancelled():
                    continue
                error = future.exception()
                if isinstance(error, UnitFailed):
                    results.unit_failed(level, agents, tau, error)
                elif error is not None:
                    log.error("%s, %d agents, tau %s failed in a worker: %r", level, agents, tau, error)
                    _failed(results, level, agents, tau, error)
                else:
                    results.add(level, agents, future.result())
                if on_unit is not None:
                    on_unit(unit)

        try:
            while pending:
                collect(wait(pending, return_when=FIRST_COMPLETED)[0])
        except KeyboardInterrupt:
            # Ctrl-C reached the workers too (one process group): each stops its unit and hands
            # back what it played; keep those before stopping, and start nothing new.
            for future in pending:
                future.cancel()
            collect(wait(pending, timeout=INTERRUPT_GRACE_S)[0])
            raise


class _RayGate:
    """A `Gate` backed by a Ray actor holding the sweep's `RateGate` (picklable into tasks)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def try_enter(self, tokens: int = 0) -> float:
        import ray

        return float(ray.get(self.actor.try_enter.remote(tokens)))

    def leave(self, tokens: int = 0) -> None:
        import ray

        ray.get(self.actor.leave.remote(tokens))


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
        gate_actor = ray.remote(RateGate)
        gates = _Gates(lambda limits: _RayGate(gate_actor.remote(limits)))
        pending: dict[Any, Unit] = {
            remote.remote(u[0].config, u[1], u[2], u[3], gates.attach(recipe_for(u[0].config)),  # type: ignore[call-arg]
                          u[0].checkpoints.get((u[1], u[2], u[3]))): u  # (Ray's stubs type 5 arguments at most)
            for u in sorted(units, key=unit_cost)}
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
