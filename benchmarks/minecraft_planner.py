"""Seconds per dispatcher step and CoS per tau for the built-in Minecraft planner.

Runs the real embedded flying-squid kitchen and real mineflayer bots (Node and `npm ci` in
minecraft/node are needed). One server and one bridge serve every episode; each episode resets
the kitchen. Defaults are short episodes so the whole run takes a few minutes on two cores:

    python benchmarks/minecraft_planner.py                    # 2 agents, 20 steps, 1 episode per tau
    python benchmarks/minecraft_planner.py --steps 60 --episodes 3 --cook-ticks 200

Rate per tau = completed / (completed + failed + still active at the end), CoS = mean of the
rates (the paper's accounting, see shared/reference/cuisineworld.md section 7). The kitchen runs
in lockstep: each dispatcher step advances it by 40 game ticks however long the actions take, so
the rates no longer depend on machine speed; seconds per step still do.

Besides wall seconds per step it prints the CPU seconds the two Node processes (server and bot
bridge) spent per step, and the cost of one observation on its own (wall and Node CPU, averaged
over `--observe-probe` calls after the episodes), since on a loaded machine CPU time is the
steadier figure.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minecraft import EmbeddedServer, KitchenConfig, MinecraftPlanner, MinecraftSession
from minecraft.orders import TAUS
from minecraft.transport import BridgeTransport


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of a live process (Linux /proc), 0 when unknown."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def node_cpu(server: EmbeddedServer, bridge: BridgeTransport) -> float:
    return cpu_seconds(server.pid) + cpu_seconds(bridge.pid)


async def observe_probe(server: EmbeddedServer, bridge: BridgeTransport, calls: int) -> tuple[float, float]:
    """Mean wall and Node CPU seconds of one `observe` request."""
    cpu0, wall0 = node_cpu(server, bridge), time.perf_counter()
    for _ in range(calls):
        await bridge.request("observe", {}, timeout=10.0)
    return (time.perf_counter() - wall0) / calls, (node_cpu(server, bridge) - cpu0) / calls


async def episode(server: EmbeddedServer, bridge: BridgeTransport, tau: float, seed: int, steps: int,
                  agents: int) -> tuple[int, int, int, list[float]]:
    session = MinecraftSession(n_agents=agents, tau=tau, seed=seed, max_steps=steps,
                               address=server.address, bridge=bridge)
    await session.reset()
    planner = MinecraftPlanner()
    planner.reset(session)
    step_times = []
    while not session.done:
        started = time.perf_counter()
        await session.step(planner.act(session))
        step_times.append(time.perf_counter() - started)
    c = session.counts
    return c.completed, c.failed, c.active, step_times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--cook-ticks", type=int, default=40)
    parser.add_argument("--taus", type=float, nargs="*", default=list(TAUS))
    parser.add_argument("--observe-probe", type=int, default=20, help="observe calls timed after the episodes")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    server = EmbeddedServer(KitchenConfig(cook_ticks=args.cook_ticks, mob_respawn_ms=3000, block_respawn_ms=5000))
    await server.start()
    bridge = BridgeTransport()
    await bridge.start()
    print(f"agents={args.agents} steps={args.steps} episodes={args.episodes} cook_ticks={args.cook_ticks}")
    print(f"{'tau':>5} {'done':>5} {'failed':>6} {'active':>6} {'rate':>6} {'s/step':>7} {'p90 s':>6} {'node cpu s/step':>15}")
    rates, all_times, all_cpu = [], [], 0.0
    try:
        for tau in args.taus:
            done = failed = active = 0
            times: list[float] = []
            cpu0 = node_cpu(server, bridge)
            for seed in range(args.episodes):
                d, f, a, t = await episode(server, bridge, tau, seed, args.steps, args.agents)
                done, failed, active, times = done + d, failed + f, active + a, times + t
            cpu = node_cpu(server, bridge) - cpu0
            all_cpu += cpu
            rate = done / max(1, done + failed + active)
            rates.append(rate)
            all_times += times
            p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
            print(f"{tau:>5.1f} {done:>5} {failed:>6} {active:>6} {rate:>6.3f} {statistics.mean(times):>7.2f} {p90:>6.2f}"
                  f" {cpu / len(times):>15.3f}", flush=True)
        print(f"CoS {statistics.mean(rates):.3f}; mean seconds per dispatcher step {statistics.mean(all_times):.2f}; "
              f"Node CPU seconds per step {all_cpu / len(all_times):.3f}")
        if args.observe_probe > 0:
            wall, cpu = await observe_probe(server, bridge, args.observe_probe)
            print(f"one observation ({args.agents} idle bots): {1000 * wall:.0f} ms wall, {1000 * cpu:.0f} ms Node CPU")
    finally:
        await bridge.close()
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
