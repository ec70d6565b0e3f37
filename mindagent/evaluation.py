"""The paper's protocol: per (level, agents), five taus x three consecutive 60-step episodes.

Completion rate per tau uses the reference denominator (completed + failed + still active at
the end); CoS is the mean of the five rates. The paper's printed formula leaves the still-active
orders out; both are reported. Results are saved after every finished tau, so an interrupted
sweep resumes where it stopped.
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

from cuisineworld import PAPER_TAUS
from levels import level_names, load_level_data
from mindagent.brains import Brain
from mindagent.dispatcher import Dispatcher, run_episode
from mindagent.prompt.builder import PromptConfig
from mindagent.recording import Recorder
from mindagent.scoring import TauResult, cos, cos_paper
from mindagent.setup_run import GameSpec, make_session, pick_demo, recording_path

log = logging.getLogger(__name__)
PAPER_LEVELS = tuple(f"level_{i}" for i in (0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12))


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

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "prompt": self.prompt.to_dict()}


def parse_levels(text: str) -> list[str]:
    if text == "paper":
        return list(PAPER_LEVELS)
    if text == "all":
        return level_names()
    names = [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        load_level_data(name)  # fails early with a clear error
    return names


class Results:
    """The results file: config plus one entry per (level, agents) cell with its finished taus."""

    def __init__(self, path: Path | None, config: EvalConfig) -> None:
        self.path = path
        self.config = config
        self.done: dict[tuple[str, int], dict[float, TauResult]] = {}
        self.failures: list[str] = []  # units that raised; not saved, so a rerun retries them
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        saved = data.get("config", {})
        for key in ("model", "rules", "episodes", "seed", "steps", "prompt", "repair"):
            mine = self.config.to_dict()[key]
            if saved.get(key) != mine:
                raise ValueError(f"{path} was made with {key}={saved.get(key)!r}, not {mine!r}; use another --out")
        for cell in data.get("cells", []):
            taus = {float(t["tau"]): TauResult(float(t["tau"]), t["completed"], t["failed"], t["active"]) for t in cell["taus"]}
            self.done[(cell["level"], int(cell["agents"]))] = taus

    def has(self, level: str, agents: int, tau: float) -> bool:
        return tau in self.done.get((level, agents), {})

    def add(self, level: str, agents: int, result: TauResult) -> None:
        self.done.setdefault((level, agents), {})[result.tau] = result
        self.save()

    def cells(self) -> list[dict[str, object]]:
        out = []
        for level in self.config.levels:
            for agents in self.config.agents:
                taus = [self.done[(level, agents)][t] for t in sorted(self.done.get((level, agents), {}))]
                if not taus:
                    continue
                out.append({"level": level, "agents": agents, "cos": round(cos(taus), 6),
                            "cos_paper": round(cos_paper(taus), 6), "complete": len(taus) == len(self.config.taus),
                            "taus": [t.to_dict() for t in taus]})
        return out

    def save(self) -> None:
        if self.path is None:
            return
        payload = json.dumps({"config": self.config.to_dict(), "cells": self.cells()}, indent=1)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(payload, encoding="utf-8")
        os.replace(tmp, self.path)
        with self.path.with_suffix(".csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["level", "agents", "tau", "completed", "failed", "active", "rate", "cos", "cos_paper"])
            for cell in self.cells():
                for t in cell["taus"]:  # type: ignore[union-attr]
                    writer.writerow([cell["level"], cell["agents"], t["tau"], t["completed"], t["failed"], t["active"],
                                     t["rate"], cell["cos"], cell["cos_paper"]])


async def run_tau(config: EvalConfig, level: str, agents: int, tau: float, brain_factory: Callable[[], Brain],
                  on_episode: Callable[[], None] | None = None) -> TauResult:
    """Three consecutive episodes on one World: the order generator carries over between them."""
    spec = GameSpec(level, agents, tau, config.seed, config.rules, config.steps)
    session = make_session(spec)
    brain = brain_factory()
    dispatcher = Dispatcher(brain, config.prompt, pick_demo(session, config.prompt) if getattr(brain, "needs_prompt", False) else None,
                            repair=config.repair)
    completed = failed = active = 0
    try:
        for episode in range(1, config.episodes + 1):
            await session.reset()
            recorder = None
            if config.record_dir is not None:
                path = recording_path(Path(config.record_dir), spec, config.model, episode)
                path.unlink(missing_ok=True)
                recorder = Recorder(path)
                recorder.header(**spec.header(), model=config.model, prompt=config.prompt.to_dict(), repair=config.repair,
                                episode=episode, generator_state=session.world.episode_start_state)
            result = await run_episode(session, dispatcher, recorder)
            completed += result.completed
            failed += result.failed
            active += result.active
            if on_episode is not None:
                on_episode()
    finally:
        await brain.aclose()
    return TauResult(tau, completed, failed, active)


async def run_eval(config: EvalConfig, results: Results, brain_factory: Callable[[], Brain], concurrency: int = 1,
                   on_episode: Callable[[], None] | None = None) -> Results:
    units = [(lv, a, t) for lv in config.levels for a in config.agents for t in config.taus if not results.has(lv, a, t)]
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(level: str, agents: int, tau: float) -> None:
        async with gate:
            try:
                outcome = await run_tau(config, level, agents, tau, brain_factory, on_episode)
            except Exception as exc:  # noqa: BLE001 - one broken unit must not sink the sweep
                log.exception("%s, %d agents, tau %s failed", level, agents, tau)
                results.failures.append(f"{level}, {agents} agents, tau {tau}: {type(exc).__name__}: {exc}")
                return
            results.add(level, agents, outcome)

    await asyncio.gather(*(one(*u) for u in units))
    return results
