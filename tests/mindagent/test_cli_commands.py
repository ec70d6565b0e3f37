"""The command line through typer's runner: levels, run, replay, prompt, eval (with resume)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mindagent.cli import app

runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result


def test_levels_table_and_show_json():
    assert "level_12" in invoke("levels").output
    data = json.loads(invoke("levels", "show", "level_3", "--json").output)
    assert set(data) == {"name", "dishes", "kitchen", "taus"}
    assert list(data["taus"]) == ["1.0", "1.5", "2.0", "2.5", "3.0"]
    t1 = data["taus"]["1.0"]
    assert t1["interval"] == 6 and t1["lifetimes"] == {"salmonSushi": 13, "tunaSushi": 13}
    assert len(t1["orders"]) == 3 and t1["orders"][0][0][0] == 0
    assert [a for a, _ in t1["orders"][0]] == list(range(0, 61, 6))
    assert data["taus"]["3.0"]["interval"] == 16


def test_bad_level_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "mindagent/level@1", "name": "x", "dishes": [], "kitchen": ["storage"]}')
    result = runner.invoke(app, ["levels", "show", str(bad)])
    assert result.exit_code == 2
    assert "bad.json: dishes" in result.output and "Traceback" not in result.output


def test_run_json_summary_and_replay(tmp_path):
    result = invoke("run", "--level", "level_3", "--agents", "2", "--tau", "1.0", "--seed", "0", "--model", "planner",
                    "--steps", "20", "--json", "--out-dir", str(tmp_path))
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert set(summary) == {"domain", "level", "agents", "tau", "seed", "model", "completed", "failed", "active", "steps", "model_errors",
                            "prompt_tokens", "output_tokens", "recording"}
    assert summary["steps"] == 20 and summary["completed"] >= 1
    replayed = invoke("replay", summary["recording"])
    assert "replayed 20 steps identically" in replayed.output


def test_prompt_command_prints_step_zero_prompt():
    out = invoke("prompt", "--level", "level_3", "--agents", "3").output
    assert "=== system ===" in out and "(end of cached prefix)" in out and "agent2" in out
    assert "Hints:" not in invoke("prompt", "--no-knowledge").output


def test_eval_writes_results_and_resumes(tmp_path):
    out = tmp_path / "res.json"
    args = ["eval", "--levels", "level_0,level_2", "--agents", "2", "--episodes", "1", "--steps", "30",
            "--model", "planner", "--out", str(out)]
    invoke(*args)
    data = json.loads(out.read_text())
    assert data["config"]["model"] == "planner" and data["config"]["prompt"]["memory"] == 2
    cells = data["cells"]
    assert [(c["level"], c["agents"]) for c in cells] == [("level_0", 2), ("level_2", 2)]
    for cell in cells:
        assert {"level", "agents", "cos", "cos_paper", "taus"} <= set(cell)
        assert [t["tau"] for t in cell["taus"]] == [1.0, 1.5, 2.0, 2.5, 3.0]
        assert set(cell["taus"][0]) == {"tau", "completed", "failed", "active", "rate", "steps", "prompt_tokens",
                                        "cached_tokens", "output_tokens", "model_errors", "metrics", "episode_metrics"}
        assert cell["taus"][0]["steps"] == 30 and cell["taus"][0]["prompt_tokens"] == 0
        assert abs(cell["cos"] - sum(t["rate"] for t in cell["taus"]) / 5) < 1e-6
    assert out.with_suffix(".csv").exists()
    before = out.read_text()
    again = invoke(*args)  # everything is done: nothing is re-run, the file is unchanged
    assert out.read_text() == before and "level_2" in again.output


def test_play_in_the_terminal_shows_state_and_reasons():
    keys = "goto storage0\n\nget_agent0_rice_storage0\nput pot0\nq\n"
    result = runner.invoke(app, ["play", "--level", "level_3", "--agents", "2"], input=keys)
    assert result.exit_code == 0
    assert "at(agent0, servingtable0)" in result.output and "at(agent0, storage0)" in result.output
    assert "goto_agent0_storage0: ok" in result.output
    assert "agent1 is not at pot0" in result.output  # a refused command's reason is shown
    assert "bye" in result.output


def test_a_broken_unit_does_not_sink_the_sweep(tmp_path, monkeypatch):
    import mindagent.evaluation.sweep as evaluation

    real = evaluation.run_tau

    async def flaky(config, level, agents, tau, factory, on_episode=None, checkpoint=None):
        if tau == 2.0:
            raise RuntimeError("the model server fell over")
        return await real(config, level, agents, tau, factory, on_episode, checkpoint)

    monkeypatch.setattr(evaluation, "run_tau", flaky)
    out = tmp_path / "res.json"
    result = runner.invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "20",
                                 "--model", "planner", "--out", str(out)])
    assert result.exit_code == 1 and "tau 2.0: RuntimeError: the model server fell over" in result.output
    taus = [t["tau"] for t in json.loads(out.read_text())["cells"][0]["taus"]]
    assert taus == [1.0, 1.5, 2.5, 3.0]
    monkeypatch.setattr(evaluation, "run_tau", real)
    runner.invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "20",
                        "--model", "planner", "--out", str(out)], catch_exceptions=False)
    assert [t["tau"] for t in json.loads(out.read_text())["cells"][0]["taus"]] == [1.0, 1.5, 2.0, 2.5, 3.0]
