"""Practice flood: one address opens 64 connections at 9 a second and each asks for a practice
room 9 times a second (under the 10 frames/s limit) for 20 s, while another room plays; does the
server stay bounded?

Issue #28 measured this flood before practice rooms had a budget: 7,127 recording files (84 MB)
in 20 s, the other room's p99 lateness from 7 to 113 ms (load 1.7), new visitors' welcome at
317 ms median, and (with 8 addresses) the admin's ``create_room`` refused. Here:

- room B (measured) runs level_3 with the built-in planner in real time (a tick every `--tick` s)
  with one spectator; its lateness is every scheduled tick's, from its own scheduled time to the
  run that served it, measured first without the flood (the baseline) and then during it;
- a child process runs the clients: the flood from 127.0.0.1, the admin from 127.0.0.2 creating a
  room halfway through, a visitor from 127.0.0.3 connecting once a second (time to ``welcome``),
  and the spectator from 127.0.0.4;
- printed: rooms the flood opened and the refusals it got, recordings written, whether the admin
  created a room, room B's lateness p50/p99, the welcome time, the 1-minute load average and the
  share of one core the server process got (its CPU seconds over the wall seconds).

    python benchmarks/practice_flood.py [--connections 64] [--per-second 9] [--seconds 20] [--tick 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing as mp
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, RoomSettings, ServerConfig


def clients(url: str, admin_token: str, room: str, args: dict[str, Any], go: Any, out: Any) -> None:
    """In a child process: the spectator at once; the flood, the admin and the visitor on `go`."""
    from websockets.asyncio.client import connect

    tally = {"joined": 0, "refused": 0, "sent": 0, "connections": 0, "connect_refused": 0}

    async def spectator() -> None:
        async with connect(url, max_size=None, local_addr=("127.0.0.4", 0)) as ws:
            await ws.send(json.dumps({"v": 1, "type": "join", "room": room, "role": "spectator"}))
            async for _ in ws:
                pass

    async def flooder(until: float) -> None:
        try:
            ws = await connect(url, max_size=None, compression=None, local_addr=("127.0.0.1", 0))
        except Exception:  # noqa: BLE001 - a refused connection is part of the result
            tally["connect_refused"] += 1
            return
        tally["connections"] += 1

        async def read() -> None:
            async for frame in ws:
                kind = json.loads(frame).get("type")
                if kind == "joined":
                    tally["joined"] += 1
                elif kind == "error":
                    tally["refused"] += 1

        reader = asyncio.create_task(read())
        try:
            while time.monotonic() < until:
                await ws.send('{"v":1,"type":"practice"}')
                tally["sent"] += 1
                await asyncio.sleep(1 / args["per_second"])
            await asyncio.sleep(1.0)  # the last answers
        finally:
            reader.cancel()
            await ws.close()

    async def admin(at: float) -> dict[str, Any]:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        async with connect(url, max_size=None, local_addr=("127.0.0.2", 0)) as ws:
            await ws.recv()  # welcome
            started = time.perf_counter()
            await ws.send(json.dumps({"v": 1, "id": 1, "type": "create_room", "admin_token": admin_token, "agents": 2}))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("re") == 1:
                    return {"admin_created": reply["type"] == "room_created",
                            "admin_answer": reply.get("message", reply["type"]),
                            "admin_ms": 1000 * (time.perf_counter() - started)}

    async def visitor(until: float) -> list[float]:
        times = []
        while time.monotonic() < until:
            started = time.perf_counter()
            async with connect(url, max_size=None, local_addr=("127.0.0.3", 0)) as ws:
                await ws.recv()
                times.append(1000 * (time.perf_counter() - started))
            await asyncio.sleep(1.0)
        return times

    async def main() -> None:
        watching = asyncio.create_task(spectator())
        while not go.is_set():
            await asyncio.sleep(0.05)
        start = time.monotonic()
        until = start + args["seconds"]
        floods = []
        for _ in range(args["connections"]):  # opened at `per_second` a second
            floods.append(asyncio.create_task(flooder(until)))
            await asyncio.sleep(1 / args["per_second"])
        admin_result, welcomes = await asyncio.gather(admin(start + args["seconds"] / 2), visitor(until))
        await asyncio.gather(*floods)
        watching.cancel()
        out.put({**tally, **admin_result, "welcome_ms": welcomes})

    asyncio.run(main())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def recordings(folder: Path, besides: str) -> dict[str, int]:
    """Recording files under `folder` (relative name -> bytes), leaving out room `besides`'s own."""
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*.jsonl")
            if p.is_file() and not p.name.startswith(besides)}


async def measure(server: GameServer, room: str, seconds: float) -> dict[str, float]:
    """Room B's lateness, the server's CPU share and the load over the next `seconds`."""
    lags = server.registry.rooms[room].lags
    lags.clear()
    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    late = [1000 * lag for lag in lags]
    return {"p50": percentile(late, 0.5), "p99": percentile(late, 0.99), "ticks": len(late),
            "cpu": 100 * cpu / wall, "load": os.getloadavg()[0]}


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    lifted = {"max_practice": 10_000, "max_practice_per_address": 10_000, "practice_rate": 10_000.0,
              "practice_burst": 10_000.0, "admin_reserve": 0} if args.unbounded else {}
    config = ServerConfig(port=0, model="planner", model_why="benchmark", tick=args.tick, startup=None,
                          recordings=folder, **lifted)
    async with GameServer(config) as server:
        settings = RoomSettings(GameSpec("cuisineworld", "level_3", 4, 1.0, 0, "reference", 100_000), "planner",
                                "benchmark", "realtime", args.tick, 30.0, True, autoplay=True)
        room = (await server.rooms.open_room(settings))["room"]
        spawn = mp.get_context("spawn")
        go, out = spawn.Event(), spawn.Queue()
        child = spawn.Process(target=clients, args=(server.ws_url, server.admin_token, room,
                                                    {"connections": args.connections, "per_second": args.per_second,
                                                     "seconds": args.seconds}, go, out))
        child.start()
        await asyncio.sleep(args.warmup)
        baseline = await measure(server, room, args.baseline)
        before = recordings(folder, room)
        go.set()
        during = await measure(server, room, args.seconds)
        result = await asyncio.to_thread(out.get, True, 60)
        await asyncio.to_thread(child.join, 10)
        after = recordings(folder, room)
        practice_open = sum(1 for r in server.registry.rooms.values() if r.settings.practice)
    written = sorted(set(after) - set(before))
    return {"baseline": baseline, "during": during, "clients": result, "recordings": written,
            "recording_bytes": sum(after[name] for name in written), "practice_open_at_end": practice_open,
            "limits": config.practice_limits()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--per-second", type=float, default=9.0, help="connections opened, and practice frames each sends, a second")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the flood")
    parser.add_argument("--baseline", type=float, default=10.0, help="seconds room B is measured before the flood")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--tick", type=float, default=0.5, help="room B's seconds per step")
    parser.add_argument("--unbounded", action="store_true",
                        help="lift the practice budget (the yardstick: what the flood costs without it)")
    args = parser.parse_args()
    if not 1 <= args.connections <= 64 or not 0 < args.per_second <= 10 or not 1 <= args.seconds <= 120:
        parser.error("keep it bounded: 1-64 connections, up to 10 a second, 1-120 seconds")
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(args, Path(tmp)))
    c, b, d, limits = r["clients"], r["baseline"], r["during"], r["limits"]
    welcome = c["welcome_ms"]
    print(f"\nflood: one address, {args.connections} connections opened at {args.per_second:g}/s, each sending "
          f"`practice` {args.per_second:g}/s for {args.seconds:g} s; room B: level_3, 4 agents, planner, a tick every "
          f"{args.tick:g} s, one spectator\n")
    budget = (f"practice budget: {limits.per_address} per address, {limits.total} in all, {limits.rate:g}/s per address "
              f"after a burst of {limits.burst:g}, the last {limits.admin_reserve} rooms kept for the admin")
    print(("practice budget LIFTED (--unbounded)" if args.unbounded else budget) + "\n")
    print(f"flood: {c['connections']} connections ({c['connect_refused']} refused), {c['sent']} practice frames, "
          f"{c['joined']} practice rooms opened, {c['refused']} refused; {r['practice_open_at_end']} open at the end")
    names = ", ".join(r["recordings"][:5]) + (", ..." if len(r["recordings"]) > 5 else "")
    print(f"recordings written during the flood (besides room B's own): {len(r['recordings'])} "
          f"({r['recording_bytes']} bytes){': ' + names if names else ''}")
    print(f"admin create_room during the flood: {'created' if c['admin_created'] else 'REFUSED: ' + c['admin_answer']} "
          f"in {c['admin_ms']:.1f} ms")
    print(f"new visitor's welcome during the flood: median {statistics.median(welcome) if welcome else float('nan'):.1f} ms, "
          f"max {max(welcome, default=float('nan')):.1f} ms ({len(welcome)} visits)\n")
    print("| room B | ticks | lateness p50 (ms) | p99 (ms) | server CPU (share of one core) | load (1 min) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, m in (("before the flood", b), ("during the flood", d)):
        print(f"| {name} | {m['ticks']} | {m['p50']:.2f} | {m['p99']:.2f} | {m['cpu']:.1f} % | {m['load']:.2f} |")


if __name__ == "__main__":
    main()
