"""An outage is a failure, not a zero: `eval` against a model server that answers 500 (or
garbage) exits 1, keeps the failed units with their error, and a rerun against a healthy server
redoes them. `run` reports a broken reply as one line, never a traceback. Every URL credential
and the API key stay out of the output, the results and the recordings."""

from __future__ import annotations

import json

import pytest
from stub_llm import BROKEN, chat, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app

SECRET = "PLANTED-s3cret-9f8e7d"
runner = CliRunner()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET + "-key")


def sweep(base_url: str, out, record, *extra: str):
    return runner.invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "3",
                               "--taus", "1.0,2.0", "--model", "openai:stub", "--base-url", base_url,
                               "--out", str(out), "--record", str(record), *extra])


def leaks(*texts: str) -> list[str]:
    return [t[:80] for t in texts if SECRET in t]


def test_an_outage_is_recorded_as_failed_and_redone_on_resume(tmp_path):
    out, record = tmp_path / "res.json", tmp_path / "rec"
    broken = True
    with stub_server(lambda path, body: BROKEN["http_500"] if broken else chat("goto_agent0_storage0")) as stub:
        base = f"http://user:{SECRET}@127.0.0.1:{stub.port}/v1?api-key={SECRET}&api-version=7"
        first = sweep(base, out, record)
        assert first.exit_code == 1, first.output
        assert "model call failed" in first.output and "HTTP 500" in first.output
        data = json.loads(out.read_text())
        assert data["cells"] == []  # no zeros scored
        assert {(f["level"], f["tau"]) for f in data["failed"]} == {("level_0", 1.0), ("level_0", 2.0)}
        assert data["config"]["generation"]["base_url"] == f"http://127.0.0.1:{stub.port}/v1?api-version=7"
        calls_before = len(stub.seen)
        broken = False
        second = sweep(base, out, record)
        assert second.exit_code == 0, second.output
        assert len(stub.seen) > calls_before  # the failed units were played again
        data = json.loads(out.read_text())
        assert [t["tau"] for t in data["cells"][0]["taus"]] == [1.0, 2.0] and data["failed"] == []
        assert all(t["model_errors"] == 0 for t in data["cells"][0]["taus"])
        recorded = [p.read_text() for p in record.rglob("*") if p.is_file()]
        assert recorded and not leaks(first.output, second.output, out.read_text(), *recorded)
        # another server is another experiment: not resumed into these results
        other = sweep(f"http://127.0.0.1:{stub.port}/v2", out, record)
        assert other.exit_code != 0 and "base_url" in other.output


def test_old_results_with_failed_calls_are_redone(tmp_path):
    out, record = tmp_path / "res.json", tmp_path / "rec"
    with stub_server(lambda path, body: chat("goto_agent0_storage0")) as stub:
        assert sweep(stub.url, out, record).exit_code == 0
        data = json.loads(out.read_text())
        data["cells"][0]["taus"][0]["model_errors"] = 3  # as written before failures were kept apart
        out.write_text(json.dumps(data))
        seen = len(stub.seen)
        assert sweep(stub.url, out, record).exit_code == 0
        assert len(stub.seen) == seen + 3  # one tau of three steps played again


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_run_reports_a_broken_reply_in_one_line(tmp_path, kind):
    with stub_server(lambda path, body: BROKEN[kind]) as stub:
        result = runner.invoke(app, ["run", "--level", "level_0", "--steps", "2", "--model", "openai:stub",
                                     "--base-url", stub.url, "--out-dir", str(tmp_path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert "model call(s) failed" in result.output and "ModelUnavailable" in result.output
    assert len(stub.seen) >= 2 * 5  # every call retried (1 + 4 retries) before it was given up
    lines = [json.loads(line) for line in next(tmp_path.rglob("*.jsonl")).read_text().splitlines()]
    assert lines[-1]["type"] == "end"


def test_a_huge_reply_is_cut_and_noted(tmp_path):
    from mindagent.recordings.limits import MAX_REPLY_CHARS

    huge = "goto_agent0_storage0 " + "blah " * 400_000  # 2 MB
    with stub_server(lambda path, body: chat(huge)) as stub:
        result = runner.invoke(app, ["run", "--level", "level_0", "--steps", "2", "--model", "openai:stub",
                                     "--base-url", stub.url, "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = next(tmp_path.rglob("*.jsonl"))
    assert path.stat().st_size < 4 * MAX_REPLY_CHARS * 2  # two steps, not two 2 MB replies
    calls = [c for line in path.read_text().splitlines() for c in json.loads(line).get("calls", [])]
    assert calls and all(c["truncated_from"] == len(huge) and len(c["text"]) == MAX_REPLY_CHARS for c in calls)


@pytest.mark.parametrize("kind", ["http_500", "html_200", "not_json_200", "empty_200", "wrong_shape_200"])
def test_the_anthropic_backend_reports_broken_replies_as_llm_errors(kind):
    import asyncio

    from mindagent.llm.anthropic_backend import AnthropicClient
    from mindagent.llm.base import GenerationConfig, Message, ModelUnavailable

    async def call(url: str):
        client = AnthropicClient("stub", base_url=url, api_key=SECRET)
        try:
            return await client.complete([Message("user", "hi")], GenerationConfig(max_retries=1))
        finally:
            await client.aclose()

    with stub_server(lambda path, body: BROKEN[kind]) as stub:
        with pytest.raises(ModelUnavailable) as caught:
            asyncio.run(call(f"http://127.0.0.1:{stub.port}"))
    assert len(stub.seen) == 2 and SECRET not in str(caught.value)
