"""`eval --retries` and `--max-retry-after`: a paid run decides how long to wait out rate limits.
A loopback stub answers 429 with Retry-After a few times, then well."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stub_llm import Reply, chat, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def limited_for(calls: int):
    seen = {"n": 0}

    def answer(path: str, body: bytes) -> Reply:
        seen["n"] += 1
        if seen["n"] <= calls:
            return Reply(429, b'{"error": {"message": "slow down"}}')
        return chat("goto_agent0_storage0")
    return answer


def sweep(url: str, out: Path, *extra: str):
    return runner.invoke(app, ["eval", "--levels", "level_1", "--agents", "2", "--taus", "1.0", "--episodes", "1",
                               "--steps", "2", "--model", "openai:stub", "--base-url", url, "--out", str(out),
                               *extra])


def test_too_few_retries_fail_the_unit_and_more_see_it_through(tmp_path: Path) -> None:
    with stub_server(limited_for(3)) as stub:
        failed = sweep(stub.url, tmp_path / "a.json", "--retries", "1")
    assert failed.exit_code == 1 and "RateLimited" in json.loads((tmp_path / "a.json").read_text())["failed"][0]["error"]
    with stub_server(limited_for(6)) as stub:
        done = sweep(stub.url, tmp_path / "b.json", "--retries", "8", "--max-retry-after", "1")
    assert done.exit_code == 0, done.output
    assert json.loads((tmp_path / "b.json").read_text())["failed"] == []


def test_out_of_range_values_are_refused() -> None:
    result = runner.invoke(app, ["eval", "--retries", "99", "--dry-run"])
    assert result.exit_code == 2 and "--retries" in result.output
