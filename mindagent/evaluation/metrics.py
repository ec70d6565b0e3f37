"""Process metrics of a recorded episode: how the team worked, not only what it served.

The MindAgent paper scores the outcome (the completion rate). The seeds measure the process too:
Collab-Overcooked counts trajectory efficiency and collaboration, VillagerBench balance,
contribution per agent and token cost. `episode_metrics` reads one recording and gives the
domain-neutral part (per-agent commands, refusals and idling, a balance index, cost per dish);
the domain adds what needs its rules (`Domain.process_metrics`: for the kitchen, efficiency
against the recipe-tree minimum, hand-offs, progress completeness). docs/guide/metrics.md defines each
figure with its formula and source.

Example::

    m = episode_metrics("recordings/level_3_2a_tau1.0_s0_e1_planner.jsonl")
    m.agents[0].ok, m.balance_gini, m.process["tes"]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from mindagent.core import registry as domains
from mindagent.core.domain import DomainSession
from mindagent.core.spec import GameSpec
from mindagent.recordings.recording import RecordingError, read_recording


@dataclass
class AgentMetrics:
    """One agent over an episode. `commands` excludes idling; `share` is of the team's ok commands."""

    agent: int
    name: str
    commands: int = 0
    ok: int = 0
    refused: int = 0
    idle: int = 0
    share: float = 0.0


@dataclass
class EpisodeMetrics:
    domain: str
    level: str
    model: str
    steps: int
    completed: int
    failed: int
    active: int
    agents: list[AgentMetrics]
    #: Gini coefficient of the agents' ok commands: 0 = everyone did the same, (n-1)/n = one did all.
    balance_gini: float
    #: Mean number of agents idling per step.
    idle_per_step: float
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    model_seconds: float = 0.0
    #: Tokens (prompt + output) and model seconds per completed order; None when nothing was served.
    tokens_per_dish: float | None = None
    seconds_per_dish: float | None = None
    #: The domain's own process metrics (`Domain.process_metrics`); empty when it has none.
    process: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def gini(values: Sequence[float]) -> float:
    """Gini coefficient of non-negative values (0 for an empty or all-zero list).

    Example: ``gini([5, 5])`` → 0.0; ``gini([10, 0])`` → 0.5."""
    xs = sorted(float(v) for v in values)
    total = sum(xs)
    n = len(xs)
    if n == 0 or total <= 0:
        return 0.0
    weighted = sum((i + 1) * x for i, x in enumerate(xs))
    return (2 * weighted) / (n * total) - (n + 1) / n


Count = Annotated[StrictInt, Field(ge=0, le=2**53)]


class _Verdict(BaseModel):
    model_config = ConfigDict(extra="allow")
    command: StrictStr = ""
    ok: StrictBool = False


class _Usage(BaseModel):
    model_config = ConfigDict(extra="allow")
    prompt_tokens: Count = 0
    cached_tokens: Count = 0
    output_tokens: Count = 0


class _StepLine(BaseModel):
    """The fields of a ``step`` line these metrics read, with the types the recorder writes."""

    model_config = ConfigDict(extra="allow")
    step: Count
    verdicts: list[_Verdict] = Field(default_factory=list, max_length=10_000)
    usage: _Usage = Field(default_factory=_Usage)
    latency_s: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    completed: list[Any] = Field(default_factory=list)
    failed: list[Any] = Field(default_factory=list)
    orders: list[Any] = Field(default_factory=list)


class _EndLine(BaseModel):
    model_config = ConfigDict(extra="allow")
    completed: Count
    failed: Count
    active: Count


def check_lines(records: Sequence[dict[str, Any]]) -> None:
    """Refuse, in one line, a recording whose steps are out of order or whose fields have the
    wrong types: metrics of such a file would be silently wrong, not merely incomplete."""
    previous = -1
    for n, record in enumerate(records, 1):
        kind = record.get("type")
        try:
            if kind == "step":
                step = _StepLine.model_validate(record).step
                if step <= previous:
                    raise RecordingError(f"line {n}: step {step} after step {previous} (steps must increase)")
                previous = step
            elif kind == "end":
                _EndLine.model_validate(record)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise RecordingError(f"line {n} ({kind}): {where}: {first['msg']}") from None


def _session(header: dict[str, Any]) -> DomainSession:
    """A session of the recorded game, used only to read commands (never reset or stepped)."""
    try:
        return domains.make_session(GameSpec.from_header(header, domains.default_domain()))
    except ValueError as exc:
        raise RecordingError(f"cannot tell which game this recording is: {exc}") from None


def episode_metrics(path: str | Path) -> EpisodeMetrics:
    """The metrics of one recorded episode; `RecordingError` for a file that is not one."""
    return records_metrics(read_recording(path))


def records_metrics(records: Sequence[dict[str, Any]]) -> EpisodeMetrics:
    """`episode_metrics` of recording lines already in memory (`eval` keeps each episode's lines
    whether or not it writes them to a file); the first line is the header."""
    if not records or records[0].get("type") != "header":
        raise RecordingError("no header line")
    header = records[0]
    check_lines(records)
    session = _session(header)
    names = session.agent_names
    idle = {session.idle_command(a) for a in range(session.n_agents)}
    agents = [AgentMetrics(a, n) for a, n in enumerate(names)]
    steps = [r for r in records if r.get("type") == "step"]
    idle_total = 0
    tokens = [0, 0, 0]
    seconds = 0.0
    for record in steps:
        verdicts = record.get("verdicts") or []
        acted: set[int] = set()
        for verdict in verdicts:
            command = str(verdict.get("command", ""))
            agent = session.agent_of(command)
            if agent is None:
                continue
            acted.add(agent)
            if command in idle:
                agents[agent].idle += 1
                continue
            agents[agent].commands += 1
            if verdict.get("ok"):
                agents[agent].ok += 1
            else:
                agents[agent].refused += 1
        silent = [a for a in range(len(agents)) if a not in acted]  # no command at all: idle too
        for a in silent:
            agents[a].idle += 1
        idle_total += sum(1 for v in verdicts if str(v.get("command", "")) in idle) + len(silent)
        usage = record.get("usage") or {}
        tokens[0] += int(usage.get("prompt_tokens", 0))
        tokens[1] += int(usage.get("cached_tokens", 0))
        tokens[2] += int(usage.get("output_tokens", 0))
        seconds += float(record.get("latency_s", 0.0))
    team_ok = sum(row.ok for row in agents)
    for row in agents:
        row.share = round(row.ok / team_ok, 6) if team_ok else 0.0
    end = next((r for r in records if r.get("type") == "end"), None)
    if end is not None:
        completed, failed, active = int(end["completed"]), int(end["failed"]), int(end["active"])
    else:  # an episode cut short: count what the steps say
        completed = sum(len(r.get("completed") or []) for r in steps)
        failed = sum(len(r.get("failed") or []) for r in steps)
        active = len(steps[-1].get("orders") or []) if steps else 0
    domain = domains.get(session.domain)
    process = domain.process_metrics(header, steps)
    return EpisodeMetrics(
        domain=session.domain, level=session.name, model=str(header.get("model", "")), steps=len(steps),
        completed=completed, failed=failed, active=active, agents=agents,
        balance_gini=round(gini([a.ok for a in agents]), 6),
        idle_per_step=round(idle_total / len(steps), 6) if steps else 0.0,
        prompt_tokens=tokens[0], cached_tokens=tokens[1], output_tokens=tokens[2], model_seconds=round(seconds, 6),
        tokens_per_dish=round((tokens[0] + tokens[2]) / completed, 3) if completed else None,
        seconds_per_dish=round(seconds / completed, 6) if completed else None,
        process=process or {},
    )


#: What `eval` keeps of each episode's metrics: no model seconds (they differ run to run, and a
#: results file is the same bytes however often and on however many workers it is made).
EVAL_FIELDS = ("steps", "completed", "failed", "active", "balance_gini", "idle_per_step", "prompt_tokens",
               "cached_tokens", "output_tokens")


def eval_episode(m: EpisodeMetrics) -> dict[str, Any]:
    """One episode's metrics as `eval` stores them (`aggregate_metrics` reads them back)."""
    return {**{k: getattr(m, k) for k in EVAL_FIELDS},
            "agents": [{"name": a.name, "commands": a.commands, "ok": a.ok, "refused": a.refused, "idle": a.idle}
                       for a in m.agents],
            "process": dict(m.process)}


def aggregate_metrics(episodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Episodes' metrics (`eval_episode` dicts) as one entry of a results file: counts and tokens
    summed, per-agent counts summed (share: of the summed ok commands), balance and idling the
    mean over episodes, tokens per dish over all dishes, and each numeric process figure the
    mean over the episodes where it is defined (a list, like nodes per agent, summed)."""
    if not episodes:
        return {}
    n = len(episodes)
    out: dict[str, Any] = {"episodes": n}
    for key in ("steps", "completed", "failed", "active", "prompt_tokens", "cached_tokens", "output_tokens"):
        out[key] = sum(int(e.get(key) or 0) for e in episodes)
    for key in ("balance_gini", "idle_per_step"):
        out[key] = round(sum(float(e.get(key) or 0.0) for e in episodes) / n, 6)
    dishes = out["completed"]
    out["tokens_per_dish"] = round((out["prompt_tokens"] + out["output_tokens"]) / dishes, 3) if dishes else None
    agents: list[dict[str, Any]] = []
    for e in episodes:
        for k, row in enumerate(e.get("agents") or []):
            if k == len(agents):
                agents.append({"name": row.get("name", f"agent{k}"), "commands": 0, "ok": 0, "refused": 0, "idle": 0})
            for key in ("commands", "ok", "refused", "idle"):
                agents[k][key] += int(row.get(key) or 0)
    team_ok = sum(a["ok"] for a in agents)
    for a in agents:
        a["share"] = round(a["ok"] / team_ok, 6) if team_ok else 0.0
    out["agents"] = agents
    means: dict[str, list[float]] = {}
    lists: dict[str, list[float]] = {}
    seen: set[str] = set()
    for e in episodes:
        for key, value in (e.get("process") or {}).items():
            seen.add(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                means.setdefault(key, []).append(float(value))
            elif isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
                total = lists.setdefault(key, [0] * len(value))
                total.extend([0] * (len(value) - len(total)))
                for k, v in enumerate(value):
                    total[k] += v
    process: dict[str, Any] = dict.fromkeys(seen)  # a figure no episode defined stays None
    process.update({k: round(sum(v) / len(v), 6) for k, v in means.items()})
    process.update({k: [round(v, 6) for v in total] for k, total in lists.items()})
    out["process"] = dict(sorted(process.items()))
    return out


def mean_metrics(items: Sequence[EpisodeMetrics]) -> dict[str, Any]:
    """Episode metrics averaged over episodes (sums for counts, means for rates), for a table row."""
    if not items:
        return {}
    n = len(items)
    out: dict[str, Any] = {"episodes": n}
    for key in ("completed", "failed", "active", "steps", "prompt_tokens", "cached_tokens", "output_tokens"):
        out[key] = sum(getattr(m, key) for m in items)
    for key in ("balance_gini", "idle_per_step"):
        out[key] = round(sum(getattr(m, key) for m in items) / n, 6)
    dishes = out["completed"]
    out["tokens_per_dish"] = round((out["prompt_tokens"] + out["output_tokens"]) / dishes, 3) if dishes else None
    numeric: dict[str, list[float]] = {}
    for m in items:
        for key, value in m.process.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                numeric.setdefault(key, []).append(float(value))
    out["process"] = {k: round(sum(v) / len(v), 6) for k, v in sorted(numeric.items())}
    return out
