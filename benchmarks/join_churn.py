"""Join churn: N spectators join and leave one room as fast as the rate limit allows; does another
room keep its clock?

Room A (the churned one) and room B (the measured one) run level_3 with the built-in planner in
real time. A child process opens `--spectators` websockets (loopback only) and each alternates
``join`` A as spectator / ``leave`` at `--per-second` frames a second (the server's limit is 10).
Room B's lateness is measured honestly: every scheduled tick counts, from its own scheduled time
to the run that served it (not modulo the period, so a tick skipped or merged into a late run
shows up with that run's lateness), and ticks and steps run are reported against those scheduled.
Target: p99 under 50 ms and every step run. Frames are counted as the client sent them and as the
server handled them; the difference waits in socket buffers (a waiting connection is not read).
Beside the figures it prints the load average (1 min, start and end), how busy the cores were and
the server's share of that CPU time (`machine_load.py`): under other work the same churn measured
a p99 twenty times the quiet one, so a figure without its load says little.
Bounded: `--seconds` of measurement, then everything stops.

    python benchmarks/join_churn.py [--spectators 500] [--seconds 20] [--tick 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing as mp
import tempfile
import time
from pathlib import Path
from typing import Any

from machine_load import MachineLoad

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, RoomSettings, ServerConfig


def churn(url: str, room: str, n: int, per_second: float, stop: Any, ready: Any, counts: Any) -> None:
    """In a child process: `n` connections, each joining and leaving `room` in turn."""
    from websockets.asyncio.client import connect

    async def one(k: int) -> None:
        async with connect(url, max_size=None, compression=None) as ws:
            async def drain() -> None:
                async for _ in ws:
                    pass

            reader = asyncio.create_task(drain())
            await asyncio.sleep(k * 2.0 / n)  # spread the starts over two seconds
            joined = False
            while not stop.is_set():
                frame = {"v": 1, "type": "leave"} if joined else {"v": 1, "type": "join", "room": room,
                                                                     "role": "spectator"}
                await ws.send(json.dumps(frame))
                with counts.get_lock():
                    counts.value += 1
                joined = not joined
                await asyncio.sleep(1.0 / per_second)
            reader.cancel()

    async def main() -> None:
        tasks = [asyncio.create_task(one(k)) for k in range(n)]
        await asyncio.sleep(2.5)
        ready.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    config = ServerConfig(port=0, model="planner", model_why="benchmark", tick=args.tick, startup=None,
                          recordings=folder, max_per_address=args.spectators + 10,
                          max_room_members=args.spectators + 10)
    async with GameServer(config) as server:
        def settings() -> RoomSettings:
            return RoomSettings(GameSpec("cuisineworld", "level_3", 4, 1.0, 0, "reference", 100_000), "planner",
                                "benchmark", "realtime", args.tick, 30.0, True)

        churned, measured = await server.registry.create(settings()), await server.registry.create(settings())
        churned.start()
        measured.start()
        spawn = mp.get_context("spawn")
        stop, ready, counts = spawn.Event(), spawn.Event(), spawn.Value("q", 0)
        child = spawn.Process(target=churn, args=(server.ws_url, churned.id, args.spectators, args.per_second, stop,
                                                  ready, counts))
        child.start()
        while not ready.is_set():
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        measured.lags.clear()
        ticks0, steps0, frames0, handled0 = measured.ticks, measured.session.step_index, counts.value, server.lane.handled
        started = time.time()
        cpu0 = time.process_time()
        probe = MachineLoad.start()
        await asyncio.sleep(args.seconds)
        wall = time.time() - started
        cpu = time.process_time() - cpu0
        seen = probe.stop(cpu)
        steps = measured.session.step_index - steps0
        ticks = measured.ticks - ticks0
        lateness = [1000 * lag for lag in measured.lags]
        frames = counts.value - frames0
        handled = server.lane.handled - handled0
        stop.set()
        await asyncio.to_thread(child.join, 15)
        if child.is_alive():
            child.kill()
    scheduled = int(wall / args.tick)
    return {"spectators": args.spectators, "frames_per_s": frames / wall, "handled_per_s": handled / wall,
            "ticks": ticks, "scheduled": scheduled,
            "steps": steps, "p50": percentile(lateness, 0.5), "p99": percentile(lateness, 0.99),
            "max": max(lateness, default=float("nan")), "cpu": 100 * cpu / wall,
            "cpu_per_frame": 1e6 * cpu / max(handled, 1), "load": seen.cells()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=500)
    parser.add_argument("--per-second", type=float, default=9.0, help="join/leave frames per connection per second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tick", type=float, default=0.5)
    args = parser.parse_args()
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # late ticks are in the table, not one line each
    if not 1 <= args.spectators <= 2000 or not 1 <= args.seconds <= 120:
        parser.error("keep it bounded: 1-2000 spectators, 1-120 seconds")
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(args, Path(tmp)))
    print("| spectators churning room A | join/leave frames/s sent / handled | room B ticks run / scheduled | steps run | "
          "lateness p50 | p99 | max | server CPU | CPU per frame | load average | cores busy | server's share of busy CPU |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {r['spectators']} | {r['frames_per_s']:.0f} / {r['handled_per_s']:.0f} | {r['ticks']} / {r['scheduled']} | {r['steps']} | "
          f"{r['p50']:.2f} ms | {r['p99']:.2f} ms | {r['max']:.2f} ms | {r['cpu']:.0f} % | "
          f"{r['cpu_per_frame']:.0f} µs | {r['load']} |")


if __name__ == "__main__":
    main()
