"""`mindagent ablate` as a study: seeds, intervals, paired tests against the full prompt with Holm's
correction, `--record`, resume, and no configuration run or shown twice. A loopback stub plays
the model; the planner and rule baselines need none."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stub_llm import RateLimitFrom, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.evaluation.ablation import ABLATIONS, effective_prompt, plan_rows
from mindagent.evaluation.ablation_stats import study_stats
from mindagent.evaluation.inference import holm
from mindagent.evaluation.sweep import EvalConfig

runner = CliRunner()


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def base(agents: list[int], mode: str = "step") -> EvalConfig:
    return EvalConfig(levels=["level_0"], agents=agents, model="openai:x", taus=[1.0], episodes=1, steps=3,
                      dispatch=DispatchSettings(mode))


def test_a_configuration_is_one_row_however_it_is_named() -> None:
    rows = plan_rows(base([2]), ["full", "no-demo", "no-demo", "demo-2-agents"], ["rule:first", "rule:first"])
    assert [r.name for r in rows] == ["full", "no-demo", "baseline-rule-first"]
    assert rows[0].same_as == ["demo-2-agents"] and rows[1].owns == [2] and rows[2].owns == [2]


def test_a_variant_equal_to_another_on_some_team_sizes_shares_those_cells() -> None:
    rows = {r.name: r for r in plan_rows(base([2, 3]))}
    assert len(rows) == len(ABLATIONS)  # each differs from the full prompt on some team size
    assert rows["demo-2-agents"].borrows == {2: "full"} and rows["demo-2-agents"].owns == [3]
    assert rows["demo-3-agents"].borrows == {3: "full"} and rows["demo-3-agents"].owns == [2]
    assert rows["demo-4-agents"].owns == [2, 3] and rows["no-knowledge"].owns == [2, 3]


def test_in_goal_mode_every_variant_is_the_full_prompt() -> None:
    """The head chef's goal prompt reads none of the components: one row, run once."""
    rows = plan_rows(base([2, 3], "goals"), None, ["planner"])
    assert [r.name for r in rows] == ["full", "baseline-planner"]
    assert rows[0].same_as == [a.name for a in ABLATIONS[1:]]


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.sampled_from([a.name for a in ABLATIONS]), max_size=12),
       agents=st.lists(st.integers(1, 4), min_size=1, max_size=3, unique=True),
       mode=st.sampled_from(["step", "goals", "plan"]),
       baselines=st.lists(st.sampled_from(["planner", "rule:first", "random"]), max_size=4))
def test_no_configuration_is_run_twice_and_every_cell_has_one_runner(names: list[str], agents: list[int], mode: str,
                                                                      baselines: list[str]) -> None:
    config = base(agents, mode)
    rows = plan_rows(config, names, baselines)
    named = [r.name for r in rows]
    assert len(named) == len(set(named)) and named[0] == "full"
    shown = [n for r in rows for n in (r.name, *r.same_as) if not r.baseline]
    assert sorted(shown) == sorted({"full", *names})  # every configuration asked for, each once
    by_name = {r.name: r for r in rows}
    runners: dict[tuple[int, object], str] = {}
    for row in (r for r in rows if not r.baseline):
        signature = tuple(effective_prompt(row.prompt, n, config.dispatch) for n in agents)
        assert all(signature != tuple(effective_prompt(o.prompt, n, config.dispatch) for n in agents)
                   for o in rows if o is not row and not o.baseline)
        assert sorted([*row.owns, *row.borrows]) == sorted(agents)
        for size in agents:
            owner = by_name[row.borrows.get(size, row.name)]
            assert size in owner.owns  # a shared cell is run by a row that runs it itself
            key = (size, effective_prompt(row.prompt, size, config.dispatch))
            assert runners.setdefault(key, owner.name) == owner.name  # one runner per distinct cell


def test_each_row_is_tested_against_full_with_holm_over_the_rows() -> None:
    values = {"full": {0: 0.70, 1: 0.72, 2: 0.69, 3: 0.71, 4: 0.73},
              "no-demo": {0: 0.50, 1: 0.55, 2: 0.48, 3: 0.52, 4: 0.51},
              "memory-0": {0: 0.71, 1: 0.71, 2: 0.70, 3: 0.70, 4: 0.74},
              "no-feedback": {0: 0.60}}
    stats = study_stats(values)
    assert stats["full"].delta is None and stats["full"].n == 5 and stats["full"].measured
    lo, hi = stats["full"].interval
    assert lo < 0.71 < hi
    ps = [stats[n].p for n in ("no-demo", "memory-0", "no-feedback")]
    assert [stats[n].p_holm for n in ("no-demo", "memory-0", "no-feedback")] == holm(ps)
    assert stats["no-demo"].significant and stats["no-demo"].delta == pytest.approx(-0.198)
    assert not stats["memory-0"].significant
    assert stats["no-feedback"].paired == 1 and stats["no-feedback"].note == "one seed: untestable"
    assert not stats["no-feedback"].significant


def last_goal(body: bytes) -> str:
    """The head chef picks the last dish offered (rule:first, a baseline below, picks the first)."""
    offered = re.search(r"Choose from: (.*)", json.loads(body)["messages"][-1]["content"])
    return f"goal: {offered[1].split(', ')[-1].strip() if offered else ''}"


def study(url: str, out: Path, *extra: str):
    return runner.invoke(app, ["ablate", "--model", "openai:stub", "--base-url", url, "--levels", "level_2",
                               "--agents", "2", "--taus", "1.0,3.0", "--episodes", "1", "--steps", "30",
                               "--out", str(out), *extra])


def test_ablate_seeds_prints_intervals_and_tests_with_no_duplicate_rows(tmp_path: Path) -> None:
    out, record = tmp_path / "study", tmp_path / "rec"
    args = ["--seeds", "0-4", "--dispatch", "goals", "--only", "full,no-demo,full", "--baseline", "planner",
            "--baseline", "rule:first", "--baseline", "planner", "--record", str(record)]
    model = RateLimitFrom(last_goal)
    with stub_server(model) as stub:
        result = study(stub.url, out, *args)
        assert result.exit_code == 0, result.output
        asked = model.answered
        again = study(stub.url, out, *args)  # resumed: every unit is in the folder already
        assert again.exit_code == 0 and model.answered == asked
        refused = study(stub.url, out, *args[2:])  # one seed into a folder of several
    assert refused.exit_code == 2 and "made with --seeds" in refused.output
    table = json.loads((out / "ablation.json").read_text())
    names = [r["name"] for r in table["rows"]]
    assert names == ["full", "baseline-planner", "baseline-rule-first"]  # one row per configuration
    assert table["rows"][0]["same_as"] == ["no-demo"] and table["seeds"] == [0, 1, 2, 3, 4]
    by_name = {r["name"]: r for r in table["rows"]}
    rule = by_name["baseline-rule-first"]  # the first dish, where the model's head chef takes the last
    assert rule["n"] == 5 and rule["paired"] == 5 and rule["measured"] and rule["note"] == ""
    assert rule["interval"][0] < rule["cos"] < rule["interval"][1] and rule["delta"] != 0
    lo, hi = rule["delta_interval"]
    assert lo < rule["delta"] < hi and rule["p_holm"] >= rule["p"]
    assert rule["significant"] == (rule["p_holm"] < 0.05)
    assert by_name["full"]["delta"] is None and by_name["full"]["n"] == 5
    for text in ("full prompt (= no-demo)", "baseline planner", "95 % interval", "p (Holm)",
                 "of 2 configurations differ significantly from the full prompt", "Holm-corrected over 2 rows"):
        assert text in result.output
    assert result.output.count("baseline planner") == 1
    assert sorted(p.name for p in (out).glob("full.seed*.json")) == [f"full.seed{s}.json" for s in range(5)]
    assert len(list((record / "full").glob("*.jsonl"))) == 10 and not (out / "no-demo.json").exists()


def test_ablate_runs_every_prompt_variant_over_seeds(tmp_path: Path) -> None:
    """Step mode with all the variants: eight rows (the 2-agent demo is the full prompt's), each
    over three seeds, each tested; a unit that fails at a step continues from there on resume."""
    out = tmp_path / "study"
    with stub_server(RateLimitFrom(lambda body: "goto_agent0_storage0\ngoto_agent1_blender0")) as stub:
        result = runner.invoke(app, ["ablate", "--model", "openai:stub", "--base-url", stub.url, "--levels", "level_0",
                                     "--agents", "2", "--taus", "1.0", "--episodes", "1", "--steps", "3",
                                     "--seeds", "0-2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "ablation.json").read_text())["rows"]
    assert [r["name"] for r in rows] == [a.name for a in ABLATIONS if a.name != "demo-2-agents"]
    assert all(r["n"] == 3 for r in rows) and all(r["paired"] == 3 for r in rows[1:])
    assert "of 7 configurations differ significantly" in result.output


def test_a_study_unit_that_failed_mid_episode_continues_from_its_step(tmp_path: Path) -> None:
    out = tmp_path / "study"
    args = ["ablate", "--model", "openai:stub", "--levels", "level_0", "--agents", "2", "--taus", "1.0",
            "--episodes", "1", "--steps", "10", "--seeds", "0-1", "--only", "full", "--out", str(out),
            "--retries", "1", "--max-retry-after", "0.01"]
    walk = "goto_agent0_storage0\ngoto_agent1_blender0"
    outage, rest = RateLimitFrom(lambda body: walk, healthy=15), RateLimitFrom(lambda body: walk)
    with stub_server(outage) as stub:
        broken = runner.invoke(app, [*args, "--base-url", stub.url])
        stub.answer = rest
        resumed = runner.invoke(app, [*args, "--base-url", stub.url])
    assert broken.exit_code == 1 and "full: seed 1: level_0, 2 agents, tau 1.0" in broken.output
    assert resumed.exit_code == 0, resumed.output
    assert "continuing full, level_0, 2 agents, tau 1, seed 1 from episode 1, step 5" in resumed.output
    assert rest.answered == 5  # seed 0 was done; seed 1 from its step 5 on
    row = json.loads((out / "ablation.json").read_text())["rows"][0]
    assert row["n"] == 2 and row["complete"]


def test_a_row_near_zero_keeps_its_mean_and_no_negative_interval() -> None:
    stats = study_stats({"full": {0: 0.70, 1: 0.72}, "no-demo": {0: 0.0, 1: 0.2}})
    row = stats["no-demo"]
    assert row.mean == pytest.approx(0.1)  # the mean of the seeds, not the middle of a cut interval
    assert row.interval == (0.0, 1.0) and row.measured
