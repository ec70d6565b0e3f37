"""`--timeout` bounds a whole model call: a server that drips its reply one byte every 2 s ends
`run` and `eval` within 5 s on both SDKs, with the failure recorded as `ModelTimeout` (a failed
unit in the results, never an idle game scored as zero)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from drip_server import drip_server
from typer.testing import CliRunner

from mindagent.cli import app

runner = CliRunner()
#: The promise: a 3 s timeout, and the command over within 5 s of wall-clock time.
TIMEOUT_S, BOUND_S = 3, 5.0
SDKS = ["openai", "anthropic"]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-anthropic")
    # The clock measures the call, not the first import of an SDK (2.5 s for anthropic on a busy
    # machine) nor building the command tree: both are paid before it starts.
    for sdk in SDKS:
        pytest.importorskip(sdk)
    runner.invoke(app, ["--help"])


def base_url(sdk: str, port: int) -> str:
    return f"http://127.0.0.1:{port}" + ("/v1" if sdk == "openai" else "")


@pytest.mark.parametrize("sdk", SDKS)
def test_run_ends_within_the_deadline(tmp_path: Path, sdk: str) -> None:
    with drip_server() as drip:
        started = time.perf_counter()
        result = runner.invoke(app, ["run", "--level", "level_0", "--steps", "1", "--model", f"{sdk}:stub",
                                     "--base-url", base_url(sdk, drip.port), "--timeout", str(TIMEOUT_S),
                                     "--out-dir", str(tmp_path)])
        took = time.perf_counter() - started
    assert took < BOUND_S, f"run took {took:.1f}s"
    assert result.exit_code == 1, result.output
    assert "ModelTimeout" in result.output and "Traceback" not in result.output
    assert drip.requests == 1  # the deadline covers the retries too: no second dripping request
    lines = [json.loads(x) for x in next(tmp_path.rglob("*.jsonl")).read_text().splitlines()]
    kinds = [c.get("error_kind") for line in lines if line["type"] == "step" for c in line.get("calls", [])]
    assert kinds == ["ModelTimeout"]


@pytest.mark.parametrize("sdk", SDKS)
def test_eval_ends_within_the_deadline_and_keeps_the_unit_failed(tmp_path: Path, sdk: str) -> None:
    out = tmp_path / "res.json"
    with drip_server() as drip:
        started = time.perf_counter()
        result = runner.invoke(app, ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2",
                                     "--taus", "1.0", "--model", f"{sdk}:stub", "--base-url", base_url(sdk, drip.port),
                                     "--timeout", str(TIMEOUT_S), "--out", str(out)])
        took = time.perf_counter() - started
    assert took < BOUND_S, f"eval took {took:.1f}s"
    assert result.exit_code == 1, result.output
    data = json.loads(out.read_text())
    assert data["cells"] == []  # no zero scored for a model that never answered
    assert [f["tau"] for f in data["failed"]] == [1.0]
    assert "ModelTimeout" in data["failed"][0]["error"]
