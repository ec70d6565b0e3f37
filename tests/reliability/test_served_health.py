"""/health tells the truth: with `serve --workers 2`, polled every 20 ms after kill -9 of a room
worker, it says ``ok: false`` (status 503) at least once and then ``ok: true`` again once the
replacement answers; /metrics counts the restart in Prometheus text format."""

from __future__ import annotations

import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from reliability.served import serve
from reliability.test_served_worker_kill import health, worker_pids

pytestmark = pytest.mark.slow
POLL_S = 0.02


def metrics(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def test_health_says_false_from_a_workers_death_until_its_replacement_answers(tmp_path: Path) -> None:
    with serve(tmp_path / "rooms", "--workers", "2") as served:
        assert health(served) == {**health(served), "ok": True, "workers": 2}
        before = metrics(served.port)
        assert before["mindagent_up"] == 1 and before["mindagent_worker_restarts_total"] == 0
        victim = worker_pids(served)[-1]
        os.kill(victim, signal.SIGKILL)
        seen: list[bool] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            seen.append(bool(health(served)["ok"]))
            if False in seen and seen[-1]:
                break
            time.sleep(POLL_S)
        assert False in seen, f"never false in {len(seen)} polls"
        assert seen[-1] is True, f"not true again within 60 s ({len(seen)} polls)"
        first_false = seen.index(False)
        assert all(not ok for ok in seen[first_false:-1])  # no flapping back to true before the replacement
        after = metrics(served.port)
        assert after["mindagent_up"] == 1 and after["mindagent_worker_restarts_total"] == 1
        assert after["mindagent_workers_ready"] == 2
        assert victim not in worker_pids(served)
    print(f"\n/health polled {len(seen)} times: {seen.count(False)} false, then true")
