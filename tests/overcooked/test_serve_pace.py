"""`mindagent serve --domain overcooked` plays at the game's own real-time pace unless told otherwise,
and the lobby is told that pace (`RealTimePace`); the kitchen keeps the server's."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

from mindagent.core.capabilities import RealTimePace
from overcooked_game.domain import DOMAIN, REAL_TIME_TICK_S

pytestmark = pytest.mark.slow


def _serve(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if k != "MINDAGENT_MODEL"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mindagent.cli import app; app()", "serve", "--model", "planner", "--port", "0",
         "--recordings", str(tmp_path / "rooms"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**env, "COLUMNS": "200"}, cwd=tmp_path)
    banner: list[str] = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while time.monotonic() < deadline and not any("Ctrl-C" in line for line in banner):
        line = proc.stdout.readline()
        if not line:
            pytest.fail("mindagent serve exited:\n" + "".join(banner))
        banner.append(line)
    return proc, "".join(banner)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _welcome(banner: str) -> dict[str, object]:
    port = re.search(r"on http://127\.0\.0\.1:(\d+)/", banner)
    assert port, banner
    with connect(f"ws://127.0.0.1:{port.group(1)}/ws") as ws:
        message: dict[str, object] = json.loads(ws.recv(timeout=10))
    return message


@pytest.mark.parametrize("given, shown, pace, level", [
    (("--domain", "overcooked"), f"a step every {REAL_TIME_TICK_S:g}s", [REAL_TIME_TICK_S, REAL_TIME_TICK_S],
     "cramped_room"),
    (("--domain", "overcooked", "--tick", "0.5"), "a step every 0.5s", [REAL_TIME_TICK_S, REAL_TIME_TICK_S],
     "cramped_room"),
    (("--domain", "cuisineworld"), "a step every 1s", None, "level_3"),  # a game without its own pace
])
def test_rooms_play_at_the_games_own_pace(tmp_path: Path, given: tuple[str, ...], shown: str,
                                          pace: list[float] | None, level: str) -> None:
    assert isinstance(DOMAIN, RealTimePace)
    proc, banner = _serve(tmp_path, *given)
    try:
        assert shown in banner, banner
        welcome = _welcome(banner)
        assert welcome["type"] == "welcome" and welcome["pace"] == pace and welcome["default_level"] == level
    finally:
        _stop(proc)
