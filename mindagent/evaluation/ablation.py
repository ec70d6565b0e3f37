"""The paper's ablation study (section 6, Table 2) as a study: a prompt configuration per row,
each over several order streams, with intervals and a paired test against the full prompt.

Each configuration differs from the full prompt in exactly one component: no inference
knowledge, a two-step demo, no demo, no environment feedback, no memory, or the demo made with
2, 3 or 4 agents. Every configuration is an ordinary `eval` sweep with its own results file in
the output folder (one per seed with ``seeds``, as `eval --seeds` keeps them, plus the summary),
so the study resumes configuration by configuration, tau by tau (a unit that failed mid-episode
from its last played step), and a folder made with other settings is refused, as `eval` refuses.
The table (`mindagent.evaluation.ablation_stats`) gives each row n, mean, t interval, the
difference from the full prompt and its Holm-corrected paired test, and what each cost in tokens.

No configuration is run twice (`plan_rows`). A configuration named twice is one row, and so is
one that is the full prompt in disguise: "demo with 2 agents" on 2-agent teams is the full
prompt's own demo, and in goal mode the head chef's prompt reads none of these components, so
every variant there is the full prompt. A variant that equals another only on some team sizes
shares that row's results for those cells and runs the rest itself.

Baselines (``mindagent ablate --baseline rule:first``) are other dispatchers run on the full
configuration's protocol, one results file each, printed as rows beside the model's: a rule
chooser in the model's seat, or a built-in policy, so the table shows what the model adds.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindagent.dispatch.brains import Brain
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.evaluation.ablation_stats import study_stats
from mindagent.evaluation.ablation_table import save_table
from mindagent.evaluation.readers import SUMMARY_SCHEMA, load_json
from mindagent.evaluation.seeds import SeedSweep
from mindagent.evaluation.sweep import EvalConfig, Results, run_eval

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ablation:
    name: str
    label: str
    change: dict[str, Any]


#: The rows of the table, the full prompt first (the paper's Table 2 plus its demo-size rows).
ABLATIONS = (
    Ablation("full", "full prompt", {}),
    Ablation("no-knowledge", "no inference knowledge", {"knowledge": False}),
    Ablation("few-step-demo", "few-step demo", {"demo": "few-step"}),
    Ablation("no-demo", "no demo", {"demo": "none"}),
    Ablation("no-feedback", "no feedback", {"feedback": False}),
    Ablation("memory-0", "memory 0", {"memory": 0}),
    Ablation("demo-2-agents", "demo with 2 agents", {"demo_agents": 2}),
    Ablation("demo-3-agents", "demo with 3 agents", {"demo_agents": 3}),
    Ablation("demo-4-agents", "demo with 4 agents", {"demo_agents": 4}),
)
BY_NAME = {a.name: a for a in ABLATIONS}
#: A brain for one run of the study (its config carries the model, the seed and the prompt).
BrainFor = Callable[[EvalConfig], Brain]


class AblationError(ValueError):
    """A study folder that cannot be resumed as asked (one line)."""


def effective_prompt(prompt: PromptConfig, agents: int, dispatch: DispatchSettings) -> PromptConfig | None:
    """The prompt a team of `agents` really gets, so equal ones are run once. In goal mode the head
    chef's prompt reads none of these components (None: every configuration is the same); a demo
    is shown only in step and plan mode (`Dispatcher.for_session`), and without a size it is the
    one made with the team's own."""
    if dispatch.mode == "goals":
        return None
    if prompt.demo == "none" or dispatch.team == "taskgraph":
        return dataclasses.replace(prompt, demo="none", demo_agents=None)
    return dataclasses.replace(prompt, demo_agents=prompt.demo_agents or agents)


@dataclass
class Row:
    """One row of the table: what it is, and which cells it runs itself or shares with an earlier row."""

    name: str
    label: str
    model: str
    prompt: PromptConfig
    baseline: bool = False
    #: other configurations that are this one on every team size (run once, shown once)
    same_as: list[str] = field(default_factory=list)
    owns: list[int] = field(default_factory=list)
    borrows: dict[int, str] = field(default_factory=dict)  # team size -> the row whose cells it shares


def baseline_name(model: str) -> str:
    return "baseline-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", model)


def plan_rows(base: EvalConfig, names: Sequence[str] | None = None, baselines: Sequence[str] = ()) -> list[Row]:
    """The rows to show, each configuration once: the full prompt always (it is what every row is
    tested against), then the chosen variants in the table's order, then each baseline once."""
    wanted = {"full", *(names if names is not None else BY_NAME)}
    rows: list[Row] = []
    signatures: list[tuple[PromptConfig | None, ...]] = []
    for ablation in (a for a in ABLATIONS if a.name in wanted):
        prompt = dataclasses.replace(base.prompt, **ablation.change)
        per_size = tuple(effective_prompt(prompt, n, base.dispatch) for n in base.agents)
        twin = next((r for r, sig in zip(rows, signatures, strict=True) if sig == per_size), None)
        if twin is not None:
            twin.same_as.append(ablation.name)
            continue
        row = Row(ablation.name, ablation.label, base.model, prompt)
        for i, size in enumerate(base.agents):
            owner = next((r for r, sig in zip(rows, signatures, strict=True) if sig[i] == per_size[i]), None)
            if owner is None:
                row.owns.append(size)
            else:
                row.borrows[size] = owner.borrows.get(size, owner.name)
        rows.append(row)
        signatures.append(per_size)
    for model in dict.fromkeys(baselines):
        rows.append(Row(baseline_name(model), f"baseline {model}", model, base.prompt, baseline=True,
                        owns=list(base.agents)))
    return rows


def ablation_config(base: EvalConfig, row: Row) -> EvalConfig:
    """`base` as the row runs it: its prompt (or model), only the team sizes it owns, and its own
    sub-folder of recordings (their file names say level, team and tau, not the prompt)."""
    record_dir = str(Path(base.record_dir) / row.name) if base.record_dir else None
    config = dataclasses.replace(base, prompt=row.prompt, agents=list(row.owns), record_dir=record_dir)
    return dataclasses.replace(config, model=row.model, generation={}) if row.baseline else config


def open_runs(config: EvalConfig, path: Path, seeds: Sequence[int] | None) -> tuple[dict[int, Results], SeedSweep | None]:
    """The row's results, one per seed: ``name.json`` for a one-seed study, as before, or the
    `eval --seeds` layout (``name.seedK.json`` and the summary ``name.json``). A folder made the
    other way is refused, never overwritten."""
    if path.exists():
        made = load_json(path)
        summary = isinstance(made, dict) and made.get("schema") == SUMMARY_SCHEMA
        if summary != (seeds is not None):
            raise AblationError(f"{path} was made {'with' if summary else 'without'} --seeds; refusing to mix one "
                                "seed with several in one folder: use another --out")
    if seeds is None:
        return {config.seed: Results(path, config)}, None
    sweep = SeedSweep(config, list(seeds), path)
    return sweep.runs, sweep


async def run_ablation(base: EvalConfig, out_dir: Path, brain_for: BrainFor, names: list[str] | None = None,
                       on_episode: Callable[[], None] | None = None, concurrency: int = 1,
                       baselines: Sequence[tuple[str, BrainFor]] = (), seeds: Sequence[int] | None = None,
                       alpha: float = 0.05, on_note: Callable[[str], None] | None = None,
                       ) -> tuple[list[dict[str, Any]], list[str]]:
    """Run (or resume) every row that runs cells of its own, seed by seed, `concurrency` cells at
    once; returns the table rows (baselines last) and the failed units. `on_note` hears of every
    unit continued from the step it stopped at."""
    factories = dict(baselines)
    rows = plan_rows(base, names, list(factories))
    runs: dict[str, dict[int, Results]] = {}
    failures: list[str] = []
    for row in rows:
        if not row.owns:
            continue
        runs[row.name], sweep = open_runs(ablation_config(base, row), out_dir / f"{row.name}.json", seeds)
        make = factories[row.model] if row.baseline else brain_for
        for results in runs[row.name].values():
            for (level, agents, tau), checkpoint in results.checkpoints.items():
                if on_note is not None:
                    on_note(f"continuing {row.name}, {level}, {agents} agents, tau {tau:g}, seed {results.config.seed} "
                            f"from episode {checkpoint.episode}, step {checkpoint.step}: {len(checkpoint.answers)} "
                            "answers replayed, not asked again")
            await run_eval(results.config, results, _bound(make, results.config), concurrency, on_episode=on_episode)
            seed = f"seed {results.config.seed}: " if sweep is not None else ""
            failures += [f"{row.name}: {seed}{line}" for line in results.failures]
        if sweep is not None:
            sweep.save()
    chosen = list(seeds) if seeds is not None else [base.seed]
    table = [row_figures(base, row, runs, chosen) for row in rows]
    stats = study_stats({r["name"]: r.pop("by_seed") for r in table}, alpha=alpha)
    for r in table:
        r.update(stats[r["name"]].to_dict() if r["name"] in stats else {"n": 0})
        r["cos"] = r.get("mean")
    save_table(table, base, chosen, alpha, out_dir)
    return table, failures


def _bound(make: BrainFor, config: EvalConfig) -> Callable[[], Brain]:
    """The brain factory of one run (its seed and model fixed)."""
    return lambda: make(config)


def row_figures(base: EvalConfig, row: Row, runs: dict[str, dict[int, Results]], seeds: list[int]) -> dict[str, Any]:
    """The row's CoS per seed (mean over its cells; a seed counts once every cell finished) and
    what its cells cost over all seeds: dishes, steps, tokens per step and per dish, model errors."""
    by_seed: dict[int, float] = {}
    taus: list[dict[str, Any]] = []
    for seed in seeds:
        values = []
        for size in base.agents:
            results = runs[row.borrows.get(size, row.name)][seed]
            cells = {(c["level"], c["agents"]): c for c in results.cells()}
            for level in base.levels:
                cell = cells.get((level, size))
                if cell is not None:
                    taus += cell["taus"]
                    if cell["complete"]:
                        values.append(float(cell["cos"]))
        if len(values) == len(base.levels) * len(base.agents):
            by_seed[seed] = sum(values) / len(values)
    steps = sum(int(t.get("steps", 0)) for t in taus)
    completed = sum(int(t["completed"]) for t in taus)
    tokens = sum(int(t.get("prompt_tokens", 0)) + int(t.get("output_tokens", 0)) for t in taus)
    return {
        "name": row.name, "label": row.label, "model": row.model, "prompt": row.prompt.to_dict(),
        "same_as": list(row.same_as), "shares": {str(n): other for n, other in row.borrows.items()},
        "by_seed": by_seed, "values": {str(s): round(v, 6) for s, v in by_seed.items()},
        "complete": len(by_seed) == len(seeds), "completed": completed, "steps": steps,
        "tokens_per_step": round(tokens / steps, 1) if steps else None,
        "tokens_per_dish": round(tokens / completed, 1) if completed else None,
        "cached_tokens": sum(int(t.get("cached_tokens", 0)) for t in taus),
        "model_errors": sum(int(t.get("model_errors", 0)) for t in taus),
    }
