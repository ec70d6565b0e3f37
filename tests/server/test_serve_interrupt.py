"""Ctrl-C during a model call stops `mindagent serve` within 2 s (a real process, a real model).

No stub: the embedded SmolLM2 is itself a model that stays busy on demand. The room runs one
command per step with the full prompt (about 2,500 tokens), whose first call takes well over
five seconds on this machine kind, so a SIGINT sent three seconds after the first tick lands
inside llama.cpp's prompt evaluation. The recording proves it: steps were ticked (agents idle)
and no model call finished.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.slow
def test_ctrl_c_during_a_model_call_stops_serve_quickly(tmp_path: Path, smollm2_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--model", "local",
           "--dispatch", "step", "--autoplay", "--port", "0", "--tick", "1", "--timeout", "120",
           "--recordings", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            if "Ctrl-C stops the server" in line:
                break
            assert time.monotonic() < deadline, "serve did not start"
        time.sleep(3.0)
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert took < 2.0, f"serve took {took:.1f}s to stop after SIGINT"
    records = [json.loads(x) for f in tmp_path.glob("*.jsonl") for x in f.read_text().splitlines()]
    steps = [r for r in records if r.get("type") == "step"]
    assert len(steps) >= 2  # the room ticked while the model was busy
    assert not any(r["calls"] for r in steps)  # the first call was still running at SIGINT
