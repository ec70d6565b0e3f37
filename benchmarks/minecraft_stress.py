"""Consecutive Minecraft planner episodes under a background CPU load: do the bots ever fail to
find the animal or block the kitchen lists ("no entity" failures)?

Runs the real embedded flying-squid kitchen and real mineflayer bots (Node and `npm ci` in
minecraft/node are needed). Team sizes cycle through `--agents` (2, 3, 4 by default), one server
and one bridge per team size, each episode resetting the kitchen with its own seed. Meanwhile
`--load` processes spin on the CPU (at the same niceness as this script), so packets from the
server reach the bots late, as on a busy machine. The built-in planner only sends commands the
checker accepts, so every `not_found` outcome is the world disagreeing with the kitchen state
the bots were sent: that count should be 0.

    python benchmarks/minecraft_stress.py                  # 20 episodes, 2-4 agents, 20 steps, 2 spinners
    python benchmarks/minecraft_stress.py --episodes 6 --steps 10 --load 0
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minecraft import EmbeddedServer, KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.orders import TAUS
from minecraft.results import ActionError
from minecraft.session import WorldLost
from minecraft.transport import BridgeError, BridgeTransport


def spin(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    """Busy work until told to stop: the background load."""
    x = 0
    while not stop.is_set():
        for i in range(200_000):
            x = (x * 31 + i) % 1_000_003


async def episode(server: EmbeddedServer, bridge: BridgeTransport, agents: int, tau: float, seed: int,
                  steps: int) -> tuple[Counter[str], list[str], int, float]:
    """Failure codes of the episode's commands, the not_found lines, orders done, seconds."""
    session = MinecraftSession(n_agents=agents, tau=tau, seed=seed, max_steps=steps, address=server.address,
                               bridge=bridge)
    started = time.perf_counter()
    await session.reset()
    planner = MinecraftPlanner()
    planner.reset(session)
    codes: Counter[str] = Counter()
    missing: list[str] = []
    while not session.done:
        step = await session.step(planner.act(session))
        for verdict in step.verdicts:
            if isinstance(verdict.reason, ActionError):
                codes[verdict.reason.code] += 1
                if verdict.reason.code == "not_found":
                    missing.append(f"step {session.step_index}: {verdict.command}: {verdict.reason.detail}")
    return codes, missing, session.counts.completed, time.perf_counter() - started


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--agents", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--load", type=int, default=2, help="busy processes beside the game")
    parser.add_argument("--cook-ticks", type=int, default=40)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=spin, args=(stop,), daemon=True) for _ in range(args.load)]
    for p in spinners:
        p.start()
    worlds: dict[int, tuple[EmbeddedServer, BridgeTransport]] = {}
    total: Counter[str] = Counter()
    not_found: list[str] = []
    broken: list[str] = []
    print(f"episodes={args.episodes} agents={args.agents} steps={args.steps} background load={args.load} processes")
    print(f"{'ep':>3} {'agents':>6} {'tau':>4} {'done':>4} {'not_found':>9} {'other failures':<30} {'s':>6}")
    try:
        for i in range(args.episodes):
            agents, tau = args.agents[i % len(args.agents)], TAUS[i % len(TAUS)]
            if agents not in worlds:
                server = EmbeddedServer(KitchenConfig(cook_ticks=args.cook_ticks))
                await server.start()
                bridge = BridgeTransport()
                await bridge.start()
                worlds[agents] = (server, bridge)
            try:
                codes, missing, done, seconds = await episode(*worlds[agents], agents, tau, i, args.steps)
            except (WorldLost, BridgeError) as exc:  # counted and reported, then a fresh world for this size
                broken.append(f"episode {i} ({agents} agents): {type(exc).__name__}: {exc}")
                print(f"{i:>3} {agents:>6} {tau:>4.1f} episode failed: {exc}", flush=True)
                server, bridge = worlds.pop(agents)
                await bridge.close()
                await server.stop()
                continue
            total += codes
            not_found += [f"episode {i}: {line}" for line in missing]
            other = ", ".join(f"{c} {n}" for c, n in sorted(codes.items()) if c != "not_found") or "-"
            print(f"{i:>3} {agents:>6} {tau:>4.1f} {done:>4} {codes['not_found']:>9} {other:<30} {seconds:>6.1f}",
                  flush=True)
    finally:
        stop.set()
        for server, bridge in worlds.values():
            await bridge.close()
            await server.stop()
        for p in spinners:
            p.join(timeout=5)
    print(f"'no entity' (not_found) failures in {args.episodes} episodes: {total['not_found']}")
    for line in not_found:
        print("  " + line)
    other = ", ".join(f"{c} {n}" for c, n in sorted(total.items()) if c != "not_found") or "none"
    print(f"other failed commands: {other}")
    print(f"episodes that could not run: {len(broken)}")
    for line in broken:
        print("  " + line)
    return 1 if total["not_found"] or broken else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
