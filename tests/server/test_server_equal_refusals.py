"""With rooms sharded over worker processes (`serve --workers 2`), a join to a private room without
its secret and a join to a room that does not exist get the same frame in the same time, whichever
worker holds the room: neither the wording nor the timing tells which room ids exist.

The three kinds of refused join are sent interleaved (so a slow moment of a shared machine falls
on all of them alike) many times over one connection, and their round-trip times compared by
median and lower quartile: robust statistics, not means that one stall can move."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.shards import ShardSet

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
ADMIN = "a-long-enough-admin-token-for-tests"
ROUNDS = 300
#: The medians may differ by this much (seconds) or this share of the missing room's median,
#: whichever is larger. Before the fix an existing private room answered about 0.5 ms (70 %) later.
ABS_BOUND_S, REL_BOUND = 0.00015, 0.2


def quartiles(times: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(times, n=4)
    return q[0], q[1]


async def test_private_and_missing_rooms_are_refused_alike_across_workers(tmp_path: Path) -> None:
    config = ServerConfig(port=0, model="planner", model_why="test", tick=0.2, human_tick=None, countdown=0,
                          recordings=tmp_path / "rooms", admin_token=ADMIN, workers=2, rate=1e6, burst=1e6,
                          startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    async with GameServer(config) as server:
        async with connect(server.ws_url, max_size=None) as ws:
            json.loads(await ws.recv())  # welcome

            async def ask(**message: object) -> tuple[float, str]:
                started = time.perf_counter()
                await ws.send(json.dumps({"v": 1, "id": 7, **message}))
                reply = await ws.recv()
                return time.perf_counter() - started, str(reply)

            hidden, secrets = [], []
            for level in ("level_1", "level_2"):
                _, made = await ask(type="create_room", admin_token=ADMIN, level=level, agents=2, public=False)
                hidden.append(json.loads(made)["room"])
                secrets.append(json.loads(made)["secret"])
            assert isinstance(server.rooms, ShardSet)
            assert sorted(server.rooms.directory[r] for r in hidden) == [0, 1]  # one private room in each worker

            kinds = {"missing": {"room": "0" * 32}, "private, worker a": {"room": hidden[0]},
                     "private, worker b": {"room": hidden[1], "secret": "wrong-secret"}}
            times: dict[str, list[float]] = {k: [] for k in kinds}
            frames: dict[str, set[str]] = {k: set() for k in kinds}
            for _ in range(20):  # warm up every path first
                for fields in kinds.values():
                    await ask(type="join", role="spectator", **fields)
            for n in range(ROUNDS):
                order = list(kinds.items())
                order = order[n % 3:] + order[:n % 3]  # no kind always first after a pause
                for kind, fields in order:
                    took, frame = await ask(type="join", role="spectator", **fields)
                    times[kind].append(took)
                    frames[kind].add(frame)

            for room, secret in zip(hidden, secrets, strict=True):  # the secret still opens each room
                _, joined = await ask(type="join", role="spectator", room=room, secret=secret)
                assert json.loads(joined)["type"] == "joined", joined

    assert len({frozenset(f) for f in frames.values()}) == 1 and len(frames["missing"]) == 1, frames
    assert json.loads(next(iter(frames["missing"])))["code"] == "no_room"
    low_m, mid_m = quartiles(times["missing"])
    for kind in ("private, worker a", "private, worker b"):
        low, mid = quartiles(times[kind])
        bound = max(ABS_BOUND_S, REL_BOUND * mid_m)
        assert abs(mid - mid_m) <= bound, (kind, f"median {mid * 1e3:.3f} ms vs missing {mid_m * 1e3:.3f} ms")
        assert abs(low - low_m) <= bound, (kind, f"lower quartile {low * 1e3:.3f} ms vs missing {low_m * 1e3:.3f} ms")
