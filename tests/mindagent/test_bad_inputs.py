"""Someone else's bad input gets one clear line, never a traceback: `run --tau inf`, `--steps`
past the level, `--out-dir` naming a file, `plot` on a non-JSON file, crafted recordings in
`replay`; and a model spec naming a FIFO or a device is refused without reading it."""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.llm import make_client
from mindagent.llm.base import ModelUnavailable

runner = CliRunner()


def one_line_error(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.output


def test_run_refuses_bad_numbers_and_folders(tmp_path):
    assert "tau" in one_line_error("run", "--level", "level_0", "--model", "planner", "--tau", "inf")
    assert "tau" in one_line_error("run", "--level", "level_0", "--model", "planner", "--tau", "nan")
    out = one_line_error("run", "--level", "level_0", "--model", "planner", "--steps", "200", "--out-dir", str(tmp_path))
    assert "only shortens" in out
    assert "not a folder" in one_line_error("run", "--level", "level_0", "--model", "planner", "--steps", "2",
                                            "--out-dir", "/etc/passwd")
    assert "--taus" in one_line_error("eval", "--levels", "level_0", "--model", "planner", "--taus", "1.0,inf")


def test_plot_refuses_a_file_that_is_not_results(tmp_path):
    for body in ("not json at all", "[1, 2]", '{"cells": 5}'):
        path = tmp_path / "x.json"
        path.write_text(body)
        assert "cannot plot" in one_line_error("plot", str(path))


CRAFTED = [
    '{"type": "header", "agents": "many"}',
    '{"type": "header", "agents": 100000000, "level": "level_0"}',
    '{"type": "header", "tau": NaN, "level": "level_0", "agents": 2}',
    '{"type": "header", "level": {"a": 1}, "agents": 2}',
    '{"type": "header", "level": "level_0", "agents": 2, "seed": "x"}',
    "[" * 50_000 + "]" * 50_000,
    '{"type": "step"}',
    "\x00\x01\x02",
    '{"type": "header", "format": "mindagent/recording@1", "domain": "nowhere", "level": "level_0", "agents": 2}',
]


@pytest.mark.parametrize("body", CRAFTED, ids=range(len(CRAFTED)))
def test_replay_gives_one_line_for_crafted_recordings(tmp_path, body):
    path = tmp_path / "bad.jsonl"
    path.write_text(body + "\n")
    assert "replay failed" in one_line_error("replay", str(path))


def test_a_replay_spec_naming_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    for target in (fifo, "/dev/zero"):
        with pytest.raises(ModelUnavailable, match="not a regular file"):
            make_client(f"replay:{target}")
    assert time.monotonic() - started < 2.0  # nothing waited on the FIFO's writer


def test_a_replay_spec_naming_a_huge_file_is_refused(tmp_path, monkeypatch):
    import mindagent.llm.replay_backend as replay_backend

    monkeypatch.setattr(replay_backend, "MAX_CASSETTE_BYTES", 1000)
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"type": "header"}) + "\n" + "x" * 2000)
    with pytest.raises(ModelUnavailable, match="at most 1000"):
        make_client(f"replay:{path}")
