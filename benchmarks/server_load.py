"""Game-server load: N real-time rooms on one server, tick lag p50/p99 against N.

Each room runs CuisineWorld with the built-in planner as its dispatcher (or `--model random`) and
steps every `--tick` seconds; `--spectators` websockets per room (2 by default) are connected from
a separate process, so every step is also encoded and sent. Lateness is honest: every scheduled
tick counts, measured from its own scheduled time to the run that served it (a tick skipped or
merged into a late run counts with that run's lateness, not modulo the period), and ticks and
steps run are printed against those scheduled. Target: 250 rooms at 2 ticks/s with 2 spectators
each, p99 lateness under 50 ms and every tick run.

With `--workers N` the rooms live in N worker processes behind one front process (`serve
--workers N`); CPU is then summed over every server process. Beside every figure the table gives
the load average (1 min, at the start and end of the measurement), how busy the cores were, and
the share of that CPU time the server got (`machine_load.py`): a p99 taken on a loaded machine
says what the server did with what was left, not what it needs.

    python benchmarks/server_load.py [--rooms 1,10,50,100] [--tick 0.5] [--seconds 20] [--spectators 2] [--no-clients]
                                     [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing as mp
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from machine_load import MachineLoad

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, RoomSettings, ServerConfig


def spectators(url: str, rooms: list[str], stop: mp.synchronize.Event, ready: mp.synchronize.Event) -> None:
    """In a child process: one websocket per entry of `rooms`, joined as spectator, reading everything."""
    from websockets.asyncio.client import connect

    async def watch(room: str, counter: list[int]) -> None:
        async with connect(url, max_size=None) as ws:
            await ws.send(json.dumps({"v": 1, "type": "join", "room": room, "role": "spectator"}))
            async for _ in ws:
                counter[0] += 1

    async def main() -> None:
        counter = [0]
        tasks = [asyncio.create_task(watch(room, counter)) for room in rooms]
        await asyncio.sleep(1.0 + len(rooms) / 500)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]






async def run(n: int, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    config = ServerConfig(port=0, model=args.model, model_why="benchmark", tick=args.tick, startup=None,
                          recordings=folder / f"n{n}", rate=1000, burst=1000, workers=args.workers,
                          max_per_address=max(64, n * args.spectators + 10), compression=args.compression)
    async with GameServer(config) as server:
        rooms = []
        for _ in range(n):  # autoplay: each room ticks from its opening, with or without people
            settings = RoomSettings(GameSpec("cuisineworld", args.level, args.agents, 1.0, 0, "reference", 100_000), args.model,
                                    "benchmark", "realtime", args.tick, 30.0, True, autoplay=True)
            rooms.append((await server.rooms.open_room(settings))["room"])
        spawn = mp.get_context("spawn")
        stop, ready = spawn.Event(), spawn.Event()
        child = None
        if args.clients:
            watched = [room for room in rooms for _ in range(args.spectators)]
            child = spawn.Process(target=spectators, args=(server.ws_url, watched, stop, ready))
            child.start()
            while not ready.is_set():
                await asyncio.sleep(0.1)
        await asyncio.sleep(args.warmup)
        before = await server.rooms.clock_stats(clear=True)
        probe = MachineLoad.start()
        await asyncio.sleep(args.seconds)
        after = await server.rooms.clock_stats()
        seen = probe.stop(after.cpu_s - before.cpu_s)
        wall = after.clock - before.clock  # when the rooms' processes counted, not when the answers came
        cpu = after.cpu_s - before.cpu_s
        ticks = after.ticks - before.ticks
        steps = after.steps - before.steps
        lags = [lag * 1000 for lag in after.lags]
        if child is not None:
            stop.set()
            await asyncio.to_thread(child.join, 10)
    expected = n * wall / args.tick
    return {"rooms": n, "ticks": ticks, "expected": expected, "rate": ticks / wall, "p50": percentile(lags, 0.5),
            "p99": percentile(lags, 0.99), "max": max(lags, default=float("nan")),
            "mean": statistics.fmean(lags) if lags else float("nan"), "cpu": 100 * cpu / wall, "steps": steps,
            "cpu_per_tick": 1000 * cpu / max(ticks, 1), "processes": after.processes, "load": seen.cells()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="1,10,50,100", help="comma-separated room counts")
    parser.add_argument("--tick", type=float, default=0.5, help="seconds per step in every room")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time per room count")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--model", default="planner", help="planner or random")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--spectators", type=int, default=2, help="spectator websockets per room")
    parser.add_argument("--compression", choices=("shared", "member", "off"), default="shared",
                        help="the server's websocket compression (see `mindagent serve --compression`)")
    parser.add_argument("--no-clients", dest="clients", action="store_false", help="no spectator websockets")
    parser.add_argument("--workers", type=int, default=1, help="room worker processes behind the port (serve --workers)")
    args = parser.parse_args()
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # late ticks are in the table, not one line each
    counts = [int(x) for x in args.rooms.split(",") if x.strip()]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            print(f"measuring {n} room(s)...", file=sys.stderr, flush=True)
            results.append(asyncio.run(run(n, args, Path(tmp))))
    print(f"\n{args.level}, {args.agents} agents, dispatcher {args.model}, a tick every {args.tick:g}s "
          f"({1 / args.tick:g} ticks/s per room), {args.seconds:g}s measured, "
          f"{f'{args.spectators} spectator websocket(s) per room' if args.clients else 'no clients'}, "
          f"compression {args.compression}, "
          f"{'rooms in this process' if args.workers == 1 else f'{args.workers} room workers behind one front process'}\n")
    print("| rooms | ticks run / scheduled | steps run | lateness p50 (ms) | p99 (ms) | max (ms) | server CPU "
          "(all processes) | CPU per tick run | load average | cores busy | server's share of busy CPU |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['rooms']} | {r['ticks']} / {r['expected']:.0f} | {r['steps']} | {r['p50']:.2f} | "
              f"{r['p99']:.2f} | {r['max']:.2f} | {r['cpu']:.0f} % | {r['cpu_per_tick']:.2f} ms | {r['load']} |")


if __name__ == "__main__":
    main()
