"""What the machine was doing while a latency figure was taken, printed beside the figure.

A lateness p99 means little without it: the same server measured 7 ms p99 on a quiet machine
and 160 ms under a load average of 4-5 from other work, with every tick still run. `MachineLoad`
samples the load average and the kernel's CPU counters (/proc/stat) around a measurement, so a
benchmark can print the load, how busy the cores were, and the CPU share its server got.

    probe = MachineLoad.start()
    ...  # measure
    seen = probe.stop(server_cpu_s=cpu_seconds_of_the_server)
    print(seen.line())
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path


def _cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) jiffies over all cores since boot; None where /proc/stat is missing."""
    try:
        first = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()
    except OSError:
        return None
    values = [int(v) for v in first[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    return sum(values) - idle, sum(values)


@dataclass(frozen=True)
class LoadSeen:
    load_start: float
    load_end: float
    #: Share of all cores' time that was busy during the measurement (0-100), None if unknown.
    busy_pct: float | None
    #: The server's CPU as a share of one core (100 = one full core).
    server_pct: float
    #: The server's share of all the CPU time the machine spent meanwhile (0-100), None if unknown.
    server_share_pct: float | None
    cores: int

    def line(self) -> str:
        busy = f"{self.busy_pct:.0f} %" if self.busy_pct is not None else "unknown"
        share = f"{self.server_share_pct:.0f} %" if self.server_share_pct is not None else "unknown"
        return (f"load average (1 min) {self.load_start:.1f} -> {self.load_end:.1f} on {self.cores} cores; cores busy "
                f"{busy}; the server got {self.server_pct:.0f} % of one core, {share} of the CPU time used meanwhile")

    def cells(self) -> str:
        """Table cells: load, cores busy, server share of the busy CPU."""
        busy = f"{self.busy_pct:.0f} %" if self.busy_pct is not None else "?"
        share = f"{self.server_share_pct:.0f} %" if self.server_share_pct is not None else "?"
        return f"{self.load_start:.1f}-{self.load_end:.1f} | {busy} | {share}"


@dataclass
class MachineLoad:
    started: float
    load: float
    ticks: tuple[int, int] | None

    @classmethod
    def start(cls) -> MachineLoad:
        return cls(time.monotonic(), os.getloadavg()[0], _cpu_ticks())

    def stop(self, server_cpu_s: float) -> LoadSeen:
        wall = max(1e-9, time.monotonic() - self.started)
        end = _cpu_ticks()
        cores = os.cpu_count() or 1
        busy_pct = share = None
        if self.ticks is not None and end is not None and end[1] > self.ticks[1]:
            busy, total = end[0] - self.ticks[0], end[1] - self.ticks[1]
            busy_pct = 100 * busy / total
            hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
            busy_s = busy / hz
            share = min(100.0, 100 * server_cpu_s / busy_s) if busy_s > 0 else None
        return LoadSeen(self.load, os.getloadavg()[0], busy_pct, 100 * server_cpu_s / wall, share, cores)
