"""The protocol on several order streams: one results file per seed, and a summary with intervals.

`mindagent eval --seeds 0-9 --out results/planner.json` keeps each seed's run in its own ordinary
results file (``planner.seed3.json``: resumable, comparable, plottable like any other) and writes
``planner.json`` as the summary: per cell n, the mean CoS over the seeds, their spread (sd), the 95 %
t interval of the mean (`mindagent.evaluation.inference`: it covers at five seeds), the percentile
bootstrap interval as before (`interval`, kept so published summaries reproduce) and the per-seed
values. `per_seed_values` reads either kind of file, so
`mindagent compare` pairs a summary with a summary or a single run with a single run.

Example::

    sweep = SeedSweep(config, [0, 1, 2], Path("results/planner.json"))
    sweep.cells()[0]["mean"], sweep.cells()[0]["interval"]
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from mindagent.evaluation.inference import RATE, t_interval
from mindagent.evaluation.provenance import run_provenance
from mindagent.evaluation.readers import SUMMARY_SCHEMA, ResultsError, SeedSummary, read_results
from mindagent.evaluation.stats import bootstrap_interval, mean
from mindagent.evaluation.sweep import EvalConfig, Results

CellKey = tuple[str, int]


def seed_path(out: Path, seed: int) -> Path:
    """Where one seed's results go: ``planner.json`` -> ``planner.seed3.json``."""
    return out.with_name(f"{out.stem}.seed{seed}{out.suffix or '.json'}")


class SeedSweep:
    """One `Results` per seed (same configuration otherwise) and their summary."""

    def __init__(self, config: EvalConfig, seeds: list[int], out: Path | None) -> None:
        self.config = config
        self.seeds = list(seeds)
        self.out = out
        self.runs: dict[int, Results] = {
            s: Results(seed_path(out, s) if out is not None else None, dataclasses.replace(config, seed=s))
            for s in self.seeds}

    @property
    def failures(self) -> list[str]:
        return [f"seed {s}: {line}" for s, r in self.runs.items() for line in r.failures]

    def cells(self) -> list[dict[str, Any]]:
        """Cells every seed finished, in configuration order, with n, mean, sd, intervals and values."""
        by_seed = {s: {(c["level"], c["agents"]): c for c in r.cells() if c["complete"]} for s, r in self.runs.items()}
        out = []
        for level in self.config.levels:
            for agents in self.config.agents:
                key = (level, agents)
                if not all(key in cells for cells in by_seed.values()):
                    continue
                values = [float(by_seed[s][key]["cos"]) for s in self.seeds]
                lo, hi = bootstrap_interval(values)
                t = t_interval(values, bounds=RATE)
                out.append({"level": level, "agents": agents, "n": t.n, "mean": round(mean(values), 6),
                            "sd": round(t.sd, 6), "t_interval": [round(t.lo, 6), round(t.hi, 6)],
                            "interval": [round(lo, 6), round(hi, 6)],
                            "values": {str(s): v for s, v in zip(self.seeds, values, strict=True)}})
        return out

    def save(self) -> None:
        if self.out is None:
            return
        config = {k: v for k, v in self.config.to_dict().items() if k != "seed"}
        provenances = [r.provenance() for r in self.runs.values()]
        provenance = run_provenance(self.config.generation, (m for p in provenances for m in _names(p, "served_models")),
                                    (k for p in provenances for k in _names(p, "not_sent")))
        payload = {"schema": SUMMARY_SCHEMA, "config": config, "provenance": provenance, "seeds": self.seeds,
                   "files": {str(s): seed_path(self.out, s).name for s in self.seeds}, "cells": self.cells()}
        self.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.out.with_suffix(self.out.suffix + ".tmp")
        tmp.write_text(json.dumps(payload, indent=1), encoding="utf-8")
        os.replace(tmp, self.out)


def _names(provenance: dict[str, object], key: str) -> list[str]:
    value = provenance.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def per_seed_values(path: Path) -> tuple[dict[str, Any], dict[CellKey, dict[int, float]]]:
    """(config, {(level, agents): {seed: CoS}}) of a seed summary or of one ordinary results file,
    read through the bounded reader (`ResultsError`, one line, for anything else)."""
    results = read_results(path)
    out: dict[CellKey, dict[int, float]] = {}
    if isinstance(results, SeedSummary):
        for summary in results.cells:
            out[(summary.level, summary.agents)] = {int(s): v for s, v in summary.values.items()}
        return results.config, out
    seed = results.config.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ResultsError(f"{path}: config.seed: not a whole number ({seed!r:.40})")
    for cell in results.cells:
        if cell.complete:
            out[(cell.level, cell.agents)] = {seed: cell.cos}
    return results.config, out
