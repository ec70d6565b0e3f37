"""Recordings under damage and at their limits: a header's fields are checked against the limits
before any game is built; a file whose writer was killed mid-line replays up to its last full line
and says the end line is missing (one line, exit 0, no traceback); a file reaching its size cap
ends with a ``cut`` line, and both `run` and `replay` say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stub_llm import chat, stub_server
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.core.spec import GameSpec
from mindagent.llm import make_client
from mindagent.recordings.limits import MAX_AGENTS, MAX_STEPS
from mindagent.recordings.recording import CAP_ENV, Recorder, RecordingError, load_recording, read_recording
from mindagent.recordings.replay import replay_recording

runner = CliRunner()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rec")
    result = runner.invoke(app, ["run", "--level", "level_3", "--model", "planner", "--steps", "8", "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    return next(out.glob("*.jsonl"))


def replay_cli(path: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["replay", str(path)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def test_a_recording_killed_mid_line_replays_every_full_line(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_text().splitlines(keepends=True)
    assert json.loads(lines[-1])["type"] == "end"
    torn = tmp_path / "torn.jsonl"
    # the writer died halfway through step 7's line: no end line, and a half line at the end
    torn.write_text("".join(lines[:-2]) + lines[-2][: len(lines[-2]) // 2])
    loaded = load_recording(torn)
    assert loaded.torn is not None and not loaded.ended and loaded.last_step == 6
    code, output = replay_cli(torn)
    assert code == 0
    assert "replayed 7 steps identically" in output
    assert "the end line is missing" in output and "half-written last line" in output
    # the replay: backend answers from the same full lines
    assert make_client(f"replay:{torn}") is not None


def test_a_recording_stopped_between_lines_says_the_end_is_missing(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_text().splitlines(keepends=True)
    stopped = tmp_path / "stopped.jsonl"
    stopped.write_text("".join(lines[:-1]))
    report = replay_recording(stopped)
    assert report.steps == 8 and not report.ended and not report.torn
    code, output = replay_cli(stopped)
    assert code == 0 and "the end line is missing" in output and "half-written" not in output
    whole_code, whole = replay_cli(recorded)
    assert whole_code == 0 and "missing" not in whole


def test_a_torn_line_inside_the_file_is_still_an_error(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_text().splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines[:3]) + lines[3][:40] + "\n" + "".join(lines[4:]))
    with pytest.raises(RecordingError, match=":4: not JSON"):
        read_recording(broken)
    code, output = replay_cli(broken)
    assert code == 1 and "replay failed" in output


@pytest.mark.parametrize(("field", "value"), [
    ("agents", MAX_AGENTS + 1),
    ("agents", 0),
    ("tau", 1e12),
    ("max_steps", MAX_STEPS * 10),
    ("seed", 10**40),
    ("level", "x" * 100_000),
    ("options", ["not", "an", "object"]),
])
def test_header_fields_over_the_limits_are_refused_by_name(recorded: Path, tmp_path: Path, field: str,
                                                           value: object) -> None:
    lines = recorded.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header[field] = value
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    with pytest.raises(RecordingError, match=f"bad.jsonl:1: header field {field}"):
        read_recording(bad)
    code, output = replay_cli(bad)
    assert code == 1 and f"header field {field}" in output


def test_a_fifo_is_not_read_as_a_recording(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(RecordingError, match="not a regular file"):
        read_recording(fifo)


def test_a_recorder_at_its_cap_writes_a_cut_line_and_nothing_after(tmp_path: Path) -> None:
    path = tmp_path / "capped.jsonl"
    recorder = Recorder(path, max_bytes=4096)
    recorder.header(**GameSpec("cuisineworld", "level_3", 2, 1.0, 0).header())
    for n in range(100):
        recorder.extra("chat", step=n, text="y" * 200)
    recorder.close()
    records = read_recording(path)
    assert records[-1]["type"] == "cut" and "size cap of 4096 bytes" in records[-1]["reason"]
    assert path.stat().st_size <= 4096 and recorder.cut and recorder.dropped > 1
    again = Recorder(path, max_bytes=4096)  # a questionnaire appended later: no second cut line
    again.extra("questionnaire", answers={})
    again.close()
    assert sum(r["type"] == "cut" for r in read_recording(path)) == 1


def test_the_cap_is_configurable_and_run_and_replay_say_it_was_reached(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CAP_ENV, "1")
    huge = "goto_agent0_storage0 " + "blah " * 40_000  # each reply kept at 64 K characters: 1 MB in ~16 steps
    with stub_server(lambda path, body: chat(huge)) as stub:
        result = runner.invoke(app, ["run", "--level", "level_0", "--steps", "30", "--model", "openai:stub",
                                     "--base-url", stub.url, "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "reached its size cap (1048576 bytes" in result.output
    path = next(tmp_path.glob("*.jsonl"))
    assert path.stat().st_size <= 1024 * 1024
    code, output = replay_cli(path)
    assert code == 0 and "size cap of 1048576 bytes" in output and "replayed the" in output


def test_a_bad_cap_setting_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from mindagent.recordings.limits import MAX_RECORDING_BYTES
    from mindagent.recordings.recording import recording_cap

    for raw in ("lots", "0", "nan", "-5"):
        monkeypatch.setenv(CAP_ENV, raw)
        assert recording_cap() == MAX_RECORDING_BYTES
    monkeypatch.setenv(CAP_ENV, "2.5")
    assert recording_cap() == int(2.5 * 1024 * 1024)
