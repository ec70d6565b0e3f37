"""The server's ``/metrics`` page in the Prometheus text exposition format (version 0.0.4).

What an operator needs to see a server degrade before players say so: rooms and connections
now, how late room ticks ran (a histogram of the lateness each room's clock kept, as
`ClockStats.lags` holds it), how often a room worker had to be replaced, and the model calls'
latency and failures by kind (summed over the front and every worker).

Example::

    text = render(Gauges(rooms=3, connections=12, workers=2, workers_ready=2, healthy=True, restarts=0),
                  stats)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mindagent.llm.telemetry import LATENCY_BUCKETS, CallSnapshot

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Upper bounds (seconds) of the tick-lateness histogram; a healthy room stays in the first ones.
LATENESS_BUCKETS: tuple[float, ...] = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


@dataclass(frozen=True)
class Gauges:
    rooms: int
    connections: int
    workers: int
    workers_ready: int
    healthy: bool
    restarts: int


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _metric(lines: list[str], name: str, kind: str, help_text: str) -> None:
    lines.append(f"# HELP {name} {help_text}")
    lines.append(f"# TYPE {name} {kind}")


def _histogram(lines: list[str], name: str, bounds: Sequence[float], counts: Sequence[int], total: float) -> None:
    """Cumulative ``_bucket`` lines from per-bucket `counts` (the last bucket is +Inf's remainder)."""
    running = 0
    for bound, count in zip(bounds, counts, strict=False):
        running += count
        lines.append(f'{name}_bucket{{le="{_number(bound)}"}} {running}')
    everything = sum(counts)
    lines.append(f'{name}_bucket{{le="+Inf"}} {everything}')
    lines.append(f"{name}_sum {_number(total)}")
    lines.append(f"{name}_count {everything}")


def lateness_counts(lags: Sequence[float]) -> list[int]:
    """Per-bucket counts of tick lateness samples (the last entry: later than every bound)."""
    counts = [0] * (len(LATENESS_BUCKETS) + 1)
    for lag in lags:
        for i, bound in enumerate(LATENESS_BUCKETS):
            if lag <= bound:
                counts[i] += 1
                break
        else:
            counts[-1] += 1
    return counts


def render(gauges: Gauges, lags: Sequence[float] | None, models: CallSnapshot | None) -> str:
    """The whole page. `lags` None: the workers could not be asked just now (the histogram is left out)."""
    lines: list[str] = []
    for name, help_text, value in (
        ("mindagent_rooms", "Rooms open now.", gauges.rooms),
        ("mindagent_connections", "Websocket connections open now.", gauges.connections),
        ("mindagent_workers", "Room worker processes configured (1: rooms in the front process).", gauges.workers),
        ("mindagent_workers_ready", "Room workers alive and answering.", gauges.workers_ready),
        ("mindagent_up", "1 when every room worker is alive and answering (what /health says as ok).",
         int(gauges.healthy)),
    ):
        _metric(lines, name, "gauge", help_text)
        lines.append(f"{name} {value}")
    _metric(lines, "mindagent_worker_restarts_total", "counter", "Room workers replaced after dying.")
    lines.append(f"mindagent_worker_restarts_total {gauges.restarts}")
    if lags is not None:
        _metric(lines, "mindagent_tick_lateness_seconds", "histogram",
                "How late room ticks ran against their schedule (the samples the rooms keep).")
        counts = lateness_counts(lags)
        _histogram(lines, "mindagent_tick_lateness_seconds", LATENESS_BUCKETS, counts, math.fsum(lags))
    calls = models or CallSnapshot()
    _metric(lines, "mindagent_model_call_seconds", "histogram", "Wall-clock time of model calls, retries included.")
    rest = calls.calls - sum(calls.buckets)
    _histogram(lines, "mindagent_model_call_seconds", LATENCY_BUCKETS, [*calls.buckets, max(0, rest)], calls.seconds)
    _metric(lines, "mindagent_model_call_errors_total", "counter", "Failed model calls by error kind.")
    for kind, count in sorted(calls.errors.items()):
        lines.append(f'mindagent_model_call_errors_total{{kind="{_label(kind)}"}} {count}')
    return "\n".join(lines) + "\n"
