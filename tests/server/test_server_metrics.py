"""The /metrics page: Prometheus text with rooms, connections, tick lateness, worker restarts and
model calls; gated by the same host check as every other path."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request

import pytest

from mindagent.llm.telemetry import LATENCY_BUCKETS, CallSnapshot, merge, metered, snapshot
from mindagent.server import GameServer
from mindagent.server.prometheus import LATENESS_BUCKETS, Gauges, lateness_counts, render

#: One sample line of the text format: a name, optional labels, a number.
SAMPLE = re.compile(r'^[a-z_]+(\{[a-z]+="[^"]*"\})? (-?[0-9.e+-]+|\+Inf)$')


def parse(text: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-z_]+ ", line), line
            continue
        assert SAMPLE.match(line), line
        name, _, value = line.rpartition(" ")
        values[name] = float(value)
    return values


def test_render_gives_cumulative_histograms_and_error_kinds() -> None:
    models = CallSnapshot(calls=3, seconds=70.5, buckets=(1,) + (0,) * (len(LATENCY_BUCKETS) - 1),
                          errors={"ModelTimeout": 2})
    text = render(Gauges(rooms=2, connections=5, workers=2, workers_ready=1, healthy=False, restarts=1),
                  [0.0005, 0.02, 3.0], models)
    values = parse(text)
    assert values["mindagent_rooms"] == 2 and values["mindagent_up"] == 0
    assert values["mindagent_worker_restarts_total"] == 1
    assert values['mindagent_tick_lateness_seconds_bucket{le="0.001"}'] == 1
    assert values['mindagent_tick_lateness_seconds_bucket{le="0.025"}'] == 2
    assert values['mindagent_tick_lateness_seconds_bucket{le="+Inf"}'] == 3
    assert values["mindagent_model_call_seconds_count"] == 3  # two calls past the last bound count in +Inf only
    assert values['mindagent_model_call_seconds_bucket{le="60"}'] == 1
    assert values['mindagent_model_call_errors_total{kind="ModelTimeout"}'] == 2


def test_lateness_counts_put_each_sample_in_one_bucket() -> None:
    counts = lateness_counts([0.0, 0.001, 0.0011, 99.0])
    assert sum(counts) == 4 and counts[0] == 2 and counts[1] == 1 and counts[-1] == 1
    assert len(counts) == len(LATENESS_BUCKETS) + 1


def test_metered_counts_calls_and_errors_by_kind() -> None:
    before = snapshot()
    with metered():
        pass
    with pytest.raises(KeyError), metered():
        raise KeyError("x")
    after = merge([snapshot(), CallSnapshot(calls=-before.calls, seconds=-before.seconds,
                                            buckets=tuple(-b for b in before.buckets),
                                            errors={k: -v for k, v in before.errors.items()})])
    assert after.calls == 2 and after.errors.get("KeyError") == 1


def fetch(url: str, host: str | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode()


@pytest.mark.asyncio
async def test_the_metrics_page_of_a_running_server(server: GameServer) -> None:
    await asyncio.sleep(0.3)  # a few ticks of the start-up room
    status, kind, body = await asyncio.to_thread(fetch, server.url + "metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4")
    values = parse(body)
    assert values["mindagent_rooms"] == 1 and values["mindagent_up"] == 1 and values["mindagent_workers"] == 1
    assert "mindagent_tick_lateness_seconds_count" in values
    assert "mindagent_model_call_seconds_count" in values
    status, _, _ = await asyncio.to_thread(fetch, server.url + "metrics", "evil.example")
    assert status == 421  # the host check holds here too
