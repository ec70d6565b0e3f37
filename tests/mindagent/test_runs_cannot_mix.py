"""Runs that cannot silently mix or lie: a resume with other taus is refused in one line; results
and recordings name the mindagent version and commit, the model the provider served, the hashes of
custom level files and the settings really sent; an empty answer cut by max_tokens is a model
error (eval exits 1 with the units failed), never a step of idle agents. Loopback stub servers
play the providers."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from stub_llm import Reply, chat, messages_reply, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app
from mindagent.evaluation.provenance import code_commit, code_version, input_files

runner = CliRunner()
SHORT = ["--agents", "2", "--episodes", "1", "--steps", "3"]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def test_a_resume_with_other_taus_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    first = runner.invoke(app, ["eval", "--levels", "level_1", *SHORT, "--taus", "1.0", "--out", str(out)])
    assert first.exit_code == 0, first.output
    before = out.read_bytes()
    second = runner.invoke(app, ["eval", "--levels", "level_1", *SHORT, "--taus", "3.0", "--out", str(out)])
    assert second.exit_code == 2
    lines = [line for line in second.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "taus=[1.0], not [3.0]" in lines[0] and "use another --out" in lines[0]
    assert out.read_bytes() == before  # nothing mixed in


def test_a_seed_sweep_resumes_and_refuses_other_taus(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    args = ["eval", "--levels", "level_1", *SHORT, "--seeds", "0-1", "--workers", "1", "--out", str(out)]
    assert runner.invoke(app, [*args, "--taus", "1.0"]).exit_code == 0
    assert runner.invoke(app, [*args, "--taus", "1.0"]).exit_code == 0  # same settings: resumed
    refused = runner.invoke(app, [*args, "--taus", "2.0"])
    assert refused.exit_code == 2 and "taus=[1.0], not [2.0]" in refused.output


def level_copy(tmp_path: Path) -> Path:
    source = resources.files("cuisineworld.levels").joinpath("data/levels/level_1.json")
    target = tmp_path / "my_level.json"
    with resources.as_file(source) as path:
        shutil.copyfile(path, target)
    return target


def test_results_and_recordings_name_version_commit_served_model_and_file_hashes(tmp_path: Path) -> None:
    level = level_copy(tmp_path)
    out, record = tmp_path / "r.json", tmp_path / "rec"
    with stub_server(lambda path, body: chat("goto_agent0_storage0", model="gpt-4o-2024-08-06")) as stub:
        result = runner.invoke(app, ["eval", "--levels", str(level), *SHORT, "--taus", "1.0", "--model",
                                     "openai:gpt-4o", "--base-url", stub.url, "--out", str(out),
                                     "--record", str(record)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    provenance = data["provenance"]
    assert provenance["mindagent_version"] == code_version() == data["config"]["version"]
    assert provenance["served_models"] == ["gpt-4o-2024-08-06"]
    assert provenance["generation_sent"]["temperature"] == 0.1 and provenance["not_sent"] == []
    digest = input_files([str(level)], {})[str(level)]
    assert data["config"]["files"] == {str(level): digest} and len(digest) == 64
    commit = code_commit()
    if shutil.which("git") and (Path(__file__).resolve().parents[2] / ".git").exists():
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
        assert commit is not None and commit.startswith(head)
    assert provenance["commit"] == commit
    records = [json.loads(line) for p in record.rglob("*.jsonl") for line in p.read_text().splitlines()]
    header = records[0]
    assert header["mindagent_version"] == code_version() and header["files"] == {str(level): digest}
    assert "gpt-4o-2024-08-06" in json.dumps(records[1:])


def test_a_changed_level_file_is_not_resumed(tmp_path: Path) -> None:
    level = level_copy(tmp_path)
    out = tmp_path / "r.json"
    args = ["eval", "--levels", str(level), *SHORT, "--taus", "1.0", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    level.write_text(level.read_text() + "\n")
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "files=" in refused.output


def refuses_temperature(path: str, body: bytes) -> Reply:
    if "temperature" in json.loads(body):
        error = {"type": "error", "error": {"type": "invalid_request_error",
                                            "message": "`temperature` is deprecated for this model."}}
        return Reply(400, json.dumps(error).encode())
    return messages_reply("goto_agent0_storage0")


def test_a_dropped_temperature_is_recorded_as_not_sent(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with stub_server(refuses_temperature) as stub:
        result = runner.invoke(app, ["eval", "--levels", "level_1", *SHORT, "--taus", "1.0", "--model",
                                     "anthropic:claude-stub", "--base-url", f"http://127.0.0.1:{stub.port}",
                                     "--out", str(out)])
    assert result.exit_code == 0, result.output
    provenance = json.loads(out.read_text())["provenance"]
    assert provenance["generation_sent"]["temperature"] == "not sent"
    assert provenance["not_sent"] == ["temperature"] and provenance["served_models"] == ["stub"]


def empty_length(path: str, body: bytes) -> Reply:
    reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": "reasoner",
             "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": ""}}],
             "usage": {"prompt_tokens": 10, "completion_tokens": 100, "total_tokens": 110}}
    return Reply(200, json.dumps(reply).encode())


def test_empty_length_answers_fail_the_units_and_eval_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with stub_server(empty_length) as stub:
        result = runner.invoke(app, ["eval", "--levels", "level_1", *SHORT, "--taus", "1.0,2.0", "--model",
                                     "openai:reasoner", "--base-url", stub.url, "--out", str(out)])
    assert result.exit_code == 1, result.output
    data = json.loads(out.read_text())
    assert data["cells"] == [] and {f["tau"] for f in data["failed"]} == {1.0, 2.0}
    assert all("EmptyAnswer" in f["error"] and "max_tokens=100" in f["error"] for f in data["failed"])


def test_an_empty_answer_cut_by_max_tokens_fails_on_the_anthropic_backend_too(tmp_path: Path) -> None:
    def cut(path: str, body: bytes) -> Reply:
        reply = {"id": "m1", "type": "message", "role": "assistant", "model": "stub", "stop_reason": "max_tokens",
                 "content": [], "usage": {"input_tokens": 10, "output_tokens": 100}}
        return Reply(200, json.dumps(reply).encode())

    out = tmp_path / "r.json"
    with stub_server(cut) as stub:
        result = runner.invoke(app, ["eval", "--levels", "level_1", *SHORT, "--taus", "1.0", "--model",
                                     "anthropic:claude-stub", "--base-url", f"http://127.0.0.1:{stub.port}",
                                     "--out", str(out)])
    assert result.exit_code == 1, result.output
    failed = json.loads(out.read_text())["failed"]
    assert len(failed) == 1 and "EmptyAnswer" in failed[0]["error"] and "'max_tokens'" in failed[0]["error"]
