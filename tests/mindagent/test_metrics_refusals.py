"""`mindagent metrics` refuses a recording whose steps are reordered or whose fields have the wrong
types, in one line; a genuine recording still reads."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

runner = CliRunner()
Line = dict[str, Any]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> list[Line]:
    folder = tmp_path_factory.mktemp("rec")
    result = runner.invoke(app, ["run", "--level", "level_0", "--steps", "4", "--model", "planner",
                                 "--out-dir", str(folder)])
    assert result.exit_code == 0, result.output
    path = next(folder.rglob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def swap_steps(lines: list[Line]) -> None:
    lines[1], lines[2] = lines[2], lines[1]


def repeat_step(lines: list[Line]) -> None:
    lines[2]["step"] = lines[1]["step"]


def setter(index: int, key: str, value: Any) -> Callable[[list[Line]], None]:
    def change(lines: list[Line]) -> None:
        lines[index][key] = value
    return change


def nested(key: str, inner: str, value: Any) -> Callable[[list[Line]], None]:
    def change(lines: list[Line]) -> None:
        lines[1][key] = {**(lines[1].get(key) or {}), inner: value}
    return change


def verdict_ok(value: Any) -> Callable[[list[Line]], None]:
    def change(lines: list[Line]) -> None:
        lines[1]["verdicts"] = [{"command": "x", "ok": value}]
    return change


BROKEN: dict[str, Callable[[list[Line]], None]] = {
    "steps swapped": swap_steps,
    "a step repeated": repeat_step,
    "step as text": setter(1, "step", "0"),
    "verdicts as a string": setter(1, "verdicts", "all good"),
    "ok as a word": verdict_ok("yes"),
    "tokens as text": nested("usage", "prompt_tokens", "12"),
    "negative tokens": nested("usage", "output_tokens", -5),
    "latency NaN": setter(1, "latency_s", float("nan")),
    "end count as text": setter(-1, "completed", "3"),
}


def write(tmp_path: Path, lines: list[Line]) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_genuine_recording_reads(tmp_path: Path, recorded: list[Line]) -> None:
    result = runner.invoke(app, ["metrics", "--json", str(write(tmp_path, recorded))])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["steps"] == 4


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_recording_is_refused_in_one_line(tmp_path: Path, recorded: list[Line], name: str) -> None:
    lines = json.loads(json.dumps(recorded))
    assert lines[-1]["type"] == "end" and lines[1]["type"] == "step"
    BROKEN[name](lines)
    result = runner.invoke(app, ["metrics", str(write(tmp_path, lines))])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    out = [line for line in result.output.splitlines() if line.strip()]
    assert len(out) == 1 and out[0].startswith("error:"), result.output


def test_a_line_nested_100000_deep_is_refused(tmp_path: Path, recorded: list[Line]) -> None:
    path = write(tmp_path, recorded[:2])
    with path.open("a") as fh:
        fh.write("[" * 100_000 + "]" * 100_000 + "\n")
    result = runner.invoke(app, ["metrics", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
