"""The paper's protocol: per (level, agents), five taus x three consecutive 60-step episodes.

Completion rate per tau uses the reference denominator (completed + failed + still active at
the end); CoS is the mean of the five rates. The paper's printed formula leaves the still-active
orders out; both are reported. Results are saved after every finished tau, so an interrupted
sweep resumes where it stopped. A unit whose model calls failed beyond the retries is a failed
unit (saved under ``failed`` with its error, and `eval` exits 1), never a tau of idle agents
scored as zeros. It keeps what it played (`mindagent.evaluation.checkpoint`: the answers given
before the failed call), so a resume continues it from the step it stopped at instead of paying
for the steps again, and the continued unit is the one an unbroken run would have played. A unit
in flight when the run is stopped (Ctrl-C) is saved the same way before the run ends.

Every episode is also measured (`mindagent.evaluation.metrics`, the definitions of `mindagent metrics`),
recorded to a file or not: each tau carries its episodes' metrics and their aggregate, and each
cell the aggregate over all its episodes, in the JSON and as columns of the CSV.
"""

from __future__ import annotations

import asyncio
import csv
import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mindagent.core import registry as domains
from mindagent.core.domain import RunProtocol
from mindagent.core.episode import ModelCallsFailed, run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, LLMBrain, PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.evaluation.checkpoint import Checkpoint, TapeClient, UnitFailed
from mindagent.evaluation.metrics import aggregate_metrics, eval_episode, records_metrics
from mindagent.evaluation.provenance import code_commit, code_version, run_provenance
from mindagent.evaluation.scoring import PAPER_TAUS, TauResult, cos, cos_paper
from mindagent.llm.redact import mask_known, redact_text
from mindagent.recordings.recording import Recorder, recording_path

log = logging.getLogger(__name__)

#: Settings that change results: a results file made with other values is not resumed.
RESUME_KEYS = ("domain", "model", "rules", "episodes", "seed", "steps", "taus", "prompt", "repair", "options",
               "dispatch", "generation", "version", "files")


#: Per-tau cost fields, in `TauResult` order, summed from each episode's `EpisodeResult`.
COST_KEYS = ("steps", "prompt_tokens", "cached_tokens", "output_tokens", "model_errors")


@dataclass
class EvalConfig:
    levels: list[str]
    agents: list[int]
    model: str
    taus: list[float] = field(default_factory=lambda: list(PAPER_TAUS))
    episodes: int = 3
    seed: int = 0
    steps: int = 60
    rules: str = "reference"
    prompt: PromptConfig = field(default_factory=PromptConfig)
    repair: int = 0
    record_dir: str | None = None
    domain: str = field(default_factory=domains.default_domain)
    options: dict[str, object] = field(default_factory=dict)
    dispatch: DispatchSettings = field(default_factory=DispatchSettings)
    #: temperature, max tokens, base URL (no credentials), model file and hash, threads
    generation: dict[str, object] = field(default_factory=dict)
    #: the mindagent version that made the results (a sweep never resumes on another)
    version: str = field(default_factory=code_version)
    #: sha256 of every custom level or option file, by the name given (`provenance.input_files`)
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "prompt": self.prompt.to_dict(), "dispatch": self.dispatch.to_dict()}

    def protocol(self) -> RunProtocol:
        """What decides the orders this sweep met (for bounds computed on the run that was made)."""
        return RunProtocol(self.rules, self.seed, self.episodes, self.steps, tuple(self.taus))

    def spec(self, level: str, agents: int, tau: float) -> GameSpec:
        """The game at its own length: `steps` cuts the run (`run_episode`), not the episode the
        prompt describes, so a short run is the start of a full one."""
        return GameSpec(self.domain, level, agents, tau, self.seed, self.rules, None, options=dict(self.options))


#: The process metrics written as CSV columns (per tau, then again for the whole cell as cell_*):
#: team figures, then each agent's ok / refused / idle commands joined by "/" (agent0/agent1/...).
METRIC_COLUMNS = ("episodes", "balance_gini", "idle_per_step", "tokens_per_dish", "tes", "ites", "handoffs",
                  "multi_agent_dishes", "pc", "ok_per_agent", "refused_per_agent", "idle_per_agent", "nodes_per_agent")


def tau_entry(t: TauResult) -> dict[str, object]:
    """A tau as the results file holds it: counts and rate, its episodes' aggregated metrics and
    each episode's own (read back on resume, so the cell's aggregate never needs a re-run)."""
    out = t.to_dict()
    if t.episodes:
        out["metrics"] = aggregate_metrics(t.episodes)
        out["episode_metrics"] = list(t.episodes)
    return out


def metric_row(metrics: dict[str, Any]) -> list[object]:
    """`METRIC_COLUMNS` of an aggregate (blank where there is none: a file from before metrics)."""
    if not metrics:
        return [""] * len(METRIC_COLUMNS)
    process = metrics.get("process") or {}
    agents = metrics.get("agents") or []
    row: list[object] = []
    for column in METRIC_COLUMNS:
        if column.endswith("_per_agent") and column != "nodes_per_agent":
            key = column.removesuffix("_per_agent")
            row.append("/".join(str(a.get(key, "")) for a in agents))
        elif column == "nodes_per_agent":
            nodes = process.get(column)
            row.append("/".join(str(n) for n in nodes) if isinstance(nodes, list) else "")
        else:
            value = metrics.get(column, process.get(column))
            row.append("" if value is None else value)
    return row


class Results:
    """The results file: config plus one entry per (level, agents) cell with its finished taus."""

    def __init__(self, path: Path | None, config: EvalConfig, *, unchecked: tuple[str, ...] = ()) -> None:
        """`unchecked` names resume keys not compared (a dry run has no generation settings yet:
        it reads the file only to say what a resume would still ask)."""
        self.path = path
        self._unchecked = unchecked
        self.config = config
        self.done: dict[tuple[str, int], dict[float, TauResult]] = {}
        self.failures: list[str] = []  # units that raised, as lines for the console
        #: (level, agents, tau) -> error: saved with the results, never resumed as done
        self.failed_units: dict[tuple[str, int, float], str] = {}
        #: what a failed unit played, continued from there on resume (`mindagent.evaluation.checkpoint`)
        self.checkpoints: dict[tuple[str, int, float], Checkpoint] = {}
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        saved = data.get("config", {})
        # files from before these keys
        defaults: dict[str, object] = {"domain": domains.default_domain(), "options": {}, "dispatch": {"mode": "step"},
                                       "generation": None, "files": {}}
        mine_all = self.config.to_dict()
        for key in RESUME_KEYS:
            if key in self._unchecked:
                continue
            mine = mine_all[key]
            if saved.get(key, defaults.get(key)) != mine:
                raise ValueError(f"{path} was made with {key}={saved.get(key)!r}, not {mine!r}; refusing to mix "
                                 "them in one file: use another --out")
        made_at = (data.get("provenance") or {}).get("commit")
        if made_at and made_at != code_commit():
            log.warning("%s was started at commit %s; resuming at %s", path, made_at, code_commit())
        for cell in data.get("cells", []):
            # a tau whose model calls failed (files from before failures were kept apart) is redone
            taus = {float(t["tau"]): TauResult(float(t["tau"]), t["completed"], t["failed"], t["active"],
                                               **{k: int(t.get(k, 0)) for k in COST_KEYS},
                                               episodes=tuple(t.get("episode_metrics") or ()),
                                               served_models=tuple(t.get("served_models") or ()),
                                               not_sent=tuple(t.get("not_sent") or ()),
                                               replayed_calls=int(t.get("replayed_calls", 0)))
                    for t in cell["taus"] if not int(t.get("model_errors", 0))}
            self.done[(cell["level"], int(cell["agents"]))] = taus
        for unit in data.get("failed") or []:  # kept until redone, with what they played
            try:
                where = (str(unit["level"]), int(unit["agents"]), float(unit["tau"]))
            except (KeyError, TypeError, ValueError):
                log.warning("%s: a failed unit without level, agents and tau (%.80r) is left out", path, unit)
                continue
            if self.has(*where):
                continue
            self.failed_units[where] = str(unit.get("error", ""))
            checkpoint = Checkpoint.read(unit.get("checkpoint"), f"{path}: {where[0]}, {where[1]} agents, tau {where[2]}")
            if checkpoint is not None:
                self.checkpoints[where] = checkpoint

    def has(self, level: str, agents: int, tau: float) -> bool:
        return tau in self.done.get((level, agents), {})

    def add(self, level: str, agents: int, result: TauResult) -> None:
        self.done.setdefault((level, agents), {})[result.tau] = result
        self.failed_units.pop((level, agents, result.tau), None)
        self.checkpoints.pop((level, agents, result.tau), None)
        self.save()

    def fail(self, level: str, agents: int, tau: float, error: str, checkpoint: Checkpoint | None = None) -> None:
        """Record a unit that could not be played (kept in the file with its error and what it
        played; on resume it continues from there, or starts over without a checkpoint)."""
        where = f" (stopped at episode {checkpoint.episode}, step {checkpoint.step})" if checkpoint else ""
        self.failures.append(f"{level}, {agents} agents, tau {tau}: {error}{where}")
        self.failed_units[(level, agents, tau)] = error
        if checkpoint is not None:
            self.checkpoints[(level, agents, tau)] = checkpoint
        else:
            self.checkpoints.pop((level, agents, tau), None)
        self.save()

    def unit_failed(self, level: str, agents: int, tau: float, exc: UnitFailed) -> None:
        """`fail` with what `run_tau` raised, logged by kind (an outage, or a bug with its traceback)."""
        cause = exc.__cause__
        if isinstance(cause, ModelCallsFailed):
            log.warning("%s, %d agents, tau %s: model calls failed: %s", level, agents, tau, cause)
        elif isinstance(cause, asyncio.CancelledError):
            log.warning("%s, %d agents, tau %s: interrupted; what it played is kept", level, agents, tau)
        else:
            log.error("%s, %d agents, tau %s failed", level, agents, tau, exc_info=cause or exc)
        self.fail(level, agents, tau, exc.error, exc.checkpoint)

    def cells(self) -> list[dict[str, Any]]:
        out = []
        for level in self.config.levels:
            for agents in self.config.agents:
                taus = [self.done[(level, agents)][t] for t in sorted(self.done.get((level, agents), {}))]
                if not taus:
                    continue
                out.append({"level": level, "agents": agents, "cos": round(cos(taus), 6),
                            "cos_paper": round(cos_paper(taus), 6), "complete": len(taus) == len(self.config.taus),
                            "metrics": aggregate_metrics([e for t in taus for e in t.episodes]),
                            "taus": [tau_entry(t) for t in taus]})
        return out

    def provenance(self) -> dict[str, object]:
        """Code version and commit, the models that served the finished taus and the settings sent."""
        taus = [t for cell in self.done.values() for t in cell.values()]
        return run_provenance(self.config.generation, (m for t in taus for m in t.served_models),
                              (k for t in taus for k in t.not_sent))

    def save(self) -> None:
        if self.path is None:
            return
        failed = [{"level": lv, "agents": a, "tau": t, "error": e,
                   **({"checkpoint": self.checkpoints[(lv, a, t)].to_dict()} if (lv, a, t) in self.checkpoints else {})}
                  for (lv, a, t), e in self.failed_units.items()]
        payload = mask_known(json.dumps({"config": self.config.to_dict(), "provenance": self.provenance(),
                                         "cells": self.cells(), "failed": failed}, indent=1))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(payload, encoding="utf-8")
        os.replace(tmp, self.path)
        with self.path.with_suffix(".csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["level", "agents", "tau", "completed", "failed", "active", "rate", "cos", "cos_paper",
                             *METRIC_COLUMNS, *(f"cell_{c}" for c in METRIC_COLUMNS)])
            for cell in self.cells():
                for t in cell["taus"]:
                    writer.writerow([cell["level"], cell["agents"], t["tau"], t["completed"], t["failed"], t["active"],
                                     t["rate"], cell["cos"], cell["cos_paper"], *metric_row(t.get("metrics", {})),
                                     *metric_row(cell["metrics"])])


async def run_tau(config: EvalConfig, level: str, agents: int, tau: float, brain_factory: Callable[[], Brain],
                  on_episode: Callable[[], None] | None = None, checkpoint: Checkpoint | None = None) -> TauResult:
    """Consecutive episodes on one session: the order stream carries over between them.

    A language model answers through a `TapeClient`, fed with `checkpoint` when the unit failed
    before: the answers it gave then are replayed, so the unit continues from where it stopped.
    A failure raises `UnitFailed` with what was played this time (the tape up to the first
    failed call, and where it stopped)."""
    spec = domains.validate(config.spec(level, agents, tau))
    session = domains.make_session(spec)
    brain = brain_factory()
    tape = None
    if isinstance(brain, LLMBrain):
        tape = TapeClient(brain.client, checkpoint.answers if checkpoint is not None else ())
        brain.client = tape
    dispatcher = Dispatcher.for_session(session, brain, config.prompt, repair=config.repair, dispatch=config.dispatch,
                                        seed=config.seed)
    completed = failed = active = 0
    cost = dict.fromkeys(COST_KEYS, 0)
    measured: list[dict[str, Any]] = []
    where = [1, 0]  # the episode being played and the first step of it not yet finished

    def played(t: int, _: object) -> None:
        where[1] = t + 1

    try:
        for episode in range(1, config.episodes + 1):
            where[:] = [episode, 0]
            await session.reset(seed=config.seed if episode == 1 else None)
            if isinstance(brain, PolicyBrain):  # a built-in policy starts each episode fresh
                brain.reset(session)
            path = None
            if config.record_dir is not None:
                path = recording_path(Path(config.record_dir), spec, config.model, episode)
                path.unlink(missing_ok=True)
            recorder = Recorder(path, keep=True)  # kept in memory for the metrics, written when asked
            recorder.header(**spec.header(), model=config.model, prompt=config.prompt.to_dict(), repair=config.repair,
                            episode=episode, dispatch=config.dispatch.to_dict(), generation=config.generation,
                            run_steps=config.steps, mindagent_version=config.version, commit=code_commit(),
                            files=config.files, **session.episode_header())
            result = await run_episode(session, dispatcher, recorder, on_step=played, steps=config.steps,
                                       stop_on_model_error=True)
            completed += result.completed
            failed += result.failed
            active += result.active
            for key in COST_KEYS:
                cost[key] += int(getattr(result, key))
            measured.append(eval_episode(records_metrics(recorder.records or [])))
            if on_episode is not None:
                on_episode()
    except (Exception, asyncio.CancelledError) as exc:  # a stopped run (Ctrl-C) keeps what it played too
        error = (f"model call failed at {exc}" if isinstance(exc, ModelCallsFailed)
                 else "interrupted: the run was stopped" if isinstance(exc, asyncio.CancelledError)
                 else f"{type(exc).__name__}: {redact_text(str(exc))}")
        kept = Checkpoint(episode=where[0], step=where[1], answers=tuple(tape.kept)) if tape and tape.kept else None
        raise UnitFailed(error, kept) from exc
    finally:
        await brain.aclose()
        await session.aclose()
    if tape is not None and tape.unused:
        log.warning("%s, %d agents, tau %s: %d answers of its checkpoint matched no prompt of this run (the prompts "
                    "changed since); those steps were asked again", level, agents, tau, tape.unused)
    served, not_sent = (tuple(brain.served), tuple(brain.not_sent)) if isinstance(brain, LLMBrain) else ((), ())
    return TauResult(tau, completed, failed, active, **cost, episodes=tuple(measured), served_models=served,
                     not_sent=not_sent, replayed_calls=tape.replayed if tape is not None else 0)


async def run_eval(config: EvalConfig, results: Results, brain_factory: Callable[[], Brain], concurrency: int = 1,
                   on_episode: Callable[[], None] | None = None) -> Results:
    units = [(lv, a, t) for lv in config.levels for a in config.agents for t in config.taus if not results.has(lv, a, t)]
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(level: str, agents: int, tau: float) -> None:
        async with gate:
            try:
                outcome = await run_tau(config, level, agents, tau, brain_factory, on_episode,
                                        results.checkpoints.get((level, agents, tau)))
            except UnitFailed as exc:
                results.unit_failed(level, agents, tau, exc)
                if isinstance(exc.__cause__, asyncio.CancelledError):
                    raise exc.__cause__ from None  # saved; the run still stops
                return
            except Exception as exc:  # the unit could not start (a level the domain refuses)
                log.exception("%s, %d agents, tau %s failed", level, agents, tau)
                results.fail(level, agents, tau, f"{type(exc).__name__}: {redact_text(str(exc))}")
                return
            results.add(level, agents, outcome)

    await asyncio.gather(*(one(*u) for u in units))
    return results
