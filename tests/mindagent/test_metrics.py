"""Process metrics on episodes scripted by hand, whose values are worked out below.

The kitchen is level_0 (salmonMeatcake = salmon + flour in the blender, which cooks for two
steps; the first order arrives at step 0; at tau 2.0 it lives long enough for TOGETHER to serve it,
at tau 1.0 it fails at step 8). Each script is recorded through the real loop
(`run_episode` with a scripted built-in policy), then `episode_metrics` reads the file back.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import PolicyBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.evaluation.metrics import episode_metrics, gini, mean_metrics
from mindagent.recordings.recording import Recorder, RecordingError

IDLE = ["noop_agent0", "noop_agent1"]
#: Both agents fetch, both put, agent0 starts the blender, agent1 carries the dish out.
TOGETHER = [
    ["goto_agent0_storage0", "goto_agent1_storage0"],
    ["get_agent0_salmon_storage0", "get_agent1_flour_storage0"],
    ["goto_agent0_blender0", "goto_agent1_blender0"],
    ["put_agent0_blender0", "put_agent1_blender0"],
    ["activate_agent0_blender0", "noop_agent1"],
    IDLE,  # the blender cooks for two steps
    ["noop_agent0", "get_agent1_blender0"],
    ["noop_agent0", "goto_agent1_servingtable0"],
    ["noop_agent0", "put_agent1_servingtable0"],
]
#: agent0 does everything alone; agent1 idles.
ALONE = [
    ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_salmon_storage0", "noop_agent1"],
    ["goto_agent0_blender0", "noop_agent1"], ["put_agent0_blender0", "noop_agent1"],
    ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_flour_storage0", "noop_agent1"],
    ["goto_agent0_blender0", "noop_agent1"], ["put_agent0_blender0", "noop_agent1"],
]
#: The ingredients reach the blender but nobody starts it: the order fails at step 8.
UNFINISHED = TOGETHER[:4] + [IDLE] * 5


class Script:
    name = "script"

    def __init__(self, steps: list[list[str]]) -> None:
        self.steps = steps

    def reset(self, session: object) -> None:
        return None

    def act(self, session: object) -> list[str]:
        return list(self.steps[session.step_index])  # type: ignore[attr-defined]


def record(tmp_path: Path, steps: list[list[str]], name: str, tau: float = 2.0) -> Path:
    spec = domains.validate(GameSpec(domain="cuisineworld", level="level_0", agents=2, tau=tau, seed=0,
                                     steps=len(steps)))
    session = domains.make_session(spec)
    path = tmp_path / f"{name}.jsonl"

    async def go() -> None:
        await session.reset(seed=0)
        recorder = Recorder(path)
        recorder.header(**spec.header(), model="script", episode=1, **session.episode_header())
        await run_episode(session, Dispatcher(PolicyBrain(Script(steps)), PromptConfig(demo="none")), recorder)

    asyncio.run(go())
    return path


def test_gini_of_known_shares() -> None:
    assert gini([5, 5]) == 0.0 and gini([]) == 0.0 and gini([0, 0]) == 0.0
    assert gini([10, 0]) == pytest.approx(0.5)
    assert gini([5, 7]) == pytest.approx(1 / 12)


def test_two_agents_cooking_together(tmp_path: Path) -> None:
    m = episode_metrics(record(tmp_path, TOGETHER, "together"))
    assert (m.completed, m.failed, m.steps) == (1, 0, 9)
    a0, a1 = m.agents
    assert (a0.commands, a0.ok, a0.refused, a0.idle) == (5, 5, 0, 4)
    assert (a1.commands, a1.ok, a1.refused, a1.idle) == (7, 7, 0, 2)
    assert (a0.share, a1.share) == (pytest.approx(5 / 12), pytest.approx(7 / 12))
    assert m.balance_gini == pytest.approx(1 / 12, abs=1e-6)
    assert m.idle_per_step == pytest.approx(6 / 9)
    p = m.process
    # 12 productive commands for a dish whose recipe-tree minimum is 4 x 3 nodes = 12
    assert p["productive_commands"] == 12 and p["tes"] == pytest.approx(1.0)
    # agent0 cooked agent1's flour (1), agent1 took agent0's product out of the blender (2)
    assert p["handoffs"] == 2 and p["multi_agent_dishes"] == 1.0
    # stretches: steps 0-4 (2 puts / 9 commands), steps 5-6 (0 / 1), steps 7-8 (1 put / 2, capped at 1)
    assert p["ites"] == pytest.approx((8 / 9 + 0.0 + 1.0) / 3, abs=1e-6)
    assert p["pc"] == 1.0
    assert p["nodes_per_agent"] == [2, 1]  # agent0: salmon and the cooked dish; agent1: flour
    assert m.tokens_per_dish == 0.0  # a built-in policy spends no tokens


def test_one_agent_alone(tmp_path: Path) -> None:
    m = episode_metrics(record(tmp_path, ALONE, "alone"))
    assert [a.ok for a in m.agents] == [8, 0] and m.agents[1].idle == 8
    assert m.balance_gini == pytest.approx(0.5)
    p = m.process
    assert p["handoffs"] == 0 and p["nodes_per_agent"] == [2, 0]
    assert p["multi_agent_dishes"] is None and p["tes"] == 0.0  # nothing served: no reference work
    assert p["pc"] is None  # no order ended within 8 steps


def test_progress_of_a_failed_order(tmp_path: Path) -> None:
    m = episode_metrics(record(tmp_path, UNFINISHED, "unfinished", tau=1.0))
    assert (m.completed, m.failed) == (0, 1)
    # salmon and flour sit in the blender, the dish was never made: 2 of its 3 tree nodes
    assert m.process["pc"] == pytest.approx(2 / 3)
    assert m.tokens_per_dish is None and m.seconds_per_dish is None


def test_mean_over_episodes_and_the_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindagent.cli import app

    a, b = record(tmp_path, TOGETHER, "a"), record(tmp_path, ALONE, "b")
    mean = mean_metrics([episode_metrics(a), episode_metrics(b)])
    assert mean["episodes"] == 2 and mean["completed"] == 1
    assert mean["balance_gini"] == pytest.approx((1 / 12 + 0.5) / 2, abs=1e-6)
    assert mean["process"]["handoffs"] == 1.0
    result = CliRunner().invoke(app, ["metrics", str(a), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["process"]["handoffs"] == 2
    table = CliRunner().invoke(app, ["metrics", str(a)]).output
    assert "agent0" in table and "handoffs: 2" in table


def test_a_file_that_is_not_a_recording_is_one_error_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindagent.cli import app

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(RecordingError):
        episode_metrics(bad)
    result = CliRunner().invoke(app, ["metrics", str(bad)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_eval_results_carry_the_metrics_of_every_episode(tmp_path: Path) -> None:
    """A small planner sweep: each tau's episode metrics are what `mindagent metrics` reads from
    the same episodes' recordings, aggregated per tau and per cell, in the JSON and the CSV; a
    resumed sweep keeps them, and `compare` still reads the file."""
    from typer.testing import CliRunner

    from mindagent.cli import app
    from mindagent.evaluation.metrics import aggregate_metrics, eval_episode

    out, rec = tmp_path / "e.json", tmp_path / "rec"
    args = ["eval", "--levels", "level_3", "--agents", "2", "--taus", "1.0,2.0", "--episodes", "2", "--steps", "25",
            "--model", "planner", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--record", str(rec)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (cell,) = json.loads(out.read_text())["cells"]
    everything = []
    for tau in cell["taus"]:
        files = sorted(rec.glob(f"level_3_2a_tau{tau['tau']}_s0_e*_planner.jsonl"))
        assert len(files) == 2
        from_files = [eval_episode(episode_metrics(f)) for f in files]
        assert tau["episode_metrics"] == json.loads(json.dumps(from_files))
        assert tau["metrics"] == json.loads(json.dumps(aggregate_metrics(from_files)))
        assert tau["metrics"]["completed"] == tau["completed"] and tau["metrics"]["steps"] == 50
        everything += from_files
    metrics = cell["metrics"]
    assert metrics == json.loads(json.dumps(aggregate_metrics(everything)))
    assert metrics["episodes"] == 4 and metrics["completed"] == sum(t["completed"] for t in cell["taus"])
    assert [a["ok"] for a in metrics["agents"]] == [sum(e["agents"][k]["ok"] for e in everything) for k in (0, 1)]
    assert metrics["process"]["tes"] == pytest.approx(sum(e["process"]["tes"] for e in everything) / 4, abs=1e-6)
    rows = (out.with_suffix(".csv")).read_text().splitlines()
    header = rows[0].split(",")
    assert {"tes", "handoffs", "ok_per_agent", "cell_tes", "cell_balance_gini"} <= set(header)
    first = dict(zip(header, rows[1].split(","), strict=True))
    assert float(first["tes"]) == cell["taus"][0]["metrics"]["process"]["tes"]
    assert first["ok_per_agent"] == "/".join(str(a["ok"]) for a in cell["taus"][0]["metrics"]["agents"])
    assert float(first["cell_tes"]) == metrics["process"]["tes"]
    # resumed: nothing runs again and the metrics stay; compare reads the file as before
    before = out.read_bytes()
    again = CliRunner().invoke(app, args, catch_exceptions=False)
    assert again.exit_code == 0 and out.read_bytes() == before
    compared = CliRunner().invoke(app, ["compare", str(out), str(out)], catch_exceptions=False)
    assert compared.exit_code == 0, compared.output


def test_eval_measures_episodes_without_recording_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindagent.cli import app

    out = tmp_path / "e.json"
    result = CliRunner().invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--taus", "1.0", "--episodes", "1",
                                      "--steps", "12", "--model", "random", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (tau,) = json.loads(out.read_text())["cells"][0]["taus"]
    (episode,) = tau["episode_metrics"]
    assert episode["steps"] == 12 and len(episode["agents"]) == 2
    commands = sum(a["commands"] + a["idle"] for a in episode["agents"])
    assert commands == 24  # every agent gave a command or idled at every step
    assert not list(tmp_path.glob("**/*.jsonl"))


def test_aggregate_sums_counts_and_averages_figures_where_defined() -> None:
    from mindagent.evaluation.metrics import aggregate_metrics

    def episode(ok: tuple[int, int], tes: float | None, nodes: list[int], completed: int, tokens: int) -> dict:
        return {"steps": 10, "completed": completed, "failed": 1, "active": 0, "balance_gini": 0.1,
                "idle_per_step": 0.5, "prompt_tokens": tokens, "cached_tokens": 0, "output_tokens": 10,
                "agents": [{"name": f"agent{k}", "commands": n + 1, "ok": n, "refused": 1, "idle": 2}
                           for k, n in enumerate(ok)],
                "process": {"tes": tes, "handoffs": 2, "nodes_per_agent": nodes}}

    got = aggregate_metrics([episode((3, 1), 0.5, [2, 1], 1, 90), episode((5, 1), None, [1, 0], 0, 190)])
    assert got["episodes"] == 2 and got["completed"] == 1 and got["steps"] == 20
    assert got["tokens_per_dish"] == 300.0  # (90 + 190 prompt + 2 x 10 output) / 1 dish
    assert [(a["ok"], a["refused"], a["idle"], a["share"]) for a in got["agents"]] == [(8, 2, 4, 0.8), (2, 2, 4, 0.2)]
    assert got["process"] == {"handoffs": 2.0, "nodes_per_agent": [3, 1], "tes": 0.5}  # tes: the one defined
    assert got["balance_gini"] == 0.1 and got["idle_per_step"] == 0.5
    assert aggregate_metrics([]) == {}
    assert aggregate_metrics([episode((0, 0), None, [0, 0], 0, 0)])["process"]["tes"] is None
