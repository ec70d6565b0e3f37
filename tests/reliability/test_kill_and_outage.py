"""kill -9 of a sweep loses nothing (resume finishes every unit, each counted once, and the result
equals an uninterrupted sweep's), and an
outage sweep run as a person runs it (a separate process, a real model server that fails, then
recovers) ends with every unit played, none scored as zeros."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from reliability.served import alive, children
from stub_llm import BROKEN, Reply, chat, stub_server

ROOT = Path(__file__).resolve().parents[2]


def mindagent(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "unused", "COLUMNS": "200"}
    return subprocess.Popen([sys.executable, "-c", "from mindagent.cli import app; app()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)  # type: ignore[call-overload]


def test_a_sweep_killed_mid_run_resumes_without_loss(tmp_path: Path) -> None:
    out = tmp_path / "res.json"
    args = ["eval", "--levels", "level_0,level_1", "--agents", "2", "--episodes", "1", "--steps", "60",
            "--model", "planner", "--out", str(out)]
    proc = mindagent(*args)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and json.loads(out.read_text() or "{}").get("cells")):
        time.sleep(0.05)
    workers = children(proc.pid)
    assert workers, "the sweep runs its units in worker processes"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 10  # its workers notice and exit (they used to sleep on forever)
    while time.monotonic() < deadline and any(alive(pid) for pid in workers):
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)], "orphaned sweep workers"
    partial = json.loads(out.read_text())  # the file is whole: written to a temporary file, then renamed
    done_before = sum(len(c["taus"]) for c in partial["cells"])
    assert 0 < done_before
    again = mindagent(*args)
    output, _ = again.communicate(timeout=240)
    assert again.returncode == 0, output
    cells = json.loads(out.read_text())["cells"]
    assert [(c["level"], [t["tau"] for t in c["taus"]]) for c in cells] == [
        ("level_0", [1.0, 1.5, 2.0, 2.5, 3.0]), ("level_1", [1.0, 1.5, 2.0, 2.5, 3.0])]
    # and the resumed sweep is the sweep: the same cells, figure for figure, as one never killed
    whole = tmp_path / "whole.json"
    uninterrupted = mindagent(*args[:-1], str(whole))
    output, _ = uninterrupted.communicate(timeout=240)
    assert uninterrupted.returncode == 0, output
    assert json.loads(whole.read_text())["cells"] == cells


def test_an_outage_sweep_in_a_process_fails_then_recovers(tmp_path: Path) -> None:
    out = tmp_path / "res.json"
    broken = [True]
    with stub_server(lambda path, body: BROKEN["http_500"] if broken[0] else chat("goto_agent0_storage0")) as stub:
        args = ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2", "--taus", "1.0",
                "--model", "openai:stub", "--base-url", stub.url, "--out", str(out), "--timeout", "5"]
        first = mindagent(*args)
        output, _ = first.communicate(timeout=120)
        assert first.returncode == 1 and "model call failed" in output and "Traceback" not in output
        assert json.loads(out.read_text())["failed"]
        broken[0] = False
        second = mindagent(*args)
        output, _ = second.communicate(timeout=120)
        assert second.returncode == 0, output
        data = json.loads(out.read_text())
        assert data["failed"] == [] and data["cells"][0]["taus"][0]["model_errors"] == 0


def test_ctrl_c_of_a_sweep_with_workers_keeps_every_unit_in_flight(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: each worker stops its unit and hands back what it
    played, the sweep saves both before it stops, and the resume asks only the calls not made."""
    import threading

    lock, calls = threading.Lock(), [0]

    def slow(path: str, body: bytes) -> Reply:
        with lock:
            calls[0] += 1
        time.sleep(0.05)
        return chat("goto_agent0_storage0\ngoto_agent1_blender0")

    out = tmp_path / "res.json"
    with stub_server(slow) as stub:
        args = ["eval", "--levels", "level_0", "--agents", "2", "--taus", "1.0,2.0", "--episodes", "1", "--steps", "60",
                "--model", "openai:stub", "--base-url", stub.url, "--workers", "2", "--out", str(out)]
        proc = mindagent(*args, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and calls[0] < 16:  # both units well under way
            time.sleep(0.05)
        assert calls[0] >= 16
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        output, _ = proc.communicate(timeout=60)
        assert proc.returncode != 0, output
        asked_before = calls[0]
        failed = json.loads(out.read_text())["failed"]
        assert sorted(f["tau"] for f in failed) == [1.0, 2.0], output
        assert all(f["error"] == "interrupted: the run was stopped" and f["checkpoint"]["step"] > 0 for f in failed)
        answered = sum(len(f["checkpoint"]["answers"]) for f in failed)
        again = mindagent(*args)
        output, _ = again.communicate(timeout=240)
        assert again.returncode == 0, output
    assert calls[0] - asked_before == 2 * 60 - answered
    assert [t["tau"] for t in json.loads(out.read_text())["cells"][0]["taus"]] == [1.0, 2.0]
