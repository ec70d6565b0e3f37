"""`mindagent ablate` end to end, offline: a scripted model plays every configuration once with
recordings on, the recordings become one replay cassette, and the command re-runs the whole
study through the `replay:` backend and prints the same table (and saves its plot)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from fakes import ScriptedModel
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.dispatch.brains import LLMBrain
from mindagent.evaluation.ablation import ABLATIONS, run_ablation
from mindagent.evaluation.sweep import EvalConfig

ANSWER = "goto_agent0_storage0\nget_agent1_salmon_storage0"


def test_ablate_table_plot_and_resume_through_replay(tmp_path: Path) -> None:
    base = EvalConfig(levels=["level_0"], agents=[2], model="scripted", taus=[1.0], episodes=1, steps=4,
                      record_dir=str(tmp_path / "rec"))
    rows, failures = asyncio.run(run_ablation(base, tmp_path / "made", lambda _: LLMBrain(ScriptedModel([ANSWER]))))
    # the demo made with 2 agents is the full prompt's own demo on 2-agent teams: one row, run once
    assert not failures and [r["name"] for r in rows] == [a.name for a in ABLATIONS if a.name != "demo-2-agents"]
    by_name = {r["name"]: r for r in rows}
    assert by_name["full"]["same_as"] == ["demo-2-agents"] and not (tmp_path / "made" / "demo-2-agents.json").exists()
    # a smaller prompt costs fewer tokens per step: the table measures what each component costs
    assert by_name["no-demo"]["tokens_per_step"] < by_name["full"]["tokens_per_step"]
    assert by_name["few-step-demo"]["tokens_per_step"] < by_name["full"]["tokens_per_step"]
    assert by_name["full"]["delta"] is None and by_name["no-demo"]["delta"] is not None
    cassette = tmp_path / "all.jsonl"
    cassette.write_text("".join(p.read_text() for p in sorted((tmp_path / "rec").glob("*/*.jsonl"))))

    args = ["ablate", "--model", f"replay:{cassette}", "--levels", "level_0", "--agents", "2", "--taus", "1.0",
            "--episodes", "1", "--steps", "4", "--out", str(tmp_path / "study")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for label in ("full prompt (= demo-2-agents)", "no inference knowledge", "few-step demo", "no demo",
                  "no feedback", "memory 0", "demo with 3 agents", "vs full", "tokens/step", "one seed: no interval"):
        assert label in result.output
    table = json.loads((tmp_path / "study" / "ablation.json").read_text())
    assert table["schema"] == "mindagent/ablation@2"
    assert [r["name"] for r in table["rows"]] == [a.name for a in ABLATIONS if a.name != "demo-2-agents"]
    assert all(r["model_errors"] == 0 and r["steps"] == 4 for r in table["rows"])  # every prompt was in the cassette
    assert (tmp_path / "study" / "ablation.png").stat().st_size > 1000
    before = (tmp_path / "study" / "full.json").read_text()
    again = CliRunner().invoke(app, args)  # resumed: nothing re-run, same files
    assert again.exit_code == 0 and (tmp_path / "study" / "full.json").read_text() == before
    other = CliRunner().invoke(app, [*args[:-2], "--temperature", "0.7", "--out", str(tmp_path / "study")])
    assert other.exit_code != 0 and "temperature" in other.output  # other settings: refused, not mixed in


def test_ablate_prints_a_baseline_row_beside_the_models(tmp_path: Path) -> None:
    """`--baseline rule:first`: the same mode with a rule in the model's seat, run on the full
    prompt's protocol, saved and printed as one more row with its difference from the model's."""
    import re as regex

    from mindagent.dispatch.brains import make_brain
    from mindagent.dispatch.dispatcher import DispatchSettings

    def first(n: int, messages: object) -> str:
        offered = regex.search(r"Choose from: (\w+)", messages[-1].content)  # type: ignore[index]
        return f"goal: {offered[1] if offered else ''}"

    from mindagent.core import registry as domains

    kitchen = domains.get("cuisineworld")
    base = EvalConfig(levels=["level_3"], agents=[2], model="scripted", taus=[1.0], episodes=1, steps=20,
                      dispatch=DispatchSettings("goals"))
    rows, failures = asyncio.run(run_ablation(
        base, tmp_path / "made", lambda _: LLMBrain(ScriptedModel(first)), ["full"],
        baselines=[("rule:first", lambda _: make_brain("rule:first", kitchen)),
                   ("planner", lambda _: make_brain("planner", kitchen))]))
    assert not failures and [r["name"] for r in rows] == ["full", "baseline-rule-first", "baseline-planner"]
    by_name = {r["name"]: r for r in rows}
    # the scripted head chef answers the first option too: the rule row matches the model's exactly
    assert by_name["baseline-rule-first"]["cos"] == by_name["full"]["cos"] and by_name["baseline-rule-first"]["delta"] == 0
    assert by_name["baseline-rule-first"]["tokens_per_step"] == 0  # a rule spends no tokens
    saved = json.loads((tmp_path / "made" / "baseline-rule-first.json").read_text())
    assert saved["config"]["model"] == "rule:first"

    cassette = tmp_path / "none.jsonl"
    cassette.write_text("")
    refused = CliRunner().invoke(app, ["ablate", "--model", f"replay:{cassette}", "--baseline", "rule:first",
                                       "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "add --dispatch goals or --mode taskgraph" in refused.output
